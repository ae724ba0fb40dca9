/* The element types a dat, constant or global argument may have, as OP2 spells them. */
#include <string.h>

#include "op2_impl.h"

int op2_type_parse(const char *name, op2_type *out) {
  if (!name) return OP2_ERR_ARG;
  for (int t = 0; t < OP2_TYPE_COUNT; t++) {
    if (strcmp(name, op2_type_name((op2_type)t)) == 0) {
      *out = (op2_type)t;
      return OP2_OK;
    }
  }
  /* OP2 programs also write these spellings. */
  if (strcmp(name, "r8") == 0) return *out = OP2_TYPE_DOUBLE, OP2_OK;
  if (strcmp(name, "long") == 0 && sizeof(long) == sizeof(long long))
    return *out = OP2_TYPE_LONGLONG, OP2_OK;
  return OP2_ERR_ARG;
}
