/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's Fortran type strings. Apart from fortran_api.c, whose Fortran descriptors need
 * libgfortran: the core reaches this file (through the optimised tier's source reading) in C
 * programs too. */
#include <ctype.h>
#include <string.h>

#include "runtime/fortran/fortran.h"

/* The string without blanks, lower case, into out (len bytes). */
static void squeeze(const char *s, size_t n, char *out, size_t len) {
  size_t k = 0;
  for (size_t i = 0; i < n && s[i] && k + 1 < len; i++)
    if (!isspace((unsigned char)s[i])) out[k++] = (char)tolower((unsigned char)s[i]);
  out[k] = '\0';
}

/* "real(8)" and OP2's other spellings as an element type; logical is a 4-byte integer (gfortran's
 * default kind). OP2_ERR_ARG when it is none of them. */
int op2_fortran_type_of(const char *s, size_t n, op2_type *t) {
  static const struct {
    const char *spelling;
    op2_type type;
  } known[] = {{"real(8)", OP2_TYPE_DOUBLE},
               {"real*8", OP2_TYPE_DOUBLE},
               {"real(kind=8)", OP2_TYPE_DOUBLE},
               {"r8", OP2_TYPE_DOUBLE},
               {"doubleprecision", OP2_TYPE_DOUBLE},
               {"double", OP2_TYPE_DOUBLE},
               {"real(4)", OP2_TYPE_FLOAT},
               {"real*4", OP2_TYPE_FLOAT},
               {"real(kind=4)", OP2_TYPE_FLOAT},
               {"r4", OP2_TYPE_FLOAT},
               {"real", OP2_TYPE_FLOAT},
               {"float", OP2_TYPE_FLOAT},
               {"integer(4)", OP2_TYPE_INT},
               {"integer*4", OP2_TYPE_INT},
               {"integer(kind=4)", OP2_TYPE_INT},
               {"i4", OP2_TYPE_INT},
               {"integer", OP2_TYPE_INT},
               {"int", OP2_TYPE_INT},
               {"logical", OP2_TYPE_INT},
               {"logical(4)", OP2_TYPE_INT},
               {"logical*4", OP2_TYPE_INT},
               {"bool", OP2_TYPE_INT},
               {"integer(8)", OP2_TYPE_LONGLONG},
               {"integer*8", OP2_TYPE_LONGLONG},
               {"integer(kind=8)", OP2_TYPE_LONGLONG},
               {"i8", OP2_TYPE_LONGLONG},
               {"longlong", OP2_TYPE_LONGLONG}};
  char word[32];
  squeeze(s, n, word, sizeof word);
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(word, known[i].spelling) == 0) return *t = known[i].type, OP2_OK;
  return OP2_ERR_ARG;
}
