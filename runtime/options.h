/* SPDX-License-Identifier: BSD-3-Clause */
/* The user's options (options.c): one table, read once at op_init from the environment and
 * argv, checked there whatever the backend, never changed afterwards. */
#ifndef OP2_RUNTIME_OPTIONS_H
#define OP2_RUNTIME_OPTIONS_H

#include "jit/jit.h"
#include "base/base.h"

/* Under MPI: did each rank declare its block, or every rank the whole mesh? */
typedef enum { OP2_DECL_AUTO, OP2_DECL_LOCAL, OP2_DECL_REPLICATED } op2_decl_mode;

/* OP2_TUNE: persistent auto-tuning of per-loop parameters (tune.c). */
typedef enum { OP2_TUNE_OFF, OP2_TUNE_ON, OP2_TUNE_RESET } op2_tune_mode;

/* OP2_RENUMBER: off, on (reverse Cuthill-McKee), blocks (partition-based, renumber_blocks.c),
 * auto (reverse Cuthill-McKee where the mesh is big and badly numbered, renumber_auto.c). */
typedef enum {
  OP2_RENUMBER_OFF,
  OP2_RENUMBER_RCM,
  OP2_RENUMBER_BLOCKS,
  OP2_RENUMBER_AUTO
} op2_renumber_mode;

typedef struct op2_options {
  char backend[32];
  int part_size;
  int diags;
  op2_cache_mode cache_mode;
  op2_jit_mode jit_mode;
  int renumber; /* reorder sets for locality before the first loop: an op2_renumber_mode */
  op2_decl_mode mpi_decl;
  char cc[1024];     /* optimising compiler */
  char cflags[1024]; /* its flags (with the SIMD flags when simd_width > 0) */
  char cxx[1024];    /* OP2_CXX: the C++ compiler for kernels TinyCC rejects, or "off" */
  char fc[1024];     /* OP2_FC: the Fortran compiler of Fortran kernels' optimised builds */
  char fflags[1024]; /* OP2_FFLAGS: its flags */
  int simd;          /* OP2_SIMD: 0 off, -1 auto, else lanes per group */
  int simd_width;    /* lanes the optimised tier uses: 0 scalar */
  char profile_json[OP2_PATH_MAX]; /* where op_exit writes per-loop statistics, or "" */
  char cache_dir[OP2_PATH_MAX];
  char template_dir[OP2_PATH_MAX]; /* developers: templates from here, not the built-in ones */
  char restart[OP2_PATH_MAX];      /* OP2_RESTART: the checkpoint this run restarts from, or "" */
  int ptscotch_check;              /* PT-Scotch checks its distributed graph (costly) */
  double partition_keep; /* op_partition keeps declared blocks this good (keep_blocks.c) */
  int huge_pages;        /* large arrays advised as transparent huge pages (util.c) */
  int maps_base_index;   /* OP2's argv entry OP_MAPS_BASE_INDEX=1: map values count from 1 */

  int compile_timeout;    /* OP2_COMPILE_TIMEOUT: seconds a child compiler may run (0: none) */
  int loader;             /* OP2_LOADER: an op2_loader_mode (auto, direct, dlopen) */
  char kernel_path[8192]; /* OP2_KERNEL_PATH: where op_kernel_file looks, ':'-separated */
  char fault[64];         /* testing aid: "STEP:RANK" fails STEP on RANK (runtime/mpi/agree.c) */
  double mpi_timeout;     /* OP2_MPI_TIMEOUT: longest wait in an agreement, seconds; 0 none */
  long long test_id_base; /* testing aid, OP2_TEST_ID_BASE: under MPI global ids start here */
  int tune;               /* op2_tune_mode */
  int compiler_given;     /* OP2_CC or OP2_CFLAGS set: their first failure is always told */
  int lazy;               /* OP2_LAZY: OP2_LAZY_* (whether op_par_loop queues its call: chain.c) */
  int lazy_chain;         /* OP2_LAZY_CHAIN: the most calls queued before the chain runs */
  int fuse;               /* OP2_FUSE: consecutive direct loops on one set run fused */
} op2_options;

/* A backend's own options (op2_backend's options): rows parsed by the same machinery as the
 * core's, their values stored by the parsers into a block of `size` bytes of the backend's own
 * type, set to its defaults first. */
typedef int (*op2_option_parser)(void *values, const char *name, const char *value);
typedef struct op2_option_row {
  const char *name; /* OP2_... */
  op2_option_parser parse;
} op2_option_row;
typedef struct op2_option_table {
  const op2_option_row *rows;
  int nrows;
  size_t size;
  void (*defaults)(void *values);
} op2_option_table;

/* The backends' option values of one op_init: one block per distinct table (backends may share
 * one), in the backend list's order. Opaque to the core; a backend finds its block with
 * op2_option_values_of. */
enum { OP2_MAX_OPTION_TABLES = 8 };
typedef struct op2_option_values {
  const op2_option_table *table[OP2_MAX_OPTION_TABLES];
  void *values[OP2_MAX_OPTION_TABLES];
  int count;
} op2_option_values;
/* The block of `table`, or NULL when op_init has not read it. */
const void *op2_option_values_of(const op2_option_values *v, const op2_option_table *table);
void op2_option_values_free(op2_option_values *v);

/* For parsers (core and backends'): each checks `value`, stores it and returns OP2_OK, or
 * reports "option NAME=VALUE: expected ..." (op2_error) and returns its code. */
int op2_option_int(const char *name, const char *value, int lo, int hi, int *out);
/* A whole decimal integer in [lo, hi]: 0, else -1 (nothing reported). */
int op2_option_to_int(const char *value, int lo, int hi, int *out);
int op2_option_text(char *dst, size_t len, const char *name, const char *value);
/* One word of a list; the message lists every accepted word. */
typedef struct op2_option_choice {
  const char *word;
  int value;
} op2_option_choice;
int op2_option_choose(const char *name, const char *value, const op2_option_choice *choices, int n,
                      int *out);
#define OP2_OPTION_CHOOSE(name, value, choices, out) \
  op2_option_choose(name, value, choices, (int)(sizeof choices / sizeof choices[0]), out)
extern const op2_option_choice op2_option_on_off[2];

/* OP2_LAZY: queue calls always, never, or where it pays (op2_chain_lazy). */
enum { OP2_LAZY_OFF, OP2_LAZY_ON, OP2_LAZY_AUTO };

/* The user's options: defaults, then the environment, then argv entries OP2_NAME=value: the
 * core's into `opt`, every backend's (whatever the backend) into `backend` (NULL: checked, then
 * dropped). The values are never changed afterwards; a backend keeps its effective values in its
 * own data. */
int op2_options_read(op2_options *opt, op2_option_values *backend, int argc, char **argv,
                     int diags);
/* The option table, the core's rows then each backend table's, for tests that go over every
 * option. */
int op2_option_count(void);
const char *op2_option_name(int i);
/* Warns (at any OP2_DIAGS) of OP2_* variables and argv entries OP2_NAME=value that are no
 * option, with the nearest option's name when one is close. */
void op2_options_warn_unknown(int argc, char **argv);

#endif /* OP2_RUNTIME_OPTIONS_H */
