/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's Fortran API on op2jit, inside runtime/fortran/: the records of the program's kernels
 * (procedures the program compiled), the first tier's closure, the program's symbols and the
 * declared constants. The Fortran modules (include/fortran/) call the entry points of
 * fortran_api.c and fortran_loop.c through bind(C) interfaces. */
#ifndef OP2_RUNTIME_FORTRAN_H
#define OP2_RUNTIME_FORTRAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op2.h"
#include "base/base.h"
#include "jit/jit.h"

typedef struct op2_context op2_context;

/* OP2's Fortran op_par_loop_N: the largest N the modules provide (include/fortran). */
enum { OP2_FORTRAN_MAX_ARGS = 64 };
/* The most bytes a loop's vector arguments gather for one element (on the stack of each thread
 * running it): a loop needing more is refused when its kernel is made. */
enum { OP2_FORTRAN_GATHER_BYTES = 16384 };

/* ---- the first tier (first_tier.c) ---- */
/* One argument as the element loop reads it. */
typedef struct op2_fortran_arg {
  op2_arg_kind kind;
  op_access acc;
  op2_type type;
  int idx;       /* map column; -1 direct */
  int vec;       /* k > 0: map columns 0..k-1 gathered into one dim x k array */
  int arity;     /* the map's, 0 when direct */
  int row_bytes; /* one element's values */
  bool off;      /* an optional argument switched off: the kernel gets a null reference */
} op2_fortran_arg;

/* What the element loop needs of a loop: the kernel's closure (jit/ keeps a copy per kernel). */
typedef struct op2_fortran_closure {
  void (*procedure)(void); /* the program's procedure (or the trampoline of an internal one) */
  int nargs;
  int map_base;  /* OP2's base index: what op_arg_idx adds to a map's value */
  int vec_bytes; /* the gathered vector arguments' rows, all together */
  op2_fortran_arg args[];
} op2_fortran_closure;

/* The generic element loop: gathers each element's references and calls the procedure. */
void op2_fortran_first_tier(const void *closure, void *const *args, const int *const *maps,
                            int begin, int end);
/* Calls `procedure` with the n references p[0..n) (n <= OP2_FORTRAN_MAX_ARGS). */
void op2_fortran_call(void (*procedure)(void), int n, void *const *p);

/* ---- the program's symbols (symbols.c) ---- */
typedef struct op2_procedure_info {
  void *code;            /* the procedure's first instruction */
  void *chain;           /* an internal procedure's static chain (its trampoline's), or NULL */
  bool trampoline;       /* the address given was a trampoline on the stack */
  char symbol[256];      /* its symbol ("__airfoil_kernels_MOD_adt_calc", "update.0"), or "" */
  char file[256];        /* the source file the symbol table names for a local symbol, or "" */
  char object[4096];     /* the file of the executable or library holding it, or "" */
  uintptr_t object_base; /* where that object is loaded */
  bool object_is_program;
} op2_procedure_info;
/* Names the procedure at `addr`: dladdr, else the object's own symbol table (.symtab, where
 * internal procedures are local symbols), through the trampoline GCC made for an internal
 * procedure passed as an argument. Never fails: what is not found stays empty. */
void op2_procedure_find(void *addr, op2_procedure_info *out);
/* The Fortran names in a symbol: module and procedure of "__MOD_" symbols, the procedure of an
 * internal ("name.N") or external ("name_") one. kind: 'm' module procedure, 'i' internal, 'e'
 * external, '?' none of these. */
void op2_procedure_names(const char *symbol, char *module, size_t mlen, char *proc, size_t plen,
                         char *kind);
/* The source file base names the program's symbol table lists (STT_FILE), '\n'-separated, or
 * NULL (malloc'ed). */
char *op2_program_source_files(const char *object);

/* ---- the records (fortran_loop.c) ---- */
/* One procedure the program passed to op_par_loop_N. */
typedef struct op2_fortran_kernel {
  void (*address)(void); /* as op_par_loop_N received it */
  op2_procedure_info where;
  char module[128], procedure[128];
  char kind;          /* 'm', 'i', 'e' or '?' (op2_procedure_names) */
  char *text;         /* the loops' kernel text: OP2_COMPILED_PREFIX, its number, its identity */
  char *name;         /* the loops' name: the procedure's (lower case), or "fortran_kernel_N" */
  char *identity;     /* module::procedure (file), the same on every rank and run */
  bool source_looked; /* its source was searched for (optimised tier) */
  struct op2_fortran_unit *unit; /* what the optimised tier is generated from, or NULL */
  char *no_unit_why;             /* why there is none, said once */
  bool told;
  void *host_addrs[64]; /* the program's variables unit->host_names name, by address */
} op2_fortran_kernel;

/* A constant the program declared (op_decl_const: its variable's address, no name). */
typedef struct op2_fortran_const {
  void *data;
  op2_type type;
  int dim;
  size_t bytes;
  const void *site;     /* the call's return address: which op_decl_const statement */
  unsigned char *value; /* its value when declared (the lazy chain: see fortran_api.c) */
} op2_fortran_const;

typedef struct op2_fortran {
  op2_fortran_kernel **kernels;
  int nkernels, cap;
  op2_fortran_const *consts;
  int nconsts, const_cap;
  int map_base; /* op_init_base's base index */
} op2_fortran;

/* The name of the function whose code holds `addr` (from the symbol table), or "". */
void op2_symbol_containing(const void *addr, char *name, size_t len);

/* OP2's Fortran type strings ("real(8)", ...): the element type (fortran_api.c). */
int op2_fortran_type_of(const char *s, size_t n, op2_type *t);

/* The optimised tier's inputs for kernel k, from the program's sources (fortran_unit.c):
 * OP2_OK with *out, else `failure` says why they cannot be made (not an error of the program's:
 * the caller says it as a note). */
struct op2_fortran_unit;
int op2_fortran_unit_make(op2_context *ctx, op2_fortran_kernel *k, struct op2_fortran_unit **out,
                          op2_jit_error *failure);
void op2_fortran_unit_free(struct op2_fortran_unit *u);

/* The context's Fortran state, made on first use (NULL when out of memory: reported). */
op2_fortran *op2_fortran_state(op2_context *ctx);

#endif /* OP2_RUNTIME_FORTRAN_H */
