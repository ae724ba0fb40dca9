/* SPDX-License-Identifier: BSD-3-Clause */
/* The C side of OP2's Fortran API (include/fortran/op2_fortran_declarations.F90 calls these
 * through bind(C) interfaces): OP2's Fortran type strings ("real(8)", "integer(4)", "real(4)",
 * "logical"), arrays of any type and rank as the Fortran descriptors of ISO_Fortran_binding.h
 * (checked against the type string and the set), 1-based map columns and index values, and the
 * constants the program declares by variable (op_decl_const has no name in Fortran: kernels
 * read the program's own variables). Everything else is the C API's. */
#include <ISO_Fortran_binding.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/fortran/fortran.h"
#include "runtime/fortran/entry_points.h"
#include "runtime/chain.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"

/* ---- OP2's Fortran type strings ---- */

/* A Fortran string argument (character(len=*) in a bind(C) interface). */
typedef struct fstring {
  const char *s;
  size_t n;
} fstring;
static fstring fstr(const CFI_cdesc_t *d) {
  return d && d->base_addr ? (fstring){d->base_addr, d->elem_len} : (fstring){"", 0};
}

/* The string's type, or the error naming the call, the object and what is accepted. */
static int parse_type(const char *fn, const char *what, fstring s, op2_type *t) {
  if (op2_fortran_type_of(s.s, s.n, t) == OP2_OK) return OP2_OK;
  return op2_error(OP2_ERR_ARG,
                   "%s %s: type \"%.*s\" is not one of OP2's Fortran types (\"real(8)\", "
                   "\"real(4)\", \"integer(4)\", \"integer(8)\", \"logical\")",
                   fn, what, (int)s.n, s.s);
}

/* The element type of a Fortran array, as its descriptor says. */
static int array_type(const CFI_cdesc_t *d, op2_type *t) {
  switch (d->type) {
    case CFI_type_double:
      return *t = OP2_TYPE_DOUBLE, OP2_OK;
    case CFI_type_float:
      return *t = OP2_TYPE_FLOAT, OP2_OK;
    case CFI_type_int32_t:
      return *t = OP2_TYPE_INT, OP2_OK;
    case CFI_type_int64_t:
      return *t = OP2_TYPE_LONGLONG, OP2_OK;
    case CFI_type_Logical + (4 << CFI_type_kind_shift):
      return *t = OP2_TYPE_INT, OP2_OK;
    default:
      return OP2_ERR_ARG;
  }
}

static const char *fortran_spelling(op2_type t) {
  static const char *const names[] = {"real(8)", "real(4)", "integer(4)", "integer(8)"};
  return (unsigned)t < 4 ? names[t] : "?";
}

/* Values the array holds: -1 when Fortran does not know (an assumed-size array). */
static long array_count(const CFI_cdesc_t *d) {
  long n = 1;
  for (int r = 0; r < d->rank; r++) {
    if (d->dim[r].extent <= 0 && r == d->rank - 1) return -1;
    n *= (long)d->dim[r].extent;
  }
  return n;
}

/* Whether the array's elements follow one another in memory, column-major (what CFI_is_contiguous
 * says, without libgfortran: C programs link the same library and never need it). */
static bool contiguous(const CFI_cdesc_t *d) {
  CFI_index_t step = (CFI_index_t)d->elem_len;
  for (int r = 0; r < d->rank; r++) {
    if (d->dim[r].extent > 1 && d->dim[r].sm != step) return false;
    step *= d->dim[r].extent;
  }
  return true;
}

/* Checks a Fortran array given for `need` values of the type string's type: the type matches,
 * the values are contiguous and enough (when Fortran knows how many). */
static int check_array(const char *fn, const char *what, const CFI_cdesc_t *d, fstring type,
                       long need, op2_type *t) {
  OP2_CALL(parse_type(fn, what, type, t));
  op2_type actual;
  if (!(d && d->base_addr))
    return op2_error(OP2_ERR_ARG, "%s %s: no data (an unallocated array?)", fn, what);
  if (array_type(d, &actual) != OP2_OK)
    return op2_error(
        OP2_ERR_ARG,
        "%s %s: the array is of no OP2 type (real(8), real(4), integer(4), integer(8), "
        "logical)",
        fn, what);
  if (actual != *t)
    return op2_error(OP2_ERR_ARG, "%s %s: type \"%.*s\" given for a %s array", fn, what,
                     (int)type.n, type.s, fortran_spelling(actual));
  if (!contiguous(d))
    return op2_error(
        OP2_ERR_ARG,
        "%s %s: the array is not contiguous (pass a whole array or a contiguous section)", fn,
        what);
  long have = array_count(d);
  if (have >= 0 && have < need)
    return op2_error(OP2_ERR_ARG, "%s %s: the array holds %ld values, %ld are needed", fn, what,
                     have, need);
  return OP2_OK;
}

/* ---- start ---- */

/* OP2's Fortran op_init_base(diags, base_index): the program's own command line (OP2_NAME=value
 * entries are options as in C) and OP_MAPS_BASE_INDEX for map values counted from 1. */
void op2_fortran_init(int diags, int base_index) {
  if (base_index != 0 && base_index != 1) {
    op2_error(OP2_ERR_ARG, "op_init_base: base index %d is not 0 or 1", base_index);
    return;
  }
  char *cmdline = NULL;
  size_t len = 0;
  FILE *f = fopen("/proc/self/cmdline", "r");
  if (f) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
      char *more = realloc(cmdline, len + n + 1);
      if (!more) break;
      cmdline = more;
      memcpy(cmdline + len, buf, n);
      len += n;
    }
    fclose(f);
  }
  int argc = 0;
  for (size_t i = 0; i < len; i++) argc += cmdline[i] == '\0';
  char **argv = calloc((size_t)argc + 3, sizeof *argv);
  char base_arg[32];
  snprintf(base_arg, sizeof base_arg, "OP_MAPS_BASE_INDEX=%d", base_index);
  if (!argv) {
    free(cmdline);
    op2_error(OP2_ERR_MEM, "op_init: out of memory");
    return;
  }
  int k = 0;
  for (size_t i = 0; i < len; i += strlen(cmdline + i) + 1) argv[k++] = cmdline + i;
  if (k == 0) argv[k++] = "fortran";
  argv[k++] = base_arg; /* last: it counts, whatever the command line said */
  op_init_mpi(k, argv, diags, 0);
  op2_context *ctx = op2_ctx();
  op2_fortran *f90 = ctx->initialised ? op2_fortran_state(ctx) : NULL;
  if (f90) f90->map_base = base_index;
  free(argv);
  free(cmdline);
}

/* ---- declarations ---- */

op_dat op2_fortran_decl_dat(op_set set, int dim, const CFI_cdesc_t *type, const CFI_cdesc_t *data,
                            const char *name) {
  if (op2_require_init("op_decl_dat") != OP2_OK) return NULL;
  op2_type t;
  long need = set ? (long)set->size * (dim > 0 ? dim : 0) : 0;
  if (check_array("op_decl_dat", name, data, fstr(type), need, &t) != OP2_OK) return NULL;
  return op_decl_dat(set, dim, op2_type_name(t), data->base_addr, name);
}

op_dat op2_fortran_decl_dat_temp(op_set set, int dim, const CFI_cdesc_t *type, const char *name) {
  if (op2_require_init("op_decl_dat_temp") != OP2_OK) return NULL;
  op2_type t;
  if (parse_type("op_decl_dat_temp", name, fstr(type), &t) != OP2_OK) return NULL;
  return op_decl_dat_temp(set, dim, op2_type_name(t), NULL, name);
}

/* The value a Fortran kernel reads is the program's variable itself: the library keeps where it
 * is (and its value when declared). With lazy execution a queued loop runs later than it was
 * called; a program changes a declared constant and then declares it again (OP2's rule), so
 * the queued loops run here, first, with the value they were called with put back in the
 * variable for their run. */
void op2_fortran_decl_const(const CFI_cdesc_t *data, const int *dim, const CFI_cdesc_t *type) {
  const void *site = __builtin_return_address(0);
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_decl_const") != OP2_OK) return;
  op2_type t;
  int d = dim ? *dim : 0;
  if (d < 1) {
    op2_error(OP2_ERR_ARG, "op_decl_const: dim %d is not positive", d);
    return;
  }
  if (check_array("op_decl_const", "(a variable)", data, fstr(type), d, &t) != OP2_OK) return;
  op2_fortran *f90 = op2_fortran_state(ctx);
  if (!f90) return;
  size_t bytes = (size_t)d * op2_type_size(t);
  op2_fortran_const *c = NULL;
  for (int i = 0; i < f90->nconsts && !c; i++)
    if (f90->consts[i].data == data->base_addr) c = &f90->consts[i];
  if (c && c->bytes == bytes && memcmp(c->value, data->base_addr, bytes) != 0) {
    unsigned char *now = malloc(bytes);
    if (!now) {
      op2_error(OP2_ERR_MEM, "op_decl_const: out of memory");
      return;
    }
    memcpy(now, data->base_addr, bytes);
    memcpy(data->base_addr, c->value, bytes); /* the queued loops' value, while they run */
    op2_chain_flush(ctx, "op_decl_const");
    memcpy(data->base_addr, now, bytes);
    free(now);
  }
  if (!c) {
    if (f90->nconsts == f90->const_cap) {
      int cap = f90->const_cap ? 2 * f90->const_cap : 16;
      op2_fortran_const *more = realloc(f90->consts, sizeof *more * (size_t)cap);
      if (!more) {
        op2_error(OP2_ERR_MEM, "op_decl_const: out of memory");
        return;
      }
      f90->consts = more, f90->const_cap = cap;
    }
    c = &f90->consts[f90->nconsts++];
    *c = (op2_fortran_const){.data = data->base_addr, .site = site};
  }
  unsigned char *value = c->bytes == bytes ? c->value : realloc(c->value, bytes);
  if (!value) {
    op2_error(OP2_ERR_MEM, "op_decl_const: out of memory");
    return;
  }
  c->value = value;
  memcpy(c->value, data->base_addr, bytes);
  c->type = t, c->dim = d, c->bytes = bytes;
}

/* ---- loop arguments ---- */

/* OP2's Fortran access codes count from 1 (OP_READ = 1 ... OP_MAX = 6). */
static op_access access_of(int code) {
  return code >= 1 && code <= 6 ? (op_access)(code - 1) : (op_access)-1;
}

/* A dat argument: `idx` -1 with OP_ID is direct; 1..arity is the map column (1-based, as
 * Fortran counts); -k with a map passes columns 1..k as one dim x k array (OP2's vector
 * argument). The type string must be the dat's. What else is wrong the loop's checks say. */
op_arg op2_fortran_arg_dat(int opt, op_dat dat, int idx, op_map map, int dim,
                           const CFI_cdesc_t *type, int access) {
  op2_type t = OP2_TYPE_DOUBLE;
  fstring ts = fstr(type);
  const char *what = dat ? dat->name : "(an undeclared dat)";
  op_arg bad = op_opt_arg_dat(opt, dat, idx, map, dim, NULL, access_of(access));
  if (opt && parse_type("op_arg_dat", what, ts, &t) != OP2_OK) return bad;
  if (opt && dat && t != dat->type) {
    op2_error(OP2_ERR_ARG, "op_arg_dat %s: type \"%.*s\" given for a %s dat", what, (int)ts.n, ts.s,
              fortran_spelling(dat->type));
    return bad;
  }
  int c_idx = idx;
  if (map && (idx > map->dim || idx < -map->dim)) {
    op2_error(OP2_ERR_ARG,
              "op_arg_dat %s: index %d with map '%s' of arity %d: a column is 1 to %d, and -k "
              "(2 <= k <= %d) passes columns 1 to k as one array",
              what, idx, map->name, map->dim, map->dim, map->dim);
    return bad;
  }
  if (map && idx >= 1)
    c_idx = idx - 1;
  else if (map && idx == 0) {
    op2_error(OP2_ERR_ARG,
              "op_arg_dat %s: index 0 with map '%s': map columns count from 1 in Fortran", what,
              map->name);
    return bad;
  } else if (map && idx == -1) {
    op2_error(OP2_ERR_ARG,
              "op_arg_dat %s: index -1 with map '%s': -1 is for OP_ID (direct); a column is 1 "
              "to %d, and -k (k >= 2) passes columns 1 to k as one array",
              what, map->name, map->dim);
    return bad;
  }
  return op_opt_arg_dat(opt, dat, c_idx, map, dim, opt ? op2_type_name(t) : NULL,
                        access_of(access));
}

op_arg op2_fortran_arg_gbl(int opt, const CFI_cdesc_t *data, int dim, const CFI_cdesc_t *type,
                           int access) {
  op2_type t = OP2_TYPE_DOUBLE;
  op_arg a = op_opt_arg_gbl(opt, data ? data->base_addr : NULL, dim, NULL, access_of(access));
  if (!opt) { /* switched off: the kernel gets a null reference, nothing is read or reduced */
    a.type = op2_type_name(OP2_TYPE_DOUBLE);
    return a;
  }
  if (check_array("op_arg_gbl", "(a global)", data, fstr(type), dim, &t) != OP2_OK) return a;
  a.type = op2_type_name(t);
  return a;
}

/* OP2's op_arg_info: the kernel writes it beside reduction argument `ref` (counted from 1 in
 * Fortran), whose winning part (thread, rank) gives its value. */
op_arg op2_fortran_arg_info(const CFI_cdesc_t *data, int dim, const CFI_cdesc_t *type, int ref) {
  op_arg a = op2_fortran_arg_gbl(1, data, dim, type, 6 /* OP_MAX */);
  return op_arg_info(a.data, a.dim, a.type, ref - 1); /* the loop's checks look at ref */
}

/* The element's index (idx -1, OP_ID: counting from 1) or a map's value at column idx (1-based
 * column, the value counting from the base index), as OP2's Fortran gives them. */
op_arg op2_fortran_arg_idx(int idx, op_map map) {
  if (map && (idx < 1 || idx > map->dim)) {
    op2_error(OP2_ERR_ARG, "op_arg_idx: column %d of map '%s': its columns are 1 to %d", idx,
              map->name, map->dim);
    return op_arg_idx(-2, map);
  }
  return op_arg_idx(map ? idx - 1 : -1, map);
}

/* ---- data out ---- */

/* The array a fetch writes: of the dat's type, contiguous, and (when Fortran knows its size)
 * large enough for `count` elements (-1: not checked, the count depends on the ranks). */
static int fetch_target(const char *fn, op_dat dat, const CFI_cdesc_t *out, long count) {
  OP2_CALL(op2_require_init(fn));
  if (!dat) return op2_error(OP2_ERR_ARG, "%s: the dat was not declared", fn);
  op2_type t;
  const char *spelled = fortran_spelling(dat->type);
  fstring ts = {spelled, strlen(spelled)};
  return check_array(fn, dat->name, out, ts, count < 0 ? 0 : count * dat->dim, &t);
}

/* What the rank declared comes back (the C API's op_fetch_data). */
void op2_fortran_fetch_data(op_dat dat, const CFI_cdesc_t *out) {
  long count = op2_ctx()->mpi.size > 1 || !dat ? -1 : dat->set->size;
  if (fetch_target("op_fetch_data", dat, out, count) == OP2_OK) op_fetch_data(dat, out->base_addr);
}

/* Elements low..high, numbered as OP2's C API numbers them (from 0), as OP2's Fortran passes
 * them on. */
void op2_fortran_fetch_data_idx(op_dat dat, const CFI_cdesc_t *out, int low, int high) {
  if (fetch_target("op_fetch_data_idx", dat, out, (long)high - low + 1) == OP2_OK)
    op_fetch_data_idx(dat, out->base_addr, low, high);
}

long long op2_fortran_get_size(op_set set) {
  return op_get_size(set);
}

void op2_fortran_print(const char *line) {
  op_printf("%s\n", line);
}

/* OP2's op_memalloc (Cray pointers): 64-byte aligned, released with op_free (or free). */
void op2_fortran_memalloc(void **ptr, const int *bytes) {
  *ptr = op_malloc(bytes && *bytes > 0 ? (size_t)*bytes : 1);
  if (!*ptr) op2_error(OP2_ERR_MEM, "op_memalloc: out of memory for %d bytes", bytes ? *bytes : 0);
}

/* ---- HDF5 files: types as Fortran spells them ---- */

op_dat op2_fortran_decl_dat_hdf5(op_set set, int dim, const CFI_cdesc_t *type, const char *file,
                                 const char *name) {
  op2_type t;
  if (op2_require_init("op_decl_dat_hdf5") != OP2_OK ||
      parse_type("op_decl_dat_hdf5", name, fstr(type), &t) != OP2_OK)
    return NULL;
  return op_decl_dat_hdf5(set, dim, op2_type_name(t), file, name);
}
