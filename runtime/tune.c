/* SPDX-License-Identifier: BSD-3-Clause */
/* Persistent auto-tuning (OP2_TUNE). Once a loop's final code is in (no optimised build pending),
 * its first calls run on a few candidate parameter sets, REPS calls each in round robin; the
 * fastest (by the minimum of its calls) is kept and stored as a small JSON record under ROOT/tune/,
 * keyed by the loop's signature, its set size band and the machine, so a later run starts with it
 * and tunes nothing. Trial calls are real calls: every candidate computes the loop correctly.
 *
 * What is tuned is the backend's (its op2_backend's tune_candidates, tune_apply and
 * tune_describe; docs/TUNING.md): nothing on seq, the bitwise reference; on openmp a planned
 * loop's layout and part size; on the CUDA backends threads per block. Each candidate changes
 * only which thread runs an element or the reduction tree: results within rounding. A loop that
 * writes (OP_WRITE, OP_RW) through a map is never tuned: two elements updating one target in
 * another order can differ beyond rounding. Under MPI nothing is tuned. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "base/file_io.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/loop.h"
#include "runtime/tune.h"
#include "runtime/backend.h"
#include "jit/jit.h"

enum {
  REPS = 3,           /* calls per candidate; the minimum counts */
  MAX_CANDIDATES = 8, /* at most */
  MIN_SET = 4096,     /* smaller loops run on one thread: nothing to gain */
  MAX_RECORD = 65536, /* bytes */
  RECORD_VERSION = 1
};
/* A candidate must beat the default by this factor to be chosen: timing noise never is. */
#define MARGIN 0.97

typedef enum { WAITING, TRYING } tune_state;

struct op2_tune {
  tune_state state;
  int ncand, cur, reps;
  op2_tune_params cand[MAX_CANDIDATES];
  double best[MAX_CANDIDATES]; /* seconds, the fastest call of each */
  double sum[MAX_CANDIDATES];  /* seconds, all calls of each */
  uint64_t signature;
  int band;
  char path[OP2_PATH_BUF]; /* the record, or "" when records cannot be kept */
};

static void machine_cpu(op2_context *ctx) {
  if (ctx->tune.cpu[0]) return;
  snprintf(ctx->tune.cpu, sizeof ctx->tune.cpu, "unknown");
  FILE *f = fopen("/proc/cpuinfo", "r");
  char line[512];
  while (f && fgets(line, sizeof line, f)) {
    char *colon = strchr(line, ':');
    if (strncmp(line, "model name", 10) != 0 || !colon) continue;
    colon += 1 + (colon[1] == ' ');
    colon[strcspn(colon, "\n")] = 0;
    snprintf(ctx->tune.cpu, sizeof ctx->tune.cpu, "%s", colon);
    break;
  }
  if (f) fclose(f);
}

static int machine_threads(const op2_context *ctx) {
  return op2_backend_threads(ctx);
}

/* ROOT/tune, created when the cache is writable; "" when records cannot be kept there safely. */
static void tune_dir(op2_context *ctx, char *out, size_t len) {
  out[0] = 0;
  const char *root = op2_jit_cache_root(ctx->jit_engine);
  if (!root) return;
  char dir[OP2_PATH_BUF];
  snprintf(dir, sizeof dir, "%s/tune", root);
  if (ctx->opt.cache_mode == OP2_CACHE_ON && mkdir(dir, 0700) != 0 && errno != EEXIST) {
    op2_diag(1, "auto-tuning: cannot create %s: %s; no records kept", dir, strerror(errno));
    return;
  }
  struct stat st;
  if (lstat(dir, &st) != 0) return;
  if (!S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 022)) {
    op2_diag(1, "auto-tuning: %s is not a private directory of ours; no records kept", dir);
    return;
  }
  snprintf(out, len, "%s", dir);
}

int op2_tune_init(op2_context *ctx) {
  if (ctx->opt.tune != OP2_TUNE_RESET || ctx->opt.cache_mode != OP2_CACHE_ON) return OP2_OK;
  char dir[OP2_PATH_BUF];
  tune_dir(ctx, dir, sizeof dir);
  DIR *d = dir[0] ? opendir(dir) : NULL;
  int removed = 0;
  for (struct dirent *de; d && (de = readdir(d)) != NULL;) {
    size_t n = strlen(de->d_name);
    if (n < 6 || strcmp(de->d_name + n - 5, ".json") != 0) continue;
    if (unlinkat(dirfd(d), de->d_name, 0) == 0) removed++;
  }
  if (d) closedir(d);
  op2_diag(1, "auto-tuning: OP2_TUNE=reset removed %d record%s from %s", removed,
           removed == 1 ? "" : "s", dir[0] ? dir : "(no tuning directory)");
  return OP2_OK;
}

/* Whether a loop writes (not increments) through a map: its result depends on element order. */
static bool writes_through_map(const op2_loop *loop) {
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind == OP2_ARG_DAT && !d->opt_off && d->map_arity &&
        (d->acc == OP_WRITE || d->acc == OP_RW))
      return true;
  }
  return false;
}

/* The candidates of a loop on this backend, the default first; fewer than 2: nothing to tune. */
static int candidates(const op2_context *ctx, const op2_loop *loop, op2_tune_params *c,
                      const char **why) {
  int n = 0;
  c[n++] = (op2_tune_params){0, 0, 0};
  if (ctx->mpi.size > 1) return *why = "not under MPI", 0;
  if (loop->set->size < MIN_SET) return *why = "set too small", 0;
  if (writes_through_map(loop)) return *why = "writes through a map (order-dependent)", 0;
  if (ctx->backend->tune_candidates)
    n += ctx->backend->tune_candidates(ctx, loop, c + n, MAX_CANDIDATES - n);
  *why = n < 2 ? "no parameter of this backend applies" : NULL;
  return n;
}

static void describe(const op2_context *ctx, const op2_loop *loop, char *out, size_t len) {
  if (ctx->backend->tune_describe)
    ctx->backend->tune_describe(ctx, loop, out, len);
  else
    snprintf(out, len, "default");
}

/* Puts a candidate in use: the backend's parameters (a plan it builds counts as tuning work). */
static int apply(op2_context *ctx, op2_loop *loop, const op2_tune_params *c) {
  double t0 = op2_wall_seconds();
  loop->params = *c;
  if (ctx->backend->tune_apply) OP2_CALL(ctx->backend->tune_apply(ctx, loop));
  loop->stats->tune_ms += 1e3 * (op2_wall_seconds() - t0);
  return OP2_OK;
}

static uint64_t signature(const char *kernel, const op2_loop *loop) {
  XXH64_hash_t h = XXH3_64bits(kernel, strlen(kernel) + 1);
  h = XXH3_64bits_withSeed(loop->name, strlen(loop->name) + 1, h);
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    int f[9] = {d->kind,      d->acc,       d->type,      d->dim,    d->idx,
                d->map_arity, d->map_group, d->dat_group, d->opt_off};
    h = XXH3_64bits_withSeed(f, sizeof f, h);
  }
  return h;
}

/* The record's path: the loop's name (letters, digits, _) and a hash of the whole key. */
static void record_path(op2_context *ctx, struct op2_tune *t, const op2_loop *loop) {
  char dir[OP2_PATH_BUF];
  tune_dir(ctx, dir, sizeof dir);
  if (!dir[0]) return;
  char key[512], name[65];
  int n = snprintf(key, sizeof key, "%016llx|%d|%s|%d|%s", (unsigned long long)t->signature,
                   t->band, ctx->tune.cpu, machine_threads(ctx), ctx->backend->name);
  size_t k = 0;
  for (const char *s = loop->name; *s && k < sizeof name - 1; s++)
    name[k++] =
        (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_';
  name[k] = 0;
  snprintf(t->path, sizeof t->path, "%s/%s-%016llx.json", dir, name,
           (unsigned long long)XXH3_64bits(key, n > 0 ? (size_t)n : 0));
}

/* The record's text, or NULL (missing, unsafe or too large: *why says which; its code stays
 * OP2_OK when there is none). */
static char *read_record(const char *path, op2_jit_error *why) {
  /* O_NONBLOCK: a FIFO planted as a record must not block the open (the fstat refuses it). */
  int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno != ENOENT) op2_jit_error_set(why, OP2_ERR_IO, "cannot open it: %s", strerror(errno));
    return NULL;
  }
  struct stat st;
  char *text = NULL;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    op2_jit_error_set(why, OP2_ERR_IO, "not a regular file");
  else if (st.st_uid != geteuid() || (st.st_mode & 022))
    op2_jit_error_set(why, OP2_ERR_IO, "not owned by us, or writable by others");
  else if (st.st_size > MAX_RECORD)
    op2_jit_error_set(why, OP2_ERR_IO, "larger than %d bytes", MAX_RECORD);
  else if ((text = calloc(1, (size_t)st.st_size + 1)) != NULL &&
           read(fd, text, (size_t)st.st_size) != st.st_size) {
    op2_jit_error_set(why, OP2_ERR_IO, "cannot read it");
    free(text), text = NULL;
  }
  close(fd);
  return text;
}

static int json_int(const cJSON *o, const char *name, int *out) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  if (!cJSON_IsNumber(v) || v->valuedouble != floor(v->valuedouble) || fabs(v->valuedouble) > 1e9)
    return 0;
  *out = (int)v->valuedouble;
  return 1;
}

static int json_str_is(const cJSON *o, const char *name, const char *want) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(v) && strcmp(v->valuestring, want) == 0;
}

/* The record's choice, when it is a record of this loop, band and machine naming one of this
 * run's candidates; otherwise -1 and *why says why. */
static int parse_record(op2_context *ctx, const struct op2_tune *t, const op2_loop *loop,
                        const char *text, op2_jit_error *why) {
  cJSON *root = cJSON_Parse(text);
  const cJSON *choice = cJSON_GetObjectItemCaseSensitive(root, "choice");
  char sig[17];
  snprintf(sig, sizeof sig, "%016llx", (unsigned long long)t->signature);
  int version = 0, band = -1, threads = 0, found = -1;
  op2_tune_params c = {0, 0, 0};
  if (!cJSON_IsObject(root) || !json_int(root, "op2_tune", &version) || version != RECORD_VERSION)
    op2_jit_error_set(why, OP2_ERR_IO, "not a tuning record of this version");
  else if (!json_str_is(root, "loop", loop->name) || !json_str_is(root, "signature", sig) ||
           !json_int(root, "band", &band) || band != t->band)
    op2_jit_error_set(why, OP2_ERR_IO, "a record of another loop or set size");
  else if (!json_str_is(root, "cpu", ctx->tune.cpu) ||
           !json_str_is(root, "backend", ctx->backend->name) ||
           !json_int(root, "threads", &threads) || threads != machine_threads(ctx))
    op2_jit_error_set(why, OP2_ERR_IO, "a record of another machine, backend or thread count");
  else if (!cJSON_IsObject(choice) || !json_int(choice, "part_size", &c.part_size) ||
           !json_int(choice, "coloured", &c.coloured) ||
           !json_int(choice, "block_size", &c.block_size))
    op2_jit_error_set(why, OP2_ERR_IO, "no valid choice in it");
  for (int i = 0; why->code == OP2_OK && i < t->ncand; i++)
    if (memcmp(&t->cand[i], &c, sizeof c) == 0) found = i;
  if (why->code == OP2_OK && found < 0)
    op2_jit_error_set(why, OP2_ERR_IO, "its choice is not a candidate of this run");
  cJSON_Delete(root);
  return found;
}

static cJSON *params_json(const op2_tune_params *c) {
  cJSON *o = cJSON_CreateObject();
  cJSON_AddNumberToObject(o, "part_size", c->part_size);
  cJSON_AddNumberToObject(o, "coloured", c->coloured);
  cJSON_AddNumberToObject(o, "block_size", c->block_size);
  return o;
}

static void write_record(op2_context *ctx, const struct op2_tune *t, const op2_loop *loop,
                         int chosen) {
  if (!t->path[0] || ctx->opt.cache_mode != OP2_CACHE_ON) return;
  char sig[17], text_desc[96];
  snprintf(sig, sizeof sig, "%016llx", (unsigned long long)t->signature);
  describe(ctx, loop, text_desc, sizeof text_desc);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddNumberToObject(root, "op2_tune", RECORD_VERSION);
  cJSON_AddStringToObject(root, "loop", loop->name);
  cJSON_AddStringToObject(root, "signature", sig);
  cJSON_AddNumberToObject(root, "band", t->band);
  cJSON_AddNumberToObject(root, "set_size", loop->set->size);
  cJSON_AddStringToObject(root, "cpu", ctx->tune.cpu);
  cJSON_AddNumberToObject(root, "threads", machine_threads(ctx));
  cJSON_AddStringToObject(root, "backend", ctx->backend->name);
  cJSON_AddItemToObject(root, "choice", params_json(&t->cand[chosen]));
  cJSON_AddStringToObject(root, "description", text_desc);
  cJSON *trials = cJSON_AddArrayToObject(root, "trials");
  for (int i = 0; i < t->ncand; i++) {
    cJSON *o = params_json(&t->cand[i]);
    cJSON_AddNumberToObject(o, "best_ms", 1e3 * t->best[i]);
    cJSON_AddItemToArray(trials, o);
  }
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  op2_jit_error err;
  if (!text || op2_write_file_atomic(t->path, text, strlen(text), &err) != OP2_OK)
    op2_diag(1, "auto-tuning: record of loop '%s' not written: %s", loop->name,
             text ? err.msg : "out of memory");
  else
    ctx->tune.records_written++;
  free(text);
}

/* Tuning of this loop is over: its parameters stay as they are now. */
static void finish(op2_context *ctx, op2_loop *loop, op2_tune_source source) {
  loop->tune_done = true;
  op2_tune_free(loop);
  op2_loop_stats *s = loop->stats;
  s->tune_source = source;
  s->tune_params = loop->params;
  describe(ctx, loop, s->tune_text, sizeof s->tune_text);
}

/* A loop's first call: its record, or its candidates, tried once its final code is in. */
static int start(op2_context *ctx, op2_loop *loop, const char *kernel) {
  struct op2_tune *t = calloc(1, sizeof *t);
  if (!t) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  const char *why = NULL;
  t->ncand = candidates(ctx, loop, t->cand, &why);
  if (t->ncand < 2) {
    free(t);
    op2_diag(2, "auto-tuning: loop '%s' not tuned: %s", loop->name, why);
    finish(ctx, loop, OP2_TUNED_NOT);
    return OP2_OK;
  }
  loop->tune = t;
  double t0 = op2_wall_seconds();
  machine_cpu(ctx);
  t->signature = signature(kernel, loop);
  for (long n = loop->set->size; n > 1; n >>= 1) t->band++;
  record_path(ctx, t, loop);
  op2_jit_error reason = {.code = OP2_OK};
  char *text = t->path[0] ? read_record(t->path, &reason) : NULL;
  int chosen = text ? parse_record(ctx, t, loop, text, &reason) : -1;
  free(text);
  loop->stats->tune_ms += 1e3 * (op2_wall_seconds() - t0);
  if (reason.code != OP2_OK) {
    ctx->tune.records_ignored++;
    op2_diag(1, "auto-tuning: record %s ignored (%s); tuning loop '%s' again", t->path, reason.msg,
             loop->name);
  }
  if (chosen < 0) return OP2_OK; /* WAITING */
  ctx->tune.records_read++;
  OP2_CALL(apply(ctx, loop, &t->cand[chosen]));
  finish(ctx, loop, OP2_TUNED_RECORD);
  return OP2_OK;
}

int op2_tune_before(op2_context *ctx, op2_loop *loop, const char *kernel, const op2_kernel *k) {
  if (!loop->tune) {
    OP2_CALL(start(ctx, loop, kernel));
    if (loop->tune_done) return OP2_OK;
  }
  /* Trials time the code that will stay: not TinyCC's while the optimised build is on its way. */
  if (loop->tune->state == WAITING && !(k && op2_kernel_upgrading(k))) {
    loop->tune->state = TRYING;
    return apply(ctx, loop, &loop->tune->cand[0]);
  }
  return OP2_OK;
}

int op2_tune_after(op2_context *ctx, op2_loop *loop, double seconds) {
  struct op2_tune *t = loop->tune;
  if (!t || t->state != TRYING) return OP2_OK;
  loop->stats->tune_calls++;
  ctx->tune.trial_calls++;
  t->sum[t->cur] += seconds;
  if (t->reps == 0 || seconds < t->best[t->cur]) t->best[t->cur] = seconds;
  /* Round robin over the candidates, REPS rounds: a burst of load on a shared machine then
   * slows one call of several candidates instead of every call of one. */
  if (++t->cur < t->ncand) return apply(ctx, loop, &t->cand[t->cur]);
  t->cur = 0;
  if (++t->reps < REPS) return apply(ctx, loop, &t->cand[0]);
  int chosen = 0;
  for (int i = 1; i < t->ncand; i++)
    if (t->best[i] < MARGIN * t->best[0] && t->best[i] < t->best[chosen]) chosen = i;
  OP2_CALL(apply(ctx, loop, &t->cand[chosen]));
  double t0 = op2_wall_seconds();
  write_record(ctx, t, loop, chosen);
  loop->stats->tune_ms += 1e3 * (op2_wall_seconds() - t0);
  ctx->tune.loops_tuned++;
  /* What tuning cost the run: its trial calls beyond the same calls on the chosen parameters
   * (at the mean of the chosen's own trial calls: load on a shared machine hits both). */
  double excess = -(double)t->ncand * t->sum[chosen];
  for (int i = 0; i < t->ncand; i++) excess += t->sum[i];
  loop->stats->tune_excess_ms = excess > 0 ? 1e3 * excess : 0;
  op2_diag(1, "auto-tuning: loop '%s': candidate %d of %d chosen (%.3f ms against %.3f ms)",
           loop->name, chosen + 1, t->ncand, 1e3 * t->best[chosen], 1e3 * t->best[0]);
  finish(ctx, loop, OP2_TUNED_NOW);
  return OP2_OK;
}

void op2_tune_free(op2_loop *loop) {
  free(loop->tune);
  loop->tune = NULL;
}
