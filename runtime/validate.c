/* SPDX-License-Identifier: BSD-3-Clause */
/* Argument checking for op_par_loop. Runs before a loop shape is first compiled, so a bad call
 * never generates code or touches data; every message names the loop and the argument. */
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/distributed.h"

static const char *access_name(op_access acc) {
  static const char *names[] = {"OP_READ", "OP_WRITE", "OP_RW", "OP_INC", "OP_MIN", "OP_MAX"};
  return (unsigned)acc < sizeof names / sizeof names[0] ? names[acc] : "an unknown access mode";
}

#define ARG_ERROR(fmt, ...) \
  op2_error(OP2_ERR_ARG, "op_par_loop '%s', argument %d: " fmt, name, i, __VA_ARGS__)
/* Argument i of loop `name` must satisfy cond. */
#define ARG_CHECK(cond, fmt, ...) \
  OP2_CHECK(cond, OP2_ERR_ARG, "op_par_loop '%s', argument %d: " fmt, name, i, __VA_ARGS__)

static int check_map_index(const char *name, int i, op_set set, op_map map, int idx,
                           const char *what) {
  ARG_CHECK(map->from == set, "map '%s' goes from set '%s', but the loop runs over set '%s'",
            map->name, map->from->name, set->name);
  ARG_CHECK(idx != -1,
            "index -1 means direct access: use OP_ID instead of map '%s', a column "
            "0..%d, or -%d for all columns",
            map->name, map->dim - 1, map->dim);
  ARG_CHECK(idx < map->dim && idx >= -map->dim && !(idx < 0 && strcmp(what, "op_arg_idx") == 0),
            "index %d is out of range for map '%s' of arity %d (%s)", idx, map->name, map->dim,
            what);
  return OP2_OK;
}

static int check_dat(const char *name, int i, op_set set, const op_arg *a) {
  op_dat dat = a->dat;
  op2_type t;
  ARG_CHECK(dat, "dat is NULL%s", "");
  ARG_CHECK((unsigned)a->acc <= OP_MAX, "access mode %d is not valid", (int)a->acc);
  ARG_CHECK(op2_type_parse(a->type, &t) == OP2_OK && t == dat->type,
            "type '%s' does not match dat '%s' of type '%s'", a->type ? a->type : "(null)",
            dat->name, op2_type_name(dat->type));
  ARG_CHECK(a->dim == dat->dim, "dim %d does not match dat '%s' of dim %d", a->dim, dat->name,
            dat->dim);
  ARG_CHECK(a->acc != OP_MIN && a->acc != OP_MAX, "%s is only for op_arg_gbl, not for dat '%s'",
            access_name(a->acc), dat->name);
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
  ARG_CHECK(a->map->to == dat->set, "map '%s' goes to set '%s', but dat '%s' is on set '%s'",
            a->map->name, a->map->to->name, dat->name, dat->set->name);
  return OP2_OK;
}

static int check_gbl(const char *name, int i, const op_arg *a) {
  op2_type t;
  ARG_CHECK((unsigned)a->acc <= OP_MAX, "access mode %d is not valid", (int)a->acc);
  ARG_CHECK(a->data, "global data is NULL%s", "");
  ARG_CHECK(a->dim >= 1, "global dim %d must be at least 1", a->dim);
  ARG_CHECK(op2_type_parse(a->type, &t) == OP2_OK,
            "unknown type '%s' for a global (use double, float, int or long long)",
            a->type ? a->type : "(null)");
  ARG_CHECK(a->acc == OP_READ || a->acc == OP_INC || a->acc == OP_MIN || a->acc == OP_MAX,
            "%s is not allowed on a global (use OP_READ, OP_INC, OP_MIN or OP_MAX)",
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

int op2_validate_loop(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args) {
  OP2_CHECK(op2_is_identifier(name) && strlen(name) <= 200, OP2_ERR_ARG,
            "op_par_loop: loop name '%.200s' is not a C identifier of at "
            "most 200 characters (it must name the kernel function)",
            name ? name : "(null)");
  OP2_CHECK(!op2_is_reserved_name(name), OP2_ERR_ARG,
            "op_par_loop '%s': the loop name is reserved (a C keyword or "
            "an op2_/OP2_ name)",
            name);
  OP2_CHECK(kernel && *kernel, OP2_ERR_ARG, "op_par_loop '%s': kernel source is empty", name);
  OP2_CHECK(set, OP2_ERR_ARG, "op_par_loop '%s': set is NULL", name);
  OP2_CHECK(nargs >= 1 && args, OP2_ERR_ARG, "op_par_loop '%s': no arguments%s", name,
            nargs > 0 ? " (the argument array is NULL)" : "");
  op2_context *ctx = op2_ctx();
  OP2_CHECK(!ctx->mpi_distributed || set->halo, OP2_ERR_STATE,
            "op_par_loop '%s': set '%s' was declared after the mesh was "
            "distributed (declare everything before op_partition or the first loop)",
            name, set->name);
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    /* first: its pointers may point anywhere */
    ARG_CHECK(a->tag == OP2_ARG_TAG,
              "not built by op_arg_dat, op_arg_gbl or op_arg_idx (nor op_opt_arg_dat)%s", "");
    switch (a->kind) {
      case OP2_ARG_DAT:
        if (a->opt) OP2_CALL(check_dat(name, i, set, a));
        ARG_CHECK(!(a->opt && ctx->mpi_distributed && !a->dat->set->halo),
                  "dat '%s' is on a set declared after the mesh was distributed", a->dat->name);
        break;
      case OP2_ARG_GBL:
        OP2_CALL(check_gbl(name, i, a));
        if (a->idx != -1 && a->opt) { /* op_arg_info: follows its reference reduction */
          const op_arg *r = a->idx >= 0 && a->idx < nargs ? &args[a->idx] : NULL;
          ARG_CHECK(a->acc == OP_MAX && r && a->idx != i && r->tag == OP2_ARG_TAG &&
                        r->kind == OP2_ARG_GBL && r->opt && r->idx == -1 &&
                        (r->acc == OP_MIN || r->acc == OP_MAX),
                    "op_arg_info's reference %d is not an OP_MIN or OP_MAX global of this loop "
                    "(it counts arguments from 0)",
                    a->idx);
        }
        break;
      case OP2_ARG_IDX:
        OP2_CALL(check_idx(name, i, set, a));
        break;
      default:
        return ARG_ERROR("not built by op_arg_dat, op_arg_gbl or op_arg_idx (kind %d)", a->kind);
    }
  }
  if (op2_fault(ctx, "validate"))
    return op2_error(OP2_ERR_ARG, "op_par_loop '%s': argument check failed (injected by OP2_FAULT)",
                     name);
  return OP2_OK;
}
