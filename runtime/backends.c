/* SPDX-License-Identifier: BSD-3-Clause */
/* The list of backends, in one place: everything else (OP2_BACKEND's names, the options of
 * each) is read from their op2_backend tables. meson decides which files are built. */
#include <stdio.h>
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

int op2_backend_count(void) {
  return NBACKENDS;
}

const op2_backend *op2_backend_at(int i) {
  return i >= 0 && i < NBACKENDS ? backends[i] : NULL;
}

void op2_backend_names(char *out, size_t len) {
  size_t n = 0;
  if (len) out[0] = '\0';
  for (int i = 0; i < NBACKENDS && n < len; i++)
    n += (size_t)snprintf(out + n, len - n, "%s%s", i ? ", " : "", backends[i]->name);
}
