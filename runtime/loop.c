/* SPDX-License-Identifier: BSD-3-Clause */
/* Loop shapes: the first call of a (kernel, set, arguments) shape validates, describes, compiles
 * and plans it; a later call from a call site not seen before costs a hash and a comparison (one
 * seen before finds its loop in loop_site.c). */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* for the streaming state on the stack */
#include <xxhash.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/plan.h"
#include "runtime/tune.h"
#include "runtime/jit_use.h"
#include "runtime/backend.h"
#include "runtime/compiled_kernel.h"
#include "jit/jit.h"
#include "runtime/distributed.h"

/* The identity of one argument as far as shape is concerned: no global data values. */
typedef struct arg_key {
  int kind, opt, idx, dim, acc, has_data;
  const void *dat, *map;
  char type[16];
} arg_key;

static void make_arg_keys(int nargs, const op_arg *args, arg_key *keys) {
  memset(keys, 0, (size_t)nargs * sizeof *keys);
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    keys[i] = (arg_key){.kind = a->kind,
                        .opt = a->opt,
                        .idx = a->idx,
                        .dim = a->dim,
                        .acc = (int)a->acc,
                        .has_data = a->data != NULL,
                        .dat = a->dat,
                        .map = a->map};
    if (a->type) strncpy(keys[i].type, a->type, sizeof keys[i].type - 1);
  }
}

bool op2_loop_same_text(const op2_loop *l, const char *kernel, const char *name) {
  return strcmp(l->name, name) == 0 && strncmp(l->key_blob, kernel, l->key_len) == 0;
}

bool op2_loop_same_type(const op2_loop *l, int arg, const char *type) {
  /* The keys follow the text in key_blob, unaligned: read as bytes. */
  const char *key = l->key_blob + l->key_len - (size_t)(l->nargs - arg) * sizeof(arg_key);
  char mine[sizeof((arg_key *)0)->type] = "";
  if (type) strncpy(mine, type, sizeof mine - 1);
  return memcmp(mine, key + offsetof(arg_key, type), sizeof mine) == 0;
}

/* keys: one per argument (none when nargs < 1: create_loop's checks refuse the call) */
static uint64_t shape_hash(const op2_context *ctx, const op2_loop_call *call, const arg_key *keys) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, call->kernel, strlen(call->kernel) + 1);
  XXH3_64bits_update(&st, call->name, strlen(call->name) + 1);
  XXH3_64bits_update(&st, &call->set, sizeof call->set);
  XXH3_64bits_update(&st, &ctx->const_generation, sizeof ctx->const_generation);
  XXH3_64bits_update(&st, keys, (size_t)(call->nargs > 0 ? call->nargs : 0) * sizeof *keys);
  return XXH3_64bits_digest(&st);
}

static int group_of(const void **seen, int *nseen, const void *p) {
  for (int g = 0; g < *nseen; g++)
    if (seen[g] == p) return g;
  seen[*nseen] = p;
  return (*nseen)++;
}

/* Groups need the two lists: without them every argument would be a group of its own, and two
 * arguments on one dat would look independent to the plan and the SIMD check. */
static int describe_args(const char *name, int nargs, const op_arg *args, op2_arg_desc *desc) {
  const void **maps = calloc((size_t)nargs, sizeof *maps);
  const void **dats = calloc((size_t)nargs, sizeof *dats);
  if (!maps || !dats) {
    free(maps), free(dats);
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  }
  int nmaps = 0, ndats = 0;
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    op2_arg_desc *d = &desc[i];
    memset(d, 0, sizeof *d);
    d->kind = (op2_arg_kind)a->kind;
    d->acc = a->acc;
    /* OP2 accepts OP_INC on a direct dat: each element adds to its own value only, i.e. OP_RW. */
    if (a->kind == OP2_ARG_DAT && a->map == OP_ID && a->acc == OP_INC) d->acc = OP_RW;
    d->dim = a->dim;
    d->idx = a->idx;
    if (a->kind == OP2_ARG_GBL && (int)a->acc == OP2_ACC_INFO) d->info_of = a->idx, d->idx = -1;
    d->map_group = d->dat_group = -1;
    d->opt_off = (a->kind == OP2_ARG_DAT || a->kind == OP2_ARG_GBL) && !a->opt;
    if (d->opt_off && a->kind == OP2_ARG_GBL) d->acc = OP_READ; /* NULL, and nothing reduced */
    /* A switched-off optional argument may carry any type string: it only types a NULL. */
    if (a->kind == OP2_ARG_IDX || op2_type_parse(a->type, &d->type) != OP2_OK)
      d->type = a->kind == OP2_ARG_IDX ? OP2_TYPE_INT : OP2_TYPE_DOUBLE;
    if (d->opt_off) continue;
    if (a->map != OP_ID && a->kind != OP2_ARG_GBL) {
      d->map_arity = a->map->dim;
      d->map_group = group_of(maps, &nmaps, a->map);
    }
    if (a->kind == OP2_ARG_DAT) d->dat_group = group_of(dats, &ndats, a->dat);
  }
  free(maps);
  free(dats);
  return OP2_OK;
}

bool op2_loop_checks_pass(op2_context *ctx, const op2_loop_call *call) {
  const char *name = call->name;
  int nargs = call->nargs;
  op2_error_probe_begin(ctx);
  int rc = op2_validate_loop(call);
  op2_arg_desc small[16];
  op2_arg_desc *desc = rc != OP2_OK  ? NULL
                       : nargs <= 16 ? small
                                     : malloc((size_t)nargs * sizeof *desc);
  if (rc == OP2_OK) rc = desc ? describe_args(name, nargs, call->args, desc) : OP2_ERR_MEM;
  op2_error_probe_end(ctx);
  if (rc == OP2_OK) {
    op2_loop_desc d = {.name = name, .nargs = nargs, .desc = desc};
    rc = op2_kernel_params_verify(ctx->jit_engine, call->kernel, &d);
  }
  if (desc != small) free(desc);
  return rc == OP2_OK; /* out of memory too: the call runs at once, and reports it there */
}

/* The least traffic a call can cause: each dat once (read, written, or both for RW/INC), an
 * indirectly reached dat over at most the elements its map columns can reach, each map once. */
static double bytes_per_call(op_set set, int nargs, const op_arg *args, const op2_arg_desc *d) {
  double bytes = 0;
  for (int i = 0; i < nargs; i++) {
    if (d[i].kind != OP2_ARG_DAT || d[i].opt_off) continue;
    int first = 1, written = d[i].acc != OP_READ, read = d[i].acc != OP_WRITE, direct = 0;
    long reach = 0;
    for (int j = 0; j < nargs; j++) {
      if (d[j].dat_group != d[i].dat_group || d[j].opt_off) continue;
      if (j < i) first = 0;
      written |= d[j].acc != OP_READ;
      read |= d[j].acc != OP_WRITE;
      if (!d[j].map_arity)
        direct = 1;
      else
        reach += (long)set->size * (d[j].idx < 0 ? -d[j].idx : 1);
    }
    if (!first) continue;
    long elems = direct ? set->size : 0;
    long target = args[i].dat->set->size;
    if (reach > 0)
      elems = elems > (reach < target ? reach : target) ? elems : (reach < target ? reach : target);
    bytes += (double)(read + written) * (double)elems * (double)args[i].dat->elem_bytes;
  }
  for (int i = 0; i < nargs; i++) { /* each distinct map's values are read once */
    if (d[i].map_group < 0) continue;
    int first = 1;
    for (int j = 0; j < i; j++) first &= d[j].map_group != d[i].map_group;
    if (first) bytes += (double)set->size * d[i].map_arity * sizeof(int);
  }
  return bytes;
}

static int needs_plan(int nargs, const op2_arg_desc *d) {
  for (int i = 0; i < nargs; i++)
    if (d[i].kind == OP2_ARG_DAT && !d[i].opt_off && d[i].map_arity && d[i].acc != OP_READ)
      return 1;
  return 0;
}

/* What every rank must agree on before a call of this loop moves data: the generated source and
 * the identities (context indices) of its set, dats and maps. */
static void make_rank_key(op2_loop *loop, const uint64_t source[2]) {
  XXH3_state_t st;
  XXH3_128bits_reset(&st);
  XXH3_128bits_update(&st, source, 2 * sizeof *source);
  XXH3_128bits_update(&st, &loop->set->index, sizeof loop->set->index);
  for (int i = 0; i < loop->nargs; i++) {
    const op_arg *a = &loop->args[i];
    int on = a->kind != OP2_ARG_DAT || a->opt;
    int id[5] = {a->kind, (int)a->acc, a->idx, on && a->dat ? a->dat->index : -1,
                 on && a->map ? a->map->index : -1};
    XXH3_128bits_update(&st, id, sizeof id);
  }
  XXH128_hash_t h = XXH3_128bits_digest(&st);
  loop->rank_key[0] = h.high64, loop->rank_key[1] = h.low64;
}

static int create_loop(op2_context *ctx, const op2_loop_call *call, uint64_t hash,
                       const arg_key *keys, op2_loop **out) {
  const char *kernel = call->kernel, *name = call->name;
  op_set set = call->set;
  int nargs = call->nargs;
  const op_arg *args = call->args;
  OP2_CALL(op2_validate_loop(call));
  char use[160];
  snprintf(use, sizeof use, "op_par_loop '%.120s'", name);
  OP2_CALL(op2_loop_maps_check(nargs, args, use, false)); /* the program may write them */
  op2_loop *loop = calloc(1, sizeof *loop);
  if (!loop) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  size_t klen = strlen(kernel) + 1, keys_len = (size_t)nargs * sizeof *keys;
  loop->key_len = klen + keys_len;
  loop->key_blob = malloc(loop->key_len);
  loop->name = strdup(name);
  loop->args = malloc((size_t)nargs * sizeof *loop->args);
  loop->desc = malloc((size_t)nargs * sizeof *loop->desc);
  if (!loop->key_blob || !loop->name || !loop->args || !loop->desc) {
    free(loop->key_blob), free(loop->name), free(loop->args), free(loop->desc), free(loop);
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  }
  memcpy(loop->key_blob, kernel, klen);
  memcpy(loop->key_blob + klen, keys, keys_len);
  memcpy(loop->args, args, (size_t)nargs * sizeof *args);
  loop->hash = hash;
  loop->name_key = op2_index_key(name, set);
  loop->set = set;
  loop->nargs = nargs;
  if (describe_args(name, nargs, args, loop->desc) != OP2_OK) {
    free(loop->key_blob), free(loop->name), free(loop->args), free(loop->desc), free(loop);
    return OP2_ERR_MEM;
  }
  loop->bytes_per_call = bytes_per_call(set, nargs, args, loop->desc);
  loop->const_generation = ctx->const_generation;
  loop->stats = op2_stats_for(ctx, name);
  if (ctx->backend->before_serial_work) ctx->backend->before_serial_work(ctx);
  /* Registered only once complete, so a kernel that fails to compile leaves nothing behind.
   * Backends with their own code generator (CUDA) build their kernel in prepare. */
  double t0 = op2_wall_seconds();
  int kernels_before = ctx->kernels.count;
  uint64_t source[2] = {0, 0};
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  /* a C kernel's parameters against the arguments (a compiled procedure's are its own) */
  int rc = !loop->stats ? OP2_ERR_MEM
           : op2_kernel_text_compiled(kernel)
               ? OP2_OK
               : op2_jit_report(ctx, op2_kernel_params_check(ctx->jit_engine, kernel, &d));
  if (rc == OP2_OK)
    rc = ctx->backend->host_kernels ? op2_loop_kernel(ctx, loop, kernel)
         : ctx->mpi.size > 1
             ? op2_jit_report(ctx, op2_jit_source_hash(ctx->jit_engine, &d, kernel, source))
             : OP2_OK;
  if (rc == OP2_OK && ctx->mpi.size > 1) {
    if (loop->kernel) op2_kernel_key(loop->kernel, source);
    make_rank_key(loop, source);
    if (ctx->kernels.count > kernels_before) rc = op2_mpi_node_kernel(ctx, loop->kernel);
  }
  /* A backend's own kernel (its prepare) is built at the loop's first call, once every rank has
   * agreed on the loop (par_loop.c): that build may be collective, so it must not start on some
   * ranks only. */
  if (rc == OP2_OK) loop->stats->jit_ms += 1e3 * (op2_wall_seconds() - t0);
  loop->writes_indirectly = needs_plan(nargs, loop->desc);
  if (rc == OP2_OK && ctx->mpi.size > 1) rc = op2_loop_mpi_scratch(loop);
  if (rc == OP2_OK && ctx->mpi.size > 1) { /* its calls' step name, made once */
    loop->step = malloc(sizeof *loop->step);
    if (!loop->step) rc = op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    if (loop->step) op2_mpi_step_name_make(loop->step, "op_par_loop", name);
  }
  if (ctx->mpi.size > 1) { /* core while messages travel, the rest, then the exec halo */
    int bounds[4] = {0, set->core_size, set->size, set->size + set->exec_size};
    loop->nphases = loop->writes_indirectly ? 3 : 2;
    for (int ph = 0; ph < loop->nphases; ph++)
      loop->phase_begin[ph] = bounds[ph], loop->phase_end[ph] = bounds[ph + 1];
  } else {
    loop->nphases = 1;
    loop->phase_begin[0] = 0, loop->phase_end[0] = set->size;
  }
  for (int ph = 0; rc == OP2_OK && loop->writes_indirectly && ph < loop->nphases; ph++)
    if (loop->phase_end[ph] > loop->phase_begin[ph])
      rc = op2_plan_get(ctx, loop, loop->phase_begin[ph], loop->phase_end[ph], &loop->plans[ph]);
  if (rc == OP2_OK) rc = op2_list_push(&ctx->loops, loop);
  if (rc != OP2_OK) {
    op2_loop_free(loop);
    return rc;
  }
  if (op2_index_add(&ctx->loops_by_hash, loop->hash, loop) != 0 ||
      op2_index_add(&ctx->loops_by_name, loop->name_key, loop) != 0)
    op2_loops_index_reset(ctx); /* rebuilt by the next lookup, or out of memory there */
  *out = loop;
  return OP2_OK;
}

void op2_loops_index_reset(op2_context *ctx) {
  op2_index_free(&ctx->loops_by_hash);
  op2_index_free(&ctx->loops_by_name);
}

/* The indexes hold exactly ctx->loops; rebuilt when they do not (reset, or emptied lists). */
static int loops_index_sync(op2_context *ctx) {
  size_t n = (size_t)ctx->loops.count;
  if (ctx->loops_by_hash.count == n && ctx->loops_by_name.count == n) return OP2_OK;
  op2_loops_index_reset(ctx);
  for (int i = 0; i < ctx->loops.count; i++) {
    op2_loop *l = ctx->loops.items[i];
    if (op2_index_add(&ctx->loops_by_hash, l->hash, l) != 0 ||
        op2_index_add(&ctx->loops_by_name, l->name_key, l) != 0) {
      op2_loops_index_reset(ctx);
      return op2_error(OP2_ERR_MEM, "op_par_loop: out of memory");
    }
  }
  return OP2_OK;
}

static void unindex_loop(op2_context *ctx, op2_loop *l) {
  op2_index_remove(&ctx->loops_by_hash, l->hash, l);
  op2_index_remove(&ctx->loops_by_name, l->name_key, l);
}

void op2_loop_free(op2_loop *l) {
  op2_tune_free(l);
  free(l->key_blob);
  free(l->name);
  free(l->args);
  free(l->desc);
  free(l->mpi_scratch);
  free(l->mpi_red_off);
  free(l->step);
  free(l);
}

static void list_remove_at(op2_ptr_list *l, int i) {
  memmove(&l->items[i], &l->items[i + 1], (size_t)(l->count - i - 1) * sizeof *l->items);
  l->count--;
}

void op2_loops_forget_dat(op2_context *ctx, op_dat dat) {
  /* sites name dats by address, a checked site without a loop too (loop_site.c): the dat's go,
   * with the loops they point at */
  op2_loop_sites_forget_dat(ctx, dat);
  for (int i = ctx->loops.count - 1; i >= 0; i--) {
    op2_loop *l = ctx->loops.items[i];
    bool uses = false;
    for (int a = 0; a < l->nargs && !uses; a++) uses = l->args[a].dat == dat;
    if (!uses) continue;
    if (ctx->backend->forget_loop) ctx->backend->forget_loop(ctx, l);
    unindex_loop(ctx, l);
    list_remove_at(&ctx->loops, i);
    op2_loop_free(l);
  }
}

static bool kernel_in_use(const op2_context *ctx, const op2_kernel *k) {
  for (int i = 0; i < ctx->loops.count; i++)
    if (((const op2_loop *)ctx->loops.items[i])->kernel == k) return true;
  return op2_kernel_upgrading(k); /* a background build still writes into it */
}

/* Once a constant has become live, the shapes of generations before that are superseded by
 * `fresh` (same kernel text, name, set and arguments): they are freed with their kernels unless
 * another loop still uses the kernel. Shapes of baked values stay (at most OP2_CONST_BAKED_VALUES
 * per constant) so that going back to a value reuses its kernel.
 * Only under backends whose calls finish before op_par_loop returns and that hold nothing of a
 * loop (a CUDA backend keeps the loop of a launch in flight, and its own kernel). */
static void free_superseded(op2_context *ctx, const op2_loop *fresh) {
  if (!ctx->backend->host_kernels) return;
  /* the loops of its name and set (the index), walked again after each removal */
  size_t pos = 0;
  for (op2_loop *l; (l = op2_index_next(&ctx->loops_by_name, fresh->name_key, &pos));) {
    if (l == fresh || l->const_generation >= ctx->const_live_generation || l->set != fresh->set ||
        l->backend_kernel || strcmp(l->name, fresh->name) != 0 || l->key_len != fresh->key_len ||
        memcmp(l->key_blob, fresh->key_blob, l->key_len) != 0)
      continue;
    int i = ctx->loops.count - 1;
    while (i >= 0 && ctx->loops.items[i] != l) i--; /* rare: a constant became live */
    op2_kernel *k = l->kernel;
    op2_loop_sites_clear(ctx); /* sites point at loops */
    unindex_loop(ctx, l);
    if (i >= 0) list_remove_at(&ctx->loops, i);
    op2_loop_free(l);
    pos = 0;
    for (int j = 0; k && !kernel_in_use(ctx, k) && j < ctx->kernels.count; j++)
      if (ctx->kernels.items[j] == k) {
        uint64_t key[2];
        op2_kernel_key(k, key);
        op2_index_remove(&ctx->kernels_by_key, key[0] ^ key[1], k);
        list_remove_at(&ctx->kernels, j);
        op2_kernel_free(k);
        break;
      }
  }
}

int op2_loop_lookup(op2_context *ctx, const op2_loop_call *call, op2_loop **out) {
  const char *kernel = call->kernel, *name = call->name;
  op_set set = call->set;
  int nargs = call->nargs;
  if (!kernel || !name || op2_args_untrusted(nargs, call->args)) return op2_validate_loop(call);
  arg_key small[16];
  arg_key *keys = nargs <= 16 ? small : malloc((size_t)nargs * sizeof *keys);
  if (!keys) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  make_arg_keys(nargs > 0 ? nargs : 0, call->args, keys);
  uint64_t hash = shape_hash(ctx, call, keys);
  size_t klen = strlen(kernel) + 1;
  int rc = loops_index_sync(ctx);
  *out = NULL;
  size_t pos = 0;
  for (op2_loop *l;
       rc == OP2_OK && !*out && (l = op2_index_next(&ctx->loops_by_hash, hash, &pos));) {
    if (l->hash == hash && l->set == set && l->nargs == nargs &&
        l->const_generation == ctx->const_generation && strcmp(l->name, name) == 0 &&
        l->key_len == klen + (size_t)nargs * sizeof *keys &&
        memcmp(l->key_blob, kernel, klen) == 0 &&
        memcmp(l->key_blob + klen, keys, (size_t)nargs * sizeof *keys) == 0)
      *out = l;
  }
  if (rc == OP2_OK && !*out) {
    rc = create_loop(ctx, call, hash, keys, out);
    if (rc == OP2_OK) free_superseded(ctx, *out);
  }
  if (keys != small) free(keys);
  return rc;
}
