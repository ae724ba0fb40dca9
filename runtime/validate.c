/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument checking for op_par_loop. Runs before a loop shape is first compiled, so a bad call
 * never generates code or touches data; every message names the loop and the argument. The
 * checks need no data: lazy execution makes them when a call is queued (loop.c's
 * op2_loop_checks_pass), so a bad call is refused at the call, as eagerly. */
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/distributed.h"

static const char *access_name(op_access acc) {
  static const char *names[] = {"OP_READ", "OP_WRITE", "OP_RW",      "OP_INC",
                                "OP_MIN",  "OP_MAX",   "op_arg_info"};
  return (unsigned)acc < sizeof names / sizeof names[0] ? names[acc] : "an unknown access mode";
}

#define ARG_ERROR(fmt, ...) \
  op2_error(OP2_ERR_ARG, "op_par_loop '%s', argument %d: " fmt, name, i, __VA_ARGS__)

static int check_map_index(const char *name, int i, op_set set, op_map map, int idx,
                           const char *what) {
  if (map->from != set)
    return ARG_ERROR("map '%s' goes from set '%s', but the loop runs over set '%s'", map->name,
                     map->from->name, set->name);
  if (idx == -1)
    return ARG_ERROR(
        "index -1 means direct access: use OP_ID instead of map '%s', a column "
        "0..%d, or -%d for all columns",
        map->name, map->dim - 1, map->dim);
  if (idx >= map->dim || idx < -map->dim || (idx < 0 && strcmp(what, "op_arg_idx") == 0))
    return ARG_ERROR("index %d is out of range for map '%s' of arity %d (%s)", idx, map->name,
                     map->dim, what);
  return OP2_OK;
}

static int check_dat(const char *name, int i, op_set set, const op_arg *a) {
  op_dat dat = a->dat;
  op2_type t;
  if (!dat) return ARG_ERROR("dat is NULL%s", "");
  if ((unsigned)a->acc > OP_MAX) return ARG_ERROR("access mode %d is not valid", (int)a->acc);
  if (op2_type_parse(a->type, &t) != OP2_OK || t != dat->type)
    return ARG_ERROR("type '%s' does not match dat '%s' of type '%s'", a->type ? a->type : "(null)",
                     dat->name, op2_type_name(dat->type));
  if (a->dim != dat->dim)
    return ARG_ERROR("dim %d does not match dat '%s' of dim %d", a->dim, dat->name, dat->dim);
  if (a->acc == OP_MIN || a->acc == OP_MAX)
    return ARG_ERROR("%s is only for op_arg_gbl, not for dat '%s'", access_name(a->acc), dat->name);
  if (a->map == OP_ID) {
    if (a->idx != -1)
      return ARG_ERROR("index %d given with OP_ID for dat '%s' (direct access uses -1)", a->idx,
                       dat->name);
    if (dat->set != set)
      return ARG_ERROR(
          "dat '%s' is on set '%s', but the loop runs over set '%s' (direct "
          "access needs the loop set)",
          dat->name, dat->set->name, set->name);
    return OP2_OK;
  }
  OP2_CALL(check_map_index(name, i, set, a->map, a->idx, "op_arg_dat"));
  if (a->map->to != dat->set)
    return ARG_ERROR("map '%s' goes to set '%s', but dat '%s' is on set '%s'", a->map->name,
                     a->map->to->name, dat->name, dat->set->name);
  return OP2_OK;
}

/* op_arg_info's `ref` (its idx): an OP_MIN or OP_MAX global of the loop, switched on, of the
 * same dim (component k of the info goes with component k of the reduction, as in OP2). */
static int check_info(const char *name, int i, int nargs, const op_arg *args) {
  const op_arg *a = &args[i];
  if (a->idx < 0 || a->idx >= nargs || a->idx == i)
    return ARG_ERROR("op_arg_info's reference %d is not another argument of the loop (0..%d)",
                     a->idx, nargs - 1);
  const op_arg *r = &args[a->idx];
  if (r->kind != OP2_ARG_GBL || (r->acc != OP_MIN && r->acc != OP_MAX))
    return ARG_ERROR(
        "op_arg_info's reference %d is not an op_arg_gbl with OP_MIN or OP_MAX (it is "
        "%s)",
        a->idx,
        r->kind == OP2_ARG_GBL   ? access_name(r->acc)
        : r->kind == OP2_ARG_DAT ? "a dat"
                                 : "an index");
  if (!r->opt)
    return ARG_ERROR("op_arg_info's reference %d is an optional global switched off", a->idx);
  if (r->dim != a->dim)
    return ARG_ERROR("op_arg_info has dim %d, its reference %d (OP_%s) has dim %d", a->dim, a->idx,
                     r->acc == OP_MIN ? "MIN" : "MAX", r->dim);
  return OP2_OK;
}

static int check_gbl(const char *name, int i, const op_arg *a) {
  op2_type t;
  if ((unsigned)a->acc > OP2_ACC_INFO) return ARG_ERROR("access mode %d is not valid", (int)a->acc);
  if (!a->data) return ARG_ERROR("global data is NULL%s", "");
  if (a->dim < 1) return ARG_ERROR("global dim %d must be at least 1", a->dim);
  if (op2_type_parse(a->type, &t) != OP2_OK)
    return ARG_ERROR("unknown type '%s' for a global (use double, float, int or long long)",
                     a->type ? a->type : "(null)");
  if (a->acc != OP_READ && a->acc != OP_INC && a->acc != OP_MIN && a->acc != OP_MAX &&
      (int)a->acc != OP2_ACC_INFO)
    return ARG_ERROR("%s is not allowed on a global (use OP_READ, OP_INC, OP_MIN or OP_MAX)",
                     access_name(a->acc));
  return OP2_OK;
}

static int check_idx(const char *name, int i, op_set set, const op_arg *a) {
  if (a->map == OP_ID)
    return a->idx == -1 ? OP2_OK
                        : ARG_ERROR("op_arg_idx index %d given with OP_ID (use -1)", a->idx);
  return check_map_index(name, i, set, a->map, a->idx, "op_arg_idx");
}

bool op2_args_untrusted(int nargs, const op_arg *args) {
  if (nargs > 0 && !args) return true;
  for (int i = 0; i < nargs; i++)
    if (args[i].tag != OP2_ARG_TAG) return true;
  return false;
}

int op2_validate_loop(const op2_loop_call *call) {
  const char *kernel = call->kernel, *name = call->name;
  op_set set = call->set;
  int nargs = call->nargs;
  const op_arg *args = call->args;
  if (!op2_is_identifier(name) || strlen(name) > 200)
    return op2_error(OP2_ERR_ARG,
                     "op_par_loop: loop name '%.200s' is not a C identifier of at "
                     "most 200 characters (it must name the kernel function)",
                     name ? name : "(null)");
  if (op2_is_reserved_name(name))
    return op2_error(OP2_ERR_ARG,
                     "op_par_loop '%s': the loop name is reserved (a C keyword or "
                     "an op2_/OP2_ name)",
                     name);
  if (!kernel || !*kernel)
    return op2_error(OP2_ERR_ARG, "op_par_loop '%s': kernel source is empty", name);
  if (!set) return op2_error(OP2_ERR_ARG, "op_par_loop '%s': set is NULL", name);
  if (nargs < 1 || !args)
    return op2_error(OP2_ERR_ARG, "op_par_loop '%s': no arguments%s", name,
                     nargs > 0 ? " (the argument array is NULL)" : "");
  op2_context *ctx = op2_ctx();
  if (ctx->mpi_distributed && !set->halo)
    return op2_error(OP2_ERR_STATE,
                     "op_par_loop '%s': set '%s' was declared after the mesh was "
                     "distributed (declare everything before op_partition or the first loop)",
                     name, set->name);
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    /* first: its pointers may point anywhere */
    if (a->tag != OP2_ARG_TAG)
      return ARG_ERROR("not built by op_arg_dat, op_arg_gbl or op_arg_idx (nor op_opt_arg_dat)%s",
                       "");
    switch (a->kind) {
      case OP2_ARG_DAT:
        if (a->opt) OP2_CALL(check_dat(name, i, set, a));
        if (a->opt && ctx->mpi_distributed && !a->dat->set->halo)
          return ARG_ERROR("dat '%s' is on a set declared after the mesh was distributed",
                           a->dat->name);
        break;
      case OP2_ARG_GBL:
        OP2_CALL(check_gbl(name, i, a));
        break;
      case OP2_ARG_IDX:
        OP2_CALL(check_idx(name, i, set, a));
        break;
      default:
        return ARG_ERROR("not built by op_arg_dat, op_arg_gbl or op_arg_idx (kind %d)", a->kind);
    }
  }
  for (int i = 0; i < nargs; i++) /* every argument checked: the references may be read */
    if (args[i].kind == OP2_ARG_GBL && (int)args[i].acc == OP2_ACC_INFO)
      OP2_CALL(check_info(name, i, nargs, args));
  /* OP2_FAULT fails the step of the call's run, not a check of it when it is queued */
  if (!ctx->error_probe && op2_fault(ctx, "validate"))
    return op2_error(OP2_ERR_ARG, "op_par_loop '%s': argument check failed (injected by OP2_FAULT)",
                     name);
  return OP2_OK;
}
