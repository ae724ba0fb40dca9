/* SPDX-License-Identifier: BSD-3-Clause */
/* CHECK for the C++ test programs (test.h is the C tests'). */
#ifndef OP2_CXX_CHECK_H
#define OP2_CXX_CHECK_H

#include <cstdio>
#include <cstdlib>

#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

#endif
