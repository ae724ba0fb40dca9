/* SPDX-License-Identifier: BSD-3-Clause */
/* The log of loop calls a checkpoint carries: which loop ran at each position, and the values its
 * global reductions (OP_INC, OP_MIN, OP_MAX, and op_arg_info) returned. A restarted run checks its
 * calls against it and gets the same reduction values without running the loops. */
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/checkpoint.h"
#include "runtime/error.h"
#include "runtime/options.h"
#include "runtime/mesh.h"

static int returns_values(const op_arg *a) {
  return a->kind == OP2_ARG_GBL && a->opt && a->data &&
         (a->acc == OP_INC || a->acc == OP_MIN || a->acc == OP_MAX || (int)a->acc == OP2_ACC_INFO);
}

/* Bytes a reduction argument returns; 0 for an unknown type (validation reports it). */
static size_t value_bytes(const op_arg *a) {
  op2_type t;
  if (a->dim < 1 || op2_type_parse(a->type, &t) != OP2_OK) return 0;
  return (size_t)a->dim * op2_type_size(t);
}

static void hash_text(XXH3_state_t *st, const char *s) {
  XXH3_64bits_update(st, s ? s : "", s ? strlen(s) + 1 : 1);
}

uint64_t op2_ckpt_loop_hash(const char *name, op_set set, int nargs, const op_arg *args) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  hash_text(&st, name);
  hash_text(&st, set ? set->name : NULL);
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &args[i];
    int fields[5] = {a->kind, a->opt != 0, a->idx, a->dim, (int)a->acc};
    XXH3_64bits_update(&st, fields, sizeof fields);
    hash_text(&st, a->kind == OP2_ARG_DAT && a->dat ? a->dat->decl_name : NULL);
    hash_text(&st, a->map ? a->map->name : NULL);
    hash_text(&st, a->type);
  }
  return XXH3_64bits_digest(&st);
}

static int name_index(op2_ckpt_log *log, const char *name) {
  for (int i = 0; i < log->nnames; i++)
    if (strcmp(log->names[i], name) == 0) return i;
  char **names = realloc(log->names, sizeof *names * ((size_t)log->nnames + 1));
  if (!names) return -1;
  log->names = names;
  if (!(names[log->nnames] = strdup(name))) return -1;
  return log->nnames++;
}

static int grow_calls(op2_ckpt_log *log) {
  if (log->count < log->capacity) return OP2_OK;
  long cap = log->capacity ? 2 * log->capacity : 256;
  uint64_t *hash = realloc(log->hash, sizeof *hash * (size_t)cap);
  if (hash) log->hash = hash;
  int *name_id = realloc(log->name_id, sizeof *name_id * (size_t)cap);
  if (name_id) log->name_id = name_id;
  size_t *red_end = realloc(log->red_end, sizeof *red_end * (size_t)cap);
  if (red_end) log->red_end = red_end;
  if (!hash || !name_id || !red_end) return OP2_ERR_MEM;
  log->capacity = cap;
  return OP2_OK;
}

static int grow_values(op2_ckpt_log *log, size_t more) {
  if (log->red_len + more <= log->red_cap) return OP2_OK;
  size_t cap = log->red_cap ? log->red_cap : 1024;
  while (cap < log->red_len + more) cap *= 2;
  char *red = realloc(log->red, cap);
  if (!red) return OP2_ERR_MEM;
  log->red = red;
  log->red_cap = cap;
  return OP2_OK;
}

int op2_ckpt_log_append(op2_ckpt_log *log, const char *name, uint64_t hash, int nargs,
                        const op_arg *args) {
  size_t bytes = 0;
  for (int i = 0; i < nargs; i++)
    if (returns_values(&args[i])) bytes += value_bytes(&args[i]);
  int id = name_index(log, name);
  if (id < 0 || grow_calls(log) != OP2_OK || grow_values(log, bytes) != OP2_OK)
    return op2_error(OP2_ERR_MEM, "checkpoint log: out of memory at loop '%s'", name);
  for (int i = 0; i < nargs; i++)
    if (returns_values(&args[i])) {
      size_t b = value_bytes(&args[i]);
      memcpy(log->red + log->red_len, args[i].data, b);
      log->red_len += b;
    }
  log->hash[log->count] = hash;
  log->name_id[log->count] = id;
  log->red_end[log->count] = log->red_len;
  log->count++;
  return OP2_OK;
}

int op2_ckpt_log_replay(const op2_ckpt_log *log, long pos, const char *file, const char *name,
                        uint64_t hash, int nargs, const op_arg *args) {
  if (pos < 0 || pos >= log->count)
    return op2_error(OP2_ERR_STATE,
                     "restart from checkpoint %s: loop call %ld ('%s') is beyond the %ld calls "
                     "it logged",
                     file, pos, name, log->count);
  const char *logged = log->names[log->name_id[pos]];
  if (strcmp(logged, name) != 0)
    return op2_error(OP2_ERR_STATE,
                     "restart from checkpoint %s: loop call %ld is '%s' in this run but was '%s' "
                     "in the run that wrote it (a different program or input)",
                     file, pos, name, logged);
  if (log->hash[pos] != hash)
    return op2_error(OP2_ERR_STATE,
                     "restart from checkpoint %s: loop call %ld ('%s') has other arguments (set, "
                     "dats, maps, dims, types or access) than in the run that wrote it",
                     file, pos, name);
  size_t at = pos ? log->red_end[pos - 1] : 0, bytes = 0;
  for (int i = 0; i < nargs; i++)
    if (returns_values(&args[i])) bytes += value_bytes(&args[i]);
  if (at + bytes != log->red_end[pos])
    return op2_error(OP2_ERR_STATE,
                     "restart from checkpoint %s: loop call %ld ('%s') returns %zu reduction "
                     "bytes here but logged %zu",
                     file, pos, name, bytes, log->red_end[pos] - at);
  for (int i = 0; i < nargs; i++)
    if (returns_values(&args[i])) {
      size_t b = value_bytes(&args[i]);
      memcpy(args[i].data, log->red + at, b);
      at += b;
    }
  return OP2_OK;
}

void op2_ckpt_log_free(op2_ckpt_log *log) {
  for (int i = 0; i < log->nnames; i++) free(log->names[i]);
  free(log->names);
  free(log->hash);
  free(log->name_id);
  free(log->red_end);
  free(log->red);
  memset(log, 0, sizeof *log);
}

/* ---- serialised form: fixed-width little-endian-as-stored fields, lengths checked ---- */

/* Version 2 adds the mesh summary after the reduction values; version 1 is still read. */
static const char log_magic[8] = "OP2LOG2", log_magic_v1[8] = "OP2LOG1";

typedef struct writer {
  char *buf;
  size_t len, cap;
  int failed;
} writer;

static void put(writer *w, const void *p, size_t n) {
  if (w->failed) return;
  if (w->len + n > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n) cap *= 2;
    char *b = realloc(w->buf, cap);
    if (!b) {
      w->failed = 1;
      return;
    }
    w->buf = b;
    w->cap = cap;
  }
  memcpy(w->buf + w->len, p, n);
  w->len += n;
}

static void put_i64(writer *w, int64_t v) {
  put(w, &v, sizeof v);
}

int op2_ckpt_log_serialise(const op2_ckpt_log *log, const op2_ckpt_meta *meta, char **out,
                           size_t *len) {
  writer w = {0};
  put(&w, log_magic, sizeof log_magic);
  put_i64(&w, meta->ranks);
  put_i64(&w, meta->position);
  put_i64(&w, meta->number);
  put_i64(&w, log->nnames);
  for (int i = 0; i < log->nnames; i++) put(&w, log->names[i], strlen(log->names[i]) + 1);
  put_i64(&w, log->count);
  for (long c = 0; c < log->count; c++) {
    put(&w, &log->hash[c], sizeof log->hash[c]);
    put_i64(&w, log->name_id[c]);
    put_i64(&w, (int64_t)log->red_end[c]);
  }
  put_i64(&w, (int64_t)log->red_len);
  put(&w, log->red ? log->red : "", log->red_len);
  const char *mesh = meta->mesh ? meta->mesh : "";
  put_i64(&w, (int64_t)strlen(mesh));
  put(&w, mesh, strlen(mesh));
  if (w.failed) {
    free(w.buf);
    return op2_error(OP2_ERR_MEM, "checkpoint: out of memory for the loop log");
  }
  *out = w.buf;
  *len = w.len;
  return OP2_OK;
}

typedef struct reader {
  const char *p;
  size_t left;
} reader;

static int take(reader *r, void *out, size_t n) {
  if (n > r->left) return 0;
  memcpy(out, r->p, n);
  r->p += n;
  r->left -= n;
  return 1;
}

static int take_i64(reader *r, int64_t lo, int64_t hi, int64_t *out) {
  return take(r, out, sizeof *out) && *out >= lo && *out <= hi;
}

static int parse(reader *r, op2_ckpt_log *log, op2_ckpt_meta *meta) {
  char magic[8];
  int64_t ranks, position, number, nnames, count, len;
  if (!take(r, magic, sizeof magic)) return 0;
  int v1 = memcmp(magic, log_magic_v1, sizeof magic) == 0;
  if (!v1 && memcmp(magic, log_magic, sizeof magic) != 0) return 0;
  meta->mesh = NULL;
  if (!take_i64(r, 1, 1 << 24, &ranks) || !take_i64(r, 0, INT64_MAX, &position) ||
      !take_i64(r, 0, INT64_MAX, &number) || !take_i64(r, 0, (int64_t)r->left, &nnames))
    return 0;
  meta->ranks = (long)ranks;
  meta->position = (long)position;
  meta->number = (long)number;
  if (nnames && !(log->names = calloc((size_t)nnames, sizeof *log->names))) return 0;
  for (int64_t i = 0; i < nnames; i++) {
    size_t n = strnlen(r->p, r->left);
    if (n == r->left || !(log->names[i] = strdup(r->p))) return 0;
    log->nnames++;
    r->p += n + 1;
    r->left -= n + 1;
  }
  if (!take_i64(r, 0, (int64_t)(r->left / 24), &count)) return 0;
  log->capacity = (long)count;
  log->hash = malloc(sizeof *log->hash * (size_t)(count + 1));
  log->name_id = malloc(sizeof *log->name_id * (size_t)(count + 1));
  log->red_end = malloc(sizeof *log->red_end * (size_t)(count + 1));
  if (!log->hash || !log->name_id || !log->red_end) return 0;
  int64_t prev_end = 0;
  for (int64_t c = 0; c < count; c++) {
    int64_t id, end;
    if (!take(r, &log->hash[c], sizeof log->hash[c]) || !take_i64(r, 0, nnames - 1, &id) ||
        !take_i64(r, prev_end, INT64_MAX, &end))
      return 0;
    log->name_id[c] = (int)id;
    log->red_end[c] = (size_t)(prev_end = end);
  }
  log->count = (long)count;
  if (!take_i64(r, prev_end, prev_end, &len) || (size_t)len > r->left ||
      (v1 && (size_t)len != r->left))
    return 0;
  log->red = malloc((size_t)len + 1);
  if (!log->red || !take(r, log->red, (size_t)len)) return 0;
  log->red_len = log->red_cap = (size_t)len;
  if (!v1) {
    int64_t mesh_len;
    if (!take_i64(r, 0, (int64_t)r->left, &mesh_len) || (size_t)mesh_len != r->left ||
        !(meta->mesh = malloc((size_t)mesh_len + 1)))
      return 0;
    memcpy(meta->mesh, r->p, (size_t)mesh_len);
    meta->mesh[mesh_len] = '\0';
    r->left = 0;
  }
  return position == count;
}

int op2_ckpt_log_parse(const char *bytes, size_t len, const char *file, op2_ckpt_log *log,
                       op2_ckpt_meta *meta) {
  reader r = {bytes, len};
  memset(log, 0, sizeof *log);
  meta->mesh = NULL;
  if (parse(&r, log, meta)) return OP2_OK;
  free(meta->mesh);
  meta->mesh = NULL;
  op2_ckpt_log_free(log);
  return op2_error(OP2_ERR_IO,
                   "checkpoint %s: its loop log (dataset 'op2_checkpoint') is malformed", file);
}
