/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine behind op2_jit (jit.h), private to jit/: its configuration, the compilers it found,
 * the background tier and the failure its caller reads. */
#ifndef OP2_JIT_ENGINE_H
#define OP2_JIT_ENGINE_H

#include "cache_entry.h"
#include "jit.h"

struct op2_jit {
  op2_jit_config cfg;
  op2_tier tcc, cc, cxx;
  int cc_usable;
  int cxx_state; /* the C++ tier (cxx.c), set up when first needed: 0 not yet, 1 usable, -1 none */
  int told_unwritable; /* the warning that the cache cannot be written is given once */
  int node_follower;   /* another process of this machine builds and stores optimised code */
  op2_background *background;
  op2_loaded_objects *loaded; /* the objects this engine loaded: see op2_load_object_fd */
  op2_jit_error failure;
};

#endif /* OP2_JIT_ENGINE_H */
