/* SPDX-License-Identifier: BSD-3-Clause */
/* A free-form Fortran source file as statements and program units (fortran_source.c): enough of
 * Fortran to find a kernel procedure, its host or module, the statements of their
 * specification parts and the modules they use, and to copy their text verbatim. */
#ifndef OP2_JIT_FORTRAN_SOURCE_H
#define OP2_JIT_FORTRAN_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* One statement: its bytes in the file (from the start of its first line to the end of its last,
 * continuation lines included) and its words: lower case, comments and continuation marks gone,
 * blanks collapsed to one, strings kept as written. A preprocessor line is a statement of its
 * own with directive set. */
typedef struct op2_fstmt {
  size_t begin, end;
  int line;
  char *norm;
  bool directive;
} op2_fstmt;

/* A program unit or subprogram, or an interface or derived-type block (which only nest). */
typedef enum {
  OP2_FU_PROGRAM = 'p',
  OP2_FU_MODULE = 'm',
  OP2_FU_SUBROUTINE = 's',
  OP2_FU_FUNCTION = 'f',
  OP2_FU_BLOCK = 'b' /* interface, type, submodule, block data: skipped */
} op2_funit_kind;

typedef struct op2_funit {
  op2_funit_kind kind;
  char name[64];
  int first, last; /* statements: its header and its end statement */
  int contains;    /* its `contains` statement, or -1 */
  int parent;      /* the unit it is nested in, or -1 */
} op2_funit;

typedef struct op2_fsource {
  char *path; /* as found */
  char *text;
  size_t len;
  op2_fstmt *stmts;
  int nstmts;
  op2_funit *units;
  int nunits;
} op2_fsource;

/* Reads and parses `path`; OP2_OK, or an error code with the reason in why (nothing reported:
 * the caller says why the optimised tier is not used). */
int op2_fsource_read(const char *path, op2_fsource *out, char *why, size_t whylen);
void op2_fsource_free(op2_fsource *s);
/* The same for `len` bytes of text named `name` (OP2_OK or OP2_ERR_MEM). */
int op2_fsource_parse(const char *name, const char *text, size_t len, op2_fsource *out);

/* The unit of `kind` named `name` (lower case) whose parent is `parent` (-2: any parent), or -1. */
int op2_fsource_unit(const op2_fsource *s, op2_funit_kind kind, const char *name, int parent);
/* Whether statement i is a specification statement of the kinds the optimised tier copies:
 * USE, IMPLICIT, a type declaration, PARAMETER. */
bool op2_fstmt_is_use(const op2_fstmt *st);
bool op2_fstmt_is_implicit(const op2_fstmt *st);
/* A type declaration statement: its type specification ("real(8)", "integer") and the rest
 * after it (attributes and entities) into *rest (pointer into st->norm), else false. */
bool op2_fstmt_type_decl(const op2_fstmt *st, char *type, size_t tlen, const char **rest);
/* The module a USE statement names (lower case), else "". */
void op2_fstmt_use_module(const op2_fstmt *st, char *name, size_t len);
/* The dummy argument names of a subprogram header, lower case, into names (at most max). */
int op2_fstmt_dummies(const op2_fstmt *st, char (*names)[64], int max);

/* Identifiers in a statement's words (strings skipped), each once, lower case. */
int op2_fstmt_identifiers(const char *norm, char (*out)[64], int max);

/* The entities a declaration's rest declares: after "::" (or the whole rest), split at commas
 * outside parentheses and brackets: each entity's name, its text (name, array spec,
 * initialiser), and the attributes before "::" (text, lower case). */
typedef struct op2_fentity {
  char name[64];
  char text[1024];
} op2_fentity;
int op2_fdecl_entities(const char *rest, char *attrs, size_t alen, op2_fentity *out, int max);

/* The arguments of a call whose '(' is at `open`, each as written (blanks trimmed), at most
 * max; how many. */
int op2_fcall_args(const char *open, char (*out)[64], int max);

#endif /* OP2_JIT_FORTRAN_SOURCE_H */
