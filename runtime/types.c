/* SPDX-License-Identifier: BSD-3-Clause */
/* The element types a dat, constant or global argument may have, as OP2 spells them. */
#include <string.h>

#include "runtime/mesh.h"

int op2_type_parse(const char *name, op2_type *out) {
  if (!name) return OP2_ERR_ARG;
  /* OP2 asks for a struct-of-arrays layout with a ":soa" suffix ("double:soa"); its kernels then
   * index such a dat through OP2_STRIDE(arr, i), which the preludes define as arr[i]: the values
   * stay element by element here, so the suffix changes nothing but the spelling. */
  size_t len = strlen(name);
  if (len > 4 && strcmp(name + len - 4, ":soa") == 0) len -= 4;
  for (int t = 0; t < OP2_TYPE_COUNT; t++) {
    const char *known = op2_type_name((op2_type)t);
    if (strlen(known) == len && strncmp(name, known, len) == 0) {
      *out = (op2_type)t;
      return OP2_OK;
    }
  }
  /* OP2 programs also write these spellings. */
  if (len == 2 && strncmp(name, "r8", 2) == 0) return *out = OP2_TYPE_DOUBLE, OP2_OK;
  if (len == 4 && strncmp(name, "long", 4) == 0 && sizeof(long) == sizeof(long long))
    return *out = OP2_TYPE_LONGLONG, OP2_OK;
  return OP2_ERR_ARG;
}
