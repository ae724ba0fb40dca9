/* SPDX-License-Identifier: BSD-3-Clause */
/* The base below jit/ and runtime/: what both layers use and neither owns. Status codes and
 * OP2_CALL, the failure record a function fills when it cannot report (op2_jit_error), the words a
 * loop is described in (element types, argument descriptors, declared constants, a loop
 * description), the clock, path sizes, the counts of kernel builds and a growable text buffer;
 * file I/O and places are base/file_io.h, a loop's CUDA layout base/cuda_layout.h.
 * base/ includes nothing of jit/ or runtime/ (t900-layers): runtime/ describes a loop in these
 * terms and asks jit/ (jit/jit.h) for its kernel. */
#ifndef OP2_BASE_H
#define OP2_BASE_H

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op2.h"

/* ---- path buffers ---- */
/* A path as the user gives it (options, output files, the cache root) or as the system resolves
 * it (realpath): Linux's PATH_MAX, the longest path a system call takes, its NUL included. */
#define OP2_PATH_MAX 4096
#if defined(PATH_MAX) && PATH_MAX > OP2_PATH_MAX
#error "OP2_PATH_MAX is shorter than this system's PATH_MAX"
#endif
/* A path the library composes below one of those (a cache entry below the root, a file in the
 * entry, a record below ROOT/tune/, a template below its directory): room for the names it adds,
 * so that a root of OP2_PATH_MAX - 1 bytes is never cut short here, before the system says it is
 * too long. */
#define OP2_PATH_BUF (OP2_PATH_MAX + 1024)

/* ---- status codes ---- */
enum {
  OP2_OK = 0,
  OP2_ERR_ARG = 1,
  OP2_ERR_STATE = 2,
  OP2_ERR_IO = 3,
  OP2_ERR_JIT = 4,
  OP2_ERR_MEM = 5
};
/* Early return on failure, so every internal call site stays one line. OP2_CALL_FAILED runs only
 * on the failure branch: nothing in base/ and jit/; runtime/error.h makes it add the caller to
 * the error's traceback (OP2_DIAGS>=3). */
#ifndef OP2_CALL_FAILED
#define OP2_CALL_FAILED() ((void)0)
#endif
#define OP2_CALL(expr)           \
  do {                           \
    int op2_status_ = (expr);    \
    if (op2_status_ != OP2_OK) { \
      OP2_CALL_FAILED();         \
      return op2_status_;        \
    }                            \
  } while (0)

/* ---- element types (base.c; runtime/types.c parses OP2's spellings) ---- */
typedef enum {
  OP2_TYPE_DOUBLE,
  OP2_TYPE_FLOAT,
  OP2_TYPE_INT,
  OP2_TYPE_LONGLONG,
  OP2_TYPE_COUNT
} op2_type;
size_t op2_type_size(op2_type t);
const char *op2_type_name(op2_type t); /* the C spelling */

/* Monotonic wall clock in seconds (base.c). */
double op2_wall_seconds(void);

/* ---- what the code generator knows of a loop ---- */
typedef enum { OP2_ARG_DAT = 1, OP2_ARG_GBL = 2, OP2_ARG_IDX = 3 } op2_arg_kind;

/* OP2's op_arg_info: a global the kernel writes beside an OP_MIN or OP_MAX reduction (Airfoil:
 * where the largest error is). Its access in an op_arg and an op2_arg_desc, which op_access has
 * no name for; the op_arg's idx and the descriptor's info_of name that reduction's argument.
 * It has partials as a reduction has, and takes the value of the part (element, SIMD lane,
 * thread, tile, GPU block, rank) whose partial of that reduction wins: strictly better, so a tie
 * keeps the earlier part's. */
enum { OP2_ACC_INFO = OP_MAX + 1 };

/* One argument: no data pointers, no names. */
typedef struct op2_arg_desc {
  op2_arg_kind kind;
  op_access acc;
  op2_type type;
  int dim;       /* values per element (dat, gbl); 1 for idx */
  int idx;       /* map column, -1 direct/identity, -k vector of k columns */
  int map_arity; /* 0 when direct */
  int map_group; /* arguments through the same map share a group; -1 when direct */
  int dat_group; /* arguments on the same dat share a group; -1 for gbl and idx */
  bool opt_off;  /* optional argument switched off: kernel gets NULL */
  int info_of;   /* OP2_ACC_INFO: the argument of the reduction it travels with */
} op2_arg_desc;
/* A global argument with partials folded over elements (OP_INC, OP_MIN, OP_MAX, and
 * OP2_ACC_INFO, which is folded with its reduction). */
int op2_is_reduction(const op2_arg_desc *d);
/* Whether argument i of the loop is the reduction of some op_arg_info argument. */
int op2_has_info(const op2_arg_desc *desc, int nargs, int i);
/* OP2's op_arg_info: the argument number of the MIN or MAX global it travels with, or -1 for any
 * other argument. */
static inline int op2_info_ref(const op2_arg_desc *d) {
  return d->kind == OP2_ARG_GBL && (int)d->acc == OP2_ACC_INFO && !d->opt_off ? d->info_of : -1;
}
/* A dat argument reached through a map (and not switched off). */
int op2_is_indirect_dat(const op2_arg_desc *d);
/* Map columns an argument reaches: [lo, hi). */
void op2_arg_columns(const op2_arg_desc *d, int *lo, int *hi);

/* A declared constant (op_decl_const). jit/ reads name, type, dim, data and live; values and
 * nvalues are the runtime's record of the values it has baked (runtime/const.c). */
typedef struct op2_const {
  char *name;
  op2_type type;
  int dim;
  void *data;   /* current value; C kernels read a live constant from here, CUDA gets copies */
  void *values; /* the distinct values it has taken, while baked */
  int nvalues;
  bool live; /* read at run time instead of baked into kernels */
} op2_const;

/* A loop as jit/ sees it; runtime/ fills one on the stack from its loop and the declared
 * constants (no copies). */
typedef struct op2_loop_desc {
  const char *name; /* the loop's, which is also the kernel function's */
  int nargs;
  const op2_arg_desc *desc;
  op2_const *const *consts; /* every declared constant, in declaration order */
  int nconsts;
} op2_loop_desc;

/* ---- the failure record ---- */
/* A failure found by a function that cannot report it (jit/, which has no context; base/'s file
 * helpers; the runtime's helpers whose callers name the call), as its caller reports it once
 * (runtime/error.h's op2_error_record, or op2_error_at for a jit call's failure), so the message
 * and, at OP2_DIAGS=2, the file and line are those of the code that found it. The name is the
 * jit layer's, where it began. */
typedef struct op2_jit_error {
  int code; /* OP2_OK: nothing to report */
  const char *file;
  int line;
  const char *func; /* the function that found it */
  char msg[2048];
} op2_jit_error;

/* Fills *e (when e is not NULL) with the code, the place and the message, and returns the code:
 * how helpers that cannot report fail, instead of writing into a caller's `why` buffer or to
 * stderr. */
int op2_jit_error_set_at(op2_jit_error *e, const char *file, int line, const char *func, int code,
                         const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define op2_jit_error_set(e, ...) \
  op2_jit_error_set_at((e), __FILE__, __LINE__, __func__, __VA_ARGS__)
/* The same with the message's arguments as a va_list (for functions that take their own). */
int op2_jit_error_vset(op2_jit_error *e, const char *file, int line, const char *func, int code,
                       const char *fmt, va_list ap) __attribute__((format(printf, 6, 0)));

/* Counts of kernel builds, added to a struct the caller owns and reads. */
typedef struct op2_jit_counters {
  int compiles;     /* TCC compiles this process ran */
  int disk_hits;    /* kernels loaded from the disk cache */
  int disk_rejects; /* cache entries found but refused (corrupt, foreign, unsafe) */
  int store_failures;
  int cc_compiles; /* optimising compiles finished (background or synchronous) */
  int cc_failures;
  int cc_failed_before; /* kernels left on TinyCC code by a failure recorded in an earlier run */
  int cc_dropped;       /* optimised builds not started before exit (a later run makes them) */
} op2_jit_counters;

/* ---- a growable text buffer (strbuf.c): failure is sticky, checked once at the end ---- */
typedef struct op2_buf {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed: the content is incomplete */
} op2_buf;
void op2_buf_printf(op2_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void op2_buf_append(op2_buf *b, const char *s, size_t len);
/* One character, inline: for texts copied byte by byte on every kernel load (kernel_text.c). */
static inline void op2_buf_putc(op2_buf *b, char c) {
  if (!b->failed && b->len + 2 <= b->cap) {
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
  } else {
    op2_buf_append(b, &c, 1);
  }
}
void op2_buf_free(op2_buf *b);

#endif /* OP2_BASE_H */
