/* SPDX-License-Identifier: BSD-3-Clause */
/* What the Fortran target's optimised tier is generated from (runtime/fortran/ finds it in the
 * program's sources, jit/fortran_codegen.c generates the loop around it): the kernel procedure's
 * text and the statements and modules its names need. All text as the program's files hold it,
 * so that the generated source, the cache key, changes with them. */
#ifndef OP2_JIT_FORTRAN_UNIT_H
#define OP2_JIT_FORTRAN_UNIT_H

typedef struct op2_fortran_unit {
  char kind;          /* 'm': a module procedure; 'i': an internal procedure of the program */
  char procedure[64]; /* its name, lower case */
  char module[64];    /* 'm': its module, which the loop uses for the module's public names */
  char file[256];     /* the kernel's source file (its name only), and its first line */
  int line;
  char *kernel; /* the procedure, verbatim, from its first statement to its END */
  /* the loop module's first statements: the USE and IMPLICIT statements of the kernel's module or
   * host, and the host's parameters the kernel names */
  char *context;
  /* the modules those statements need, as source, each before the modules using it: compiled
   * only for their .mod files (their variables stay the program's) */
  char *interfaces;
  /* 'i': the host's variables the kernel reads, one declaration each ("real(8) :: alpha",
   * "integer(4), dimension(4) :: map"); the loop binds each to the program's variable by the
   * address op_decl_const was given (OP2_HOST_VAR_PREFIX pointers) */
  int nhost;
  char **host_names;
  char **host_decls;
  /* directories the source files were found in: include files are looked for there */
  char *include_dirs; /* ':'-separated */
} op2_fortran_unit;

#endif /* OP2_JIT_FORTRAN_UNIT_H */
