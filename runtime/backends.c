/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of backends, in one place. A backend fills an op2_backend table; meson decides which
 * files are built. */
#include <string.h>

#include "runtime/backend.h"

extern const op2_backend op2_backend_seq;
extern const op2_backend op2_backend_openmp;
#ifdef OP2_HAVE_CUDA
extern const op2_backend op2_backend_cuda;
extern const op2_backend op2_backend_cuda_emu;
#endif

static const op2_backend *const backends[] = {
    &op2_backend_seq,
    &op2_backend_openmp,
#ifdef OP2_HAVE_CUDA
    &op2_backend_cuda,
    &op2_backend_cuda_emu,
#endif
};
enum { NBACKENDS = sizeof backends / sizeof backends[0] };

const op2_backend *op2_backend_find(const char *name) {
  for (int i = 0; i < NBACKENDS; i++)
    if (name && strcmp(backends[i]->name, name) == 0) return backends[i];
  return NULL;
}

const char *op2_backend_names(void) {
#ifdef OP2_HAVE_CUDA
  return "seq, openmp, cuda, cuda-emu";
#else
  return "seq, openmp";
#endif
}
