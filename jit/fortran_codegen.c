/* SPDX-License-Identifier: BSD-3-Clause */
/* The optimised tier of a Fortran kernel: a loop generated around the kernel's own source, in
 * one of two forms.
 *
 * The C loop (a loop that can run in groups of lanes, the C target's SIMD loop: OP2_SIMD, and no
 * argument C passes otherwise than OP2's Fortran: c_loop_possible): the kernel's copies in a
 * Fortran module (templates/fortran/loop_c.F90, jit/fortran_copy.c), the C target's own loop
 * around them (jit/codegen.c, templates/c/loop.c and loop_simd.c), gathering rows in registers,
 * and link-time optimisation inlining the copies into it (fortran_tier.c), so the kernel runs as
 * the C target's does: Airfoil's res_calc and adt_calc as fast as the C sample's (CPU time of one
 * call over 720k edges, cells: 5.9 and 2.5 ms both; the Fortran element loop below took 13.6 and
 * 8.4 ms, Fortran groups of lanes 15.6 and 3.2 ms: docs/FORTRAN.md).
 *
 * The Fortran loop (every other loop: index values, vector arguments, op_arg_info, optional
 * arguments, what the SIMD loop refuses): templates/fortran/loop.F90, element by element, or
 * loop_lanes.F90, in groups, where no argument writes through a map. The generated file is, in
 * order: the signature and the kernel's identity as comments; the modules the loop's context uses,
 * as the program's files hold them (compiled only for their .mod files: fortran_tier.c); the
 * marker line OP2_FORTRAN_LOOP_MARKER; the loop module: the context (the kernel's module or host's
 * USE and IMPLICIT statements, host parameters), a pointer per host variable the kernel reads,
 * op2_loop (the C entry every generated loop has) turning the runtime's pointers into Fortran
 * arrays, and op2_range, the element loop, with the kernel as its internal procedure. An argument
 * reaches the kernel as OP2's Fortran passes it: an element of the dat (direct, or through a map
 * column), the global (a thread's partial for a reduction), an index value, or a vector argument
 * gathered into a (dim, k) array and written back after the call. For the C loop, the loop module
 * is the copies' module, followed by the line OP2_FORTRAN_C_MARKER (the C compiler's command) and
 * the C source. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"
#include "fortran_codegen.h"

static const char *fortran_type(op2_type t) {
  static const char *const names[] = {"real(8)", "real(4)", "integer(4)", "integer(8)"};
  return (unsigned)t < 4 ? names[t] : "real(8)";
}

/* The argument that first holds each dat group and map group (their dummies are named after it). */
static int first_of_dat(const op2_loop_desc *l, int g) {
  for (int i = 0; i < l->nargs; i++)
    if (l->desc[i].dat_group == g && !l->desc[i].opt_off) return i;
  return -1;
}
static int first_of_map(const op2_loop_desc *l, int g) {
  for (int i = 0; i < l->nargs; i++)
    if (l->desc[i].map_group == g && !l->desc[i].opt_off) return i;
  return -1;
}

typedef struct parts {
  op2_buf pointers, locals, bind, actuals, dummies, decls, element, call, after, host;
  op2_buf gather, lane_call, scatter; /* the lanes template's */
  op2_buf copies;                     /* the C loop's kernel copies (loop_c.F90) */
  bool logical[64]; /* arguments the kernel takes as LOGICAL (descriptors: 4-byte integers) */
} parts;

/* Argument i's Fortran type. */
static const char *arg_type(const parts *p, const op2_arg_desc *d, int i) {
  return d->type == OP2_TYPE_INT && i < 64 && p->logical[i] ? "logical" : fortran_type(d->type);
}

/* The kernel's LOGICAL dummies, and with them every argument of their dats. */
static int find_logicals(const op2_loop_desc *l, const op2_fortran_unit *u, parts *p) {
  int n = l->nargs < 64 ? l->nargs : 64;
  OP2_CALL(op2_fortran_logical_dummies(u->kernel, p->logical, n));
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n && p->logical[i]; j++)
      if (l->desc[i].kind == OP2_ARG_DAT && l->desc[j].kind == OP2_ARG_DAT &&
          l->desc[j].dat_group == l->desc[i].dat_group)
        p->logical[j] = true;
  return OP2_OK;
}

static op2_buf *all_parts(parts *p, int i) {
  op2_buf *all[] = {&p->pointers, &p->locals,    &p->bind,    &p->actuals, &p->dummies,
                    &p->decls,    &p->element,   &p->call,    &p->after,   &p->host,
                    &p->gather,   &p->lane_call, &p->scatter, &p->copies};
  return i < (int)(sizeof all / sizeof *all) ? all[i] : NULL;
}

static void free_parts(parts *p) {
  for (int i = 0; all_parts(p, i); i++) op2_buf_free(all_parts(p, i));
}

/* A host variable's type: its declaration up to its attributes or "::". */
static void host_type(const char *decl, char *type, size_t len) {
  const char *colons = strstr(decl, "::"), *dim = strstr(decl, ", dimension");
  const char *end = dim && (!colons || dim < colons) ? dim : colons ? colons : decl + strlen(decl);
  size_t n = (size_t)(end - decl);
  while (n && decl[n - 1] == ' ') n--;
  snprintf(type, len, "%.*s", (int)n, decl);
}

/* Groups of lanes pay for a loop whose data reached through maps is only read: gathered into
 * (dim, lanes) arrays, the kernel's accesses are strided and gfortran vectorises them (Airfoil's
 * adt_calc, 720k cells: 8.4 ms element by element, 3.2 ms in groups of 8; C's groups 2.5 ms).
 * Increments through maps do not: the lanes' rows go back one value at a time (res_calc: 13.6
 * ms element by element, 15.6 ms in groups; C's groups, whose rows move whole, 5.8 ms). Any
 * other write through a map could meet another lane of the group. CPU time of one call, 2-core
 * AMD EPYC (AVX-512), docs/FORTRAN.md. */
bool op2_fortran_lanes_possible(const op2_loop_desc *l) {
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    if (d->kind == OP2_ARG_DAT && !d->opt_off && d->map_arity && d->acc != OP_READ) return false;
  }
  return true;
}

/* op2_loop's pointers and op2_range's dummies: one per dat group, map group, global, index
 * table and host variable. */
static void arguments(const op2_loop_desc *l, const op2_fortran_unit *u, parts *p) {
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    const char *ty = arg_type(p, d, i);
    int n = i + 1;
    if (d->opt_off) {
      op2_buf_printf(&p->decls, "    %s :: op2_off%d(%d)\n", ty, n, d->dim);
      continue;
    }
    if ((d->kind == OP2_ARG_DAT && first_of_dat(l, d->dat_group) == i) || d->kind == OP2_ARG_GBL) {
      char what = d->kind == OP2_ARG_GBL ? 'g' : 'd';
      op2_buf_printf(&p->locals, "    %s, pointer, contiguous :: op2_p%d(:)\n", ty, n);
      op2_buf_printf(&p->bind, "    call op2_c_f_pointer(op2_args(%d), op2_p%d, [op2_all])\n", n,
                     n);
      op2_buf_printf(&p->actuals, ", op2_p%d", n);
      op2_buf_printf(&p->dummies, ", op2_%c%d", what, n);
      if (what == 'g')
        op2_buf_printf(&p->decls, "    %s :: op2_g%d(%d)\n", ty, n, d->dim);
      else
        op2_buf_printf(&p->decls, "    %s :: op2_d%d(%d, 0:*)\n", ty, n, d->dim);
    }
    if (d->kind == OP2_ARG_IDX) { /* the original numbering's table, or none (the identity) */
      op2_buf_printf(&p->locals,
                     "    integer(4), pointer, contiguous :: op2_p%d(:)\n"
                     "    integer(4), target :: op2_none%d(1)\n"
                     "    logical :: op2_has%d\n",
                     n, n, n);
      op2_buf_printf(&p->bind,
                     "    op2_has%d = op2_c_associated(op2_args(%d))\n"
                     "    if (op2_has%d) then\n"
                     "      call op2_c_f_pointer(op2_args(%d), op2_p%d, [op2_all])\n"
                     "    else\n"
                     "      op2_p%d => op2_none%d\n"
                     "    end if\n",
                     n, n, n, n, n, n, n);
      op2_buf_printf(&p->actuals, ", op2_p%d, op2_has%d", n, n);
      op2_buf_printf(&p->dummies, ", op2_t%d, op2_has%d", n, n);
      op2_buf_printf(&p->decls, "    integer(4) :: op2_t%d(0:*)\n    logical, value :: op2_has%d\n",
                     n, n);
    }
    if (d->map_arity && first_of_map(l, d->map_group) == i) {
      op2_buf_printf(&p->locals, "    integer(4), pointer, contiguous :: op2_q%d(:)\n", n);
      op2_buf_printf(&p->bind, "    call op2_c_f_pointer(op2_maps(%d), op2_q%d, [op2_all])\n", n,
                     n);
      op2_buf_printf(&p->actuals, ", op2_q%d", n);
      op2_buf_printf(&p->dummies, ", op2_m%d", n);
      op2_buf_printf(&p->decls, "    integer(4) :: op2_m%d(%d, 0:*)\n", n, d->map_arity);
    }
  }
  /* host variables: the program's own, through the pointers the library sets */
  for (int h = 0; h < u->nhost; h++) {
    const char *name = u->host_names[h];
    char type[128];
    host_type(u->host_decls[h], type, sizeof type);
    op2_buf_printf(&p->host,
                   "  type(op2_c_ptr), bind(C, name='%s%s') :: op2_host_%s\n"
                   "  public :: op2_host_%s\n",
                   OP2_HOST_VAR_PREFIX, name, name, name);
    op2_buf_printf(&p->locals, "    %s, pointer, contiguous :: op2_hp%d(:)\n", type, h + 1);
    op2_buf_printf(&p->bind, "    call op2_c_f_pointer(op2_host_%s, op2_hp%d, [op2_all])\n", name,
                   h + 1);
    /* a scalar as an element, an array whole (sequence association) */
    op2_buf_printf(&p->actuals,
                   strstr(u->host_decls[h], "dimension") ? ", op2_hp%d" : ", op2_hp%d(1)", h + 1);
    op2_buf_printf(&p->dummies, ", %s", name);
    op2_buf_printf(&p->decls, "    %s\n", u->host_decls[h]);
  }
}

/* An op_arg_idx value of element `e` (a Fortran expression) into `var`: OP2's element index
 * counts from 1, a map's value from the base index. */
static void index_value(op2_buf *b, int n, const char *var, const char *e, int base) {
  op2_buf_printf(b,
                 "        if (op2_has%d) then\n"
                 "          %s = op2_t%d(%s) + %d\n"
                 "        else\n"
                 "          %s = %s + %d\n"
                 "        end if\n",
                 n, var, n, e, base, var, e, base);
}

/* The element loop's parts (loop.F90): each argument as OP2's Fortran passes it on element
 * op2_n. */
static void scalar_element(const op2_loop_desc *l, int map_base, parts *p, const char *proc) {
  op2_buf_printf(&p->call, "%s(", proc);
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    int n = i + 1, dat = d->kind == OP2_ARG_DAT ? first_of_dat(l, d->dat_group) + 1 : 0;
    int map = d->map_arity ? first_of_map(l, d->map_group) + 1 : 0;
    const char *sep = i ? ", " : "";
    char e[64];
    snprintf(e, sizeof e, "op2_m%d(%d, op2_n)", map, d->idx + 1);
    if (d->opt_off) {
      op2_buf_printf(&p->call, "%sop2_off%d(1)", sep, n);
    } else if (d->kind == OP2_ARG_GBL) {
      op2_buf_printf(&p->call, "%sop2_g%d(1)", sep, n);
    } else if (d->kind == OP2_ARG_IDX) {
      op2_buf_printf(&p->decls, "    integer(4) :: op2_i%d\n", n);
      char var[32];
      snprintf(var, sizeof var, "op2_i%d", n);
      index_value(&p->element, n, var, d->map_arity ? e : "op2_n", d->map_arity ? map_base : 1);
      op2_buf_printf(&p->call, "%sop2_i%d", sep, n);
    } else if (!d->map_arity) {
      op2_buf_printf(&p->call, "%sop2_d%d(1, op2_n)", sep, dat);
    } else if (d->idx >= 0) {
      op2_buf_printf(&p->call, "%sop2_d%d(1, %s)", sep, dat, e);
    } else { /* a vector argument: columns 1..k gathered, written back after the call */
      int k = -d->idx;
      op2_buf_printf(&p->decls, "    %s :: op2_v%d(%d, %d)\n", arg_type(p, d, i), n, d->dim, k);
      if (d->acc == OP_INC)
        op2_buf_printf(&p->element, "        op2_v%d = 0\n", n);
      else
        for (int c = 1; c <= k; c++)
          op2_buf_printf(&p->element, "        op2_v%d(:, %d) = op2_d%d(:, op2_m%d(%d, op2_n))\n",
                         n, c, dat, map, c);
      op2_buf_printf(&p->call, "%sop2_v%d", sep, n);
      for (int c = 1; d->acc != OP_READ && c <= k; c++) {
        op2_buf_printf(&p->after, "        op2_d%d(:, op2_m%d(%d, op2_n)) = ", dat, map, c);
        if (d->acc == OP_INC)
          op2_buf_printf(&p->after, "op2_d%d(:, op2_m%d(%d, op2_n)) + ", dat, map, c);
        op2_buf_printf(&p->after, "op2_v%d(:, %d)\n", n, c);
      }
    }
  }
  op2_buf_printf(&p->call, ")");
}

/* The lanes template's parts (loop_lanes.F90): data reached through maps, increments, index
 * values and reductions in (dim, lanes) arrays; direct data in place. */
static void lane_element(const op2_loop_desc *l, int map_base, int w, parts *p, const char *proc) {
  op2_buf_printf(&p->lane_call, "%s(", proc);
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    const char *ty = arg_type(p, d, i);
    int n = i + 1, dat = d->kind == OP2_ARG_DAT ? first_of_dat(l, d->dat_group) + 1 : 0;
    int map = d->map_arity ? first_of_map(l, d->map_group) + 1 : 0;
    const char *sep = i ? ", " : "";
    char e[64];
    snprintf(e, sizeof e, "op2_m%d(%d, op2_n)", map, d->idx + 1);
    if (d->opt_off) {
      op2_buf_printf(&p->lane_call, "%sop2_off%d(1)", sep, n);
    } else if (d->kind == OP2_ARG_GBL && d->acc == OP_READ) {
      op2_buf_printf(&p->lane_call, "%sop2_g%d(1)", sep, n);
    } else if (d->kind == OP2_ARG_GBL) { /* a reduction: a partial per lane */
      op2_buf_printf(&p->decls, "    %s :: op2_r%d(%d, %d)\n", ty, n, d->dim, w);
      if (d->acc == OP_INC)
        op2_buf_printf(&p->gather, "        op2_r%d(:, op2_l) = 0\n", n);
      else
        op2_buf_printf(&p->gather, "        op2_r%d(:, op2_l) = op2_g%d\n", n, n);
      op2_buf_printf(&p->lane_call, "%sop2_r%d(1, op2_l)", sep, n);
    } else if (d->kind == OP2_ARG_IDX) {
      op2_buf_printf(&p->decls, "    integer(4) :: op2_i%d(%d)\n", n, w);
      char var[32];
      snprintf(var, sizeof var, "op2_i%d(op2_l)", n);
      index_value(&p->gather, n, var, d->map_arity ? e : "op2_n", d->map_arity ? map_base : 1);
      op2_buf_printf(&p->lane_call, "%sop2_i%d(op2_l)", sep, n);
    } else if (!d->map_arity) {
      op2_buf_printf(&p->lane_call, "%sop2_d%d(1, op2_n0 + op2_l - 1)", sep, dat);
    } else {
      int k = d->idx >= 0 ? 1 : -d->idx;
      op2_buf_printf(&p->decls, "    %s :: op2_x%d(%d, %d, %d)\n", ty, n, d->dim, k, w);
      for (int c = 1; c <= k; c++) {
        char col[64];
        if (d->idx >= 0)
          snprintf(col, sizeof col, "%s", e);
        else
          snprintf(col, sizeof col, "op2_m%d(%d, op2_n)", map, c);
        if (d->acc == OP_INC)
          op2_buf_printf(&p->gather, "        op2_x%d(:, %d, op2_l) = 0\n", n, c);
        else
          op2_buf_printf(&p->gather, "        op2_x%d(:, %d, op2_l) = op2_d%d(:, %s)\n", n, c, dat,
                         col);
        if (d->acc == OP_INC)
          op2_buf_printf(&p->scatter,
                         "        op2_d%d(:, %s) = op2_d%d(:, %s) + op2_x%d(:, %d, op2_l)\n", dat,
                         col, dat, col, n, c);
      }
      op2_buf_printf(&p->lane_call, "%sop2_x%d(1, 1, op2_l)", sep, n);
    }
  }
  op2_buf_printf(&p->lane_call, ")");
  /* the lanes' reductions, in element order: op_arg_info first (the lane its reference's new
   * extreme came from), then the references */
  for (int i = 0; i < l->nargs; i++) {
    int r = op2_info_ref(&l->desc[i]);
    if (r < 0) continue;
    op2_buf_printf(&p->scatter,
                   "        if (op2_r%d(1, op2_l) %s op2_g%d(1)) op2_g%d = op2_r%d(:, op2_l)\n",
                   r + 1, l->desc[r].acc == OP_MIN ? "<" : ">", r + 1, i + 1, i + 1);
  }
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    if (d->opt_off || !op2_is_reduction(d) || op2_info_ref(d) >= 0) continue;
    int n = i + 1;
    if (d->acc == OP_INC)
      op2_buf_printf(&p->scatter, "        op2_g%d = op2_g%d + op2_r%d(:, op2_l)\n", n, n, n);
    else
      op2_buf_printf(&p->scatter,
                     "        where (op2_r%d(:, op2_l) %s op2_g%d) op2_g%d = op2_r%d(:, op2_l)\n",
                     n, d->acc == OP_MIN ? "<" : ">", n, n, n);
  }
}

/* Replaces every `@name@` of the template in `out` by `with` (a line of its own: the line goes). */
static void put_part(op2_buf *out, const char *tmpl_line, size_t len, const char *name,
                     const op2_buf *with, bool *done) {
  size_t n = strlen(name);
  if (*done || len < n || memcmp(tmpl_line, name, n) != 0) return;
  if (with->data) op2_buf_append(out, with->data, with->len);
  *done = true;
}

static void fill(op2_buf *out, const char *tmpl, const parts *p, const op2_fortran_unit *u,
                 bool lanes) {
  const struct {
    const char *name;
    const op2_buf *with;
  } blocks[] = {{"@HOST_POINTERS@", &p->host}, {"@LOOP_LOCALS@", &p->locals},
                {"@LOOP_BIND@", &p->bind},     {"@RANGE_DECLS@", &p->decls},
                {"@ELEMENT@", &p->element},    {"@AFTER@", &p->after},
                {"@GATHER@", &p->gather},      {"@SCATTER@", &p->scatter},
                {"@COPIES@", &p->copies}},
    words[] = {{"@RANGE_ACTUALS@", &p->actuals},
               {"@RANGE_DUMMIES@", &p->dummies},
               {"@CALL@", lanes ? &p->lane_call : &p->call},
               {"@W@", &p->pointers}};
  for (const char *line = tmpl; *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line + 1) : strlen(line);
    bool done = false;
    if (line[0] != '!') { /* the template's own comments name the parts: kept as they are */
      for (size_t i = 0; i < sizeof blocks / sizeof *blocks; i++)
        put_part(out, line, len, blocks[i].name, blocks[i].with, &done);
      if (!done && strncmp(line, "@CONTEXT@", 9) == 0) {
        op2_buf_printf(out, "%s", u->context);
        done = true;
      }
      if (!done && strncmp(line, "@KERNEL@", 8) == 0) {
        op2_buf_printf(out, "! the kernel, from %s, line %d\n%s", u->file, u->line, u->kernel);
        done = true;
      }
    }
    for (const char *c = line; !done && line[0] == '!' && c < line + len;) { /* comment */
      op2_buf_append(out, line, len);
      done = true;
    }
    for (const char *c = line; !done && c < line + len;) { /* words within a line */
      const char *at = memchr(c, '@', (size_t)(line + len - c));
      size_t i = 0;
      for (; at && i < sizeof words / sizeof *words; i++)
        if (strncmp(at, words[i].name, strlen(words[i].name)) == 0) break;
      if (!at || i == sizeof words / sizeof *words) {
        size_t rest = at ? (size_t)(at - c + 1) : (size_t)(line + len - c);
        op2_buf_append(out, c, rest);
        c += rest;
        continue;
      }
      op2_buf_append(out, c, (size_t)(at - c));
      if (words[i].with->data) op2_buf_append(out, words[i].with->data, words[i].with->len);
      c = at + strlen(words[i].name);
    }
    line += len;
  }
}

/* ---- the C element loop (templates/fortran/loop_c.F90 with jit/codegen.c's C loop) ---- */

/* What the C loop passes a Fortran kernel as OP2's Fortran does: element data in place or
 * gathered, globals, reductions' partials; not index values (C's count from 0), vector arguments
 * (C's are arrays of pointers), absent optional arguments (C's are null), nor op_arg_info (whose
 * element-order rule is the Fortran loops'). And the SIMD loop's own rule (op2_simd_check). */
static bool c_loop_possible(const op2_loop_desc *l, char *why, size_t len) {
  for (int i = 0; i < l->nargs; i++) {
    const op2_arg_desc *d = &l->desc[i];
    const char *what =
        d->opt_off                   ? "an optional argument left out"
        : d->kind == OP2_ARG_IDX     ? "an index argument (op_arg_idx)"
        : d->map_arity && d->idx < 0 ? "a vector argument"
        : op2_info_ref(d) >= 0       ? "an op_arg_info argument"
        : d->type != OP2_TYPE_DOUBLE && d->type != OP2_TYPE_FLOAT && d->type != OP2_TYPE_INT
            ? "an argument of a type C's loop does "
              "not gather"
            : NULL;
    if (what) {
      snprintf(why, len, "argument %d is %s", i, what);
      return false;
    }
  }
  return op2_simd_check(l, why, len) == 0;
}

/* The kernel's C declaration, `name`: the loop's arguments and the host variables, all by
 * reference, the host variables given by the macro of the same name. */
static void c_declaration(op2_buf *b, const char *name, int nargs, const op2_fortran_unit *u) {
  op2_buf_printf(b, "void %s(", name);
  for (int i = 0; i < nargs + u->nhost; i++) op2_buf_printf(b, "%sconst void *", i ? ", " : "");
  op2_buf_printf(b, ");\n");
  if (!u->nhost) return;
  op2_buf_printf(b, "#define %s(...) %s(__VA_ARGS__", name, name);
  for (int h = 0; h < u->nhost; h++)
    op2_buf_printf(b, ", %s%s", OP2_HOST_VAR_PREFIX, u->host_names[h]);
  op2_buf_printf(b, ")\n");
}

#define C_KERNEL "op2_fortran_kernel"
#define C_LANES "op2_lanes_" C_KERNEL

/* The Fortran half (loop_c.F90, into f) and the C loop (into c), or OP2_ERR_ARG and why the loop
 * stays on the Fortran element loop. */
static int c_loop(op2_jit *jit, const op2_loop_desc *loop, const op2_fortran_unit *u, op2_buf *f,
                  op2_generated *c, char *why, size_t len) {
  if (!c_loop_possible(loop, why, len)) return OP2_ERR_ARG;
  uint64_t wanted = op2_simd_lanes_wanted(loop), once = 0;
  bool laned[64] = {0};
  for (int i = 0; i < loop->nargs && i < 64; i++) laned[i] = wanted >> i & 1;
  parts p = {0};
  op2_fortran_copy scalar = {C_KERNEL, NULL, loop->nargs, u->nhost, u->host_names, u->host_decls};
  op2_fortran_copy lanes = scalar;
  lanes.name = C_LANES, lanes.laned = laned;
  int rc = op2_fortran_kernel_copy(u->kernel, &scalar, &p.copies, NULL, why, len);
  if (rc == OP2_OK && wanted) {
    op2_buf_printf(&p.copies, "\n");
    rc = op2_fortran_kernel_copy(u->kernel, &lanes, &p.copies, &once, why, len);
  }
  int w = jit->cfg.simd_width;
  if (rc == OP2_OK && jit->cfg.simd < 0 && op2_simd_pays_once(loop, once, wanted, w, why, len) != 0)
    rc = OP2_ERR_ARG;
  op2_buf decls = {0}, lanes_decl = {0};
  if (rc == OP2_OK) {
    op2_buf_printf(&decls, "/* The kernel, built by gfortran (op2jit_kernels) */\n");
    for (int h = 0; h < u->nhost; h++) /* set by the library when loaded */
      op2_buf_printf(&decls, "void *%s%s;\n", OP2_HOST_VAR_PREFIX, u->host_names[h]);
    c_declaration(&decls, C_KERNEL, loop->nargs, u);
    if (wanted) c_declaration(&lanes_decl, C_LANES, loop->nargs, u);
    op2_buf_printf(&lanes_decl, "%s", ""); /* not NULL: the SIMD loop */
    rc = decls.failed || lanes_decl.failed
             ? OP2_ERR_MEM
             : op2_codegen_c_external(jit, loop, C_KERNEL, decls.data, lanes_decl.data, wanted, c);
  }
  if (rc == OP2_OK) {
    char *tmpl = op2_template_load(jit, "fortran/loop_c.F90");
    if (!tmpl) {
      rc = OP2_ERR_JIT;
    } else {
      op2_buf_printf(&p.pointers, "%d", w); /* @W@ */
      fill(f, tmpl, &p, u, false);
      free(tmpl);
    }
  }
  if (rc == OP2_OK) {
    for (int i = 0; all_parts(&p, i); i++) rc = all_parts(&p, i)->failed ? OP2_ERR_MEM : rc;
  }
  op2_buf_free(&decls), op2_buf_free(&lanes_decl);
  free_parts(&p);
  return rc;
}

/* The generated file's head: the loop and kernel, the signature, the map base, the include
 * directories and the interfaces of the modules the loop uses, up to the loop marker. */
static void file_header(op2_buf *b, const op2_loop_desc *loop, const op2_fortran_unit *u,
                        const op2_buf *signature, int map_base) {
  op2_buf_printf(b, "! op2jit: loop %s, Fortran kernel %s%s%s (%s, line %d)\n", loop->name,
                 u->kind == 'm' ? u->module : "", u->kind == 'm' ? "::" : "", u->procedure, u->file,
                 u->line);
  for (const char *line = signature->data; line && *line;) {
    const char *eol = strchr(line, '\n');
    size_t len = eol ? (size_t)(eol - line) : strlen(line);
    op2_buf_printf(b, "! %.*s\n", (int)len, line);
    line += len + (eol != NULL);
  }
  op2_buf_printf(b, "! map values count from %d\n", map_base);
  for (const char *d = u->include_dirs; d && *d;) { /* where include files are looked for */
    const char *end = strchr(d, ':');
    size_t len = end ? (size_t)(end - d) : strlen(d);
    op2_buf_printf(b, "!op2jit:include %.*s\n", (int)len, d);
    d += len + (end != NULL);
  }
  if (u->interfaces[0])
    op2_buf_printf(b, "! ---- the modules the loop uses, for their interfaces only ----\n%s",
                   u->interfaces);
  op2_buf_printf(b, "%s\n", OP2_FORTRAN_LOOP_MARKER);
}

/* The C part of a loop run by C's SIMD loop: the C compiler's command line, which the tier runs
 * on it (without -shared), then the C file. */
static void c_part(const op2_jit *jit, const op2_generated *cgen, op2_buf *cpart) {
  op2_buf_printf(cpart, "%s %s", OP2_FORTRAN_C_MARKER, jit->cfg.cc);
  char flags[sizeof jit->cfg.cflags];
  snprintf(flags, sizeof flags, "%s", jit->cfg.cflags);
  for (char *save = NULL, *tok = strtok_r(flags, " \t", &save); tok;
       tok = strtok_r(NULL, " \t", &save))
    if (strcmp(tok, "-shared") != 0) op2_buf_printf(cpart, " %s", tok);
  op2_buf_printf(cpart, "\n");
  op2_buf_append(cpart, cgen->source.data, cgen->source.len);
}

int op2_codegen_fortran(op2_jit *jit, const op2_loop_desc *loop, const op2_fortran_unit *u,
                        int map_base, op2_generated *out) {
  memset(out, 0, sizeof *out);
  OP2_CALL(op2_signature_describe(jit, loop, "fortran", &out->signature));
  int w = jit->cfg.simd_width;
  op2_buf cpart = {0}, fpart = {0};
  op2_generated cgen = {0};
  char why[1024] = ""; /* op2_simd_pays_once's reasons run to 500 characters */
  int crc = w > 1 && jit->cfg.simd != 0 ? c_loop(jit, loop, u, &fpart, &cgen, why, sizeof why)
                                        : OP2_ERR_ARG;
  if (crc == OP2_ERR_MEM || crc == OP2_ERR_JIT) {
    op2_buf_free(&fpart), op2_buf_free(&cgen.source), op2_buf_free(&cgen.signature);
    op2_buf_free(&out->signature);
    return crc == OP2_ERR_JIT
               ? crc
               : op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  bool in_c = crc == OP2_OK;
  if (in_c) {
    op2_buf_printf(&out->signature, "variant c-simd\n");
    c_part(jit, &cgen, &cpart);
    if (jit->cfg.mode != OP2_JIT_TCC)
      op2_jit_diag(jit, 2,
                   "loop '%s': the optimised tier runs C's loop in groups of %d lanes around "
                   "the kernel's copies",
                   loop->name, w);
  } else if (w > 1 && jit->cfg.simd != 0 && jit->cfg.mode != OP2_JIT_TCC) {
    op2_jit_diag(jit, 2, "loop '%s': the optimised tier runs gfortran's element loop: %s",
                 loop->name, why);
  }
  op2_buf_free(&cgen.source), op2_buf_free(&cgen.signature);
  /* the Fortran groups: as the C loop's under OP2_SIMD=auto, only where they keep the element
   * loop's results bit for bit (no floating-point OP_INC reduction, op2_simd_check) */
  char no[400];
  bool lanes = !in_c && w > 1 && op2_fortran_lanes_possible(loop) &&
               (jit->cfg.simd > 0 || op2_simd_check(loop, no, sizeof no) == 0);
  char *tmpl =
      in_c ? NULL : op2_template_load(jit, lanes ? "fortran/loop_lanes.F90" : "fortran/loop.F90");
  if (!in_c && !tmpl) {
    op2_buf_free(&out->signature);
    return OP2_ERR_JIT;
  }
  parts p = {0};
  if (!in_c && find_logicals(loop, u, &p) != OP2_OK) {
    free(tmpl), op2_buf_free(&fpart), op2_buf_free(&cpart), op2_buf_free(&out->signature);
    return op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  if (!in_c) {
    arguments(loop, u, &p);
    if (lanes) {
      lane_element(loop, map_base, w, &p, u->procedure);
      op2_buf_printf(&p.pointers, "%d", w); /* @W@ */
    } else {
      scalar_element(loop, map_base, &p, u->procedure);
    }
  }
  op2_buf *b = &out->source;
  file_header(b, loop, u, &out->signature, map_base);
  if (in_c) {
    op2_buf_printf(b,
                   "! elements in groups of lanes (OP2_SIMD) by the C loop after %s, which "
                   "link-time optimisation joins to these copies of the kernel\n",
                   OP2_FORTRAN_C_MARKER);
    op2_buf_append(b, fpart.data, fpart.len);
    op2_buf_append(b, cpart.data, cpart.len);
  } else {
    op2_buf_printf(b, "! %s\n",
                   lanes ? "elements in groups of lanes (OP2_SIMD)" : "element by element");
    fill(b, tmpl, &p, u, lanes);
  }
  free(tmpl);
  bool failed = b->failed || out->signature.failed || fpart.failed || cpart.failed;
  for (int i = 0; all_parts(&p, i); i++) failed = failed || all_parts(&p, i)->failed;
  free_parts(&p);
  op2_buf_free(&fpart), op2_buf_free(&cpart);
  if (failed) {
    op2_buf_free(&out->source), op2_buf_free(&out->signature);
    return op2_jit_fail(jit, OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  return OP2_OK;
}
