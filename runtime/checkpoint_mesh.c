/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh a checkpoint belongs to, as text: one line per set (name, size), map (name, sets,
 * dim, xxHash of its values) and dat (name, set, dim, type), in declaration order. Map values
 * are hashed in the user's numbering (set->orig undone), so a renumbering run (OP2_RENUMBER)
 * matches its own checkpoint, while another mesh of the same sizes (renumbered by the user, or
 * different) does not: its data restored by index would be another mesh's. Under MPI each rank
 * holds part of each map: the ranks hash it together (op2_mpi_map_fingerprint, collective, so
 * every rank makes this summary at the same point), and set sizes, known globally only once
 * distributed, are left out. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "runtime/checkpoint.h"
#include "runtime/distributed.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"

typedef struct text {
  char *s;
  size_t len, cap;
  int failed;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(text *t, const char *fmt, ...) {
  char line[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (t->failed || n < 0) return;
  size_t k = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
  if (t->len + k + 1 > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 1024;
    while (cap < t->len + k + 1) cap *= 2;
    char *s = realloc(t->s, cap);
    if (!s) {
      t->failed = 1;
      return;
    }
    t->s = s, t->cap = cap;
  }
  memcpy(t->s + t->len, line, k + 1);
  t->len += k;
}

/* XXH3 of the map's rows in the user's order, each value the user's index of its target. */
static int map_hash(op_map m, uint64_t *out) {
  size_t n = (size_t)m->from->size, dim = (size_t)m->dim;
  const idx_g_t *from = m->from->orig, *to = m->to->orig;
  if (!from && !to) return *out = XXH3_64bits(m->values, n * dim * sizeof(int)), 0;
  int *rows = malloc(n * dim * sizeof(int) + 1);
  if (!rows) return -1;
  for (size_t e = 0; e < n; e++)
    for (size_t j = 0; j < dim; j++) {
      int v = m->values[e * dim + j];
      rows[(size_t)(from ? from[e] : (idx_g_t)e) * dim + j] = to && v >= 0 ? (int)to[v] : v;
    }
  *out = XXH3_64bits(rows, n * dim * sizeof(int));
  free(rows);
  return 0;
}

char *op2_ckpt_mesh_summary(op2_context *ctx) {
  text t = {0};
  int distributed = ctx->mpi.size > 1, hash_failed = 0;
  for (int i = 0; i < ctx->sets.count; i++) {
    op_set s = ctx->sets.items[i];
    if (distributed) /* sizes are known globally only once distributed, which a restart that
                      * replayed every call has not yet done */
      add(&t, "set '%s'\n", s->name);
    else
      add(&t, "set '%s' of %d elements\n", s->name, s->size);
  }
  for (int i = 0; i < ctx->maps.count; i++) {
    op_map m = ctx->maps.items[i];
    uint64_t h = 0;
    if (distributed) /* every rank, every map, also after a failure: it is collective */
      hash_failed |= op2_mpi_map_fingerprint(ctx, m, &h) != OP2_OK;
    else if (op2_map_check(m, "a checkpoint's mesh", true) != OP2_OK)
      hash_failed = 1; /* reported */
    else if (map_hash(m, &h) != 0)
      t.failed = 1;
    add(&t, "map '%s' from '%s' to '%s', dim %d, values %016llx\n", m->name, m->from->name,
        m->to->name, m->dim, (unsigned long long)h);
  }
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat d = ctx->dats.items[i];
    add(&t, "dat '%s' on '%s', dim %d, %s\n", d->decl_name, d->set->name, d->dim,
        op2_type_name(d->type));
  }
  if (t.failed || hash_failed) {
    free(t.s);
    if (!hash_failed) /* (a failed hash was reported) */
      op2_error(OP2_ERR_MEM, "checkpoint: out of memory describing the mesh");
    return NULL;
  }
  return t.s ? t.s : strdup("");
}

/* The first line of `a` that `b` lacks, into out (without its newline). */
static int first_missing(const char *a, const char *b, char *out, size_t len) {
  for (const char *p = a; *p;) {
    size_t n = strcspn(p, "\n");
    int found = 0;
    for (const char *q = b; *q && !found;) {
      size_t k = strcspn(q, "\n");
      found = k == n && strncmp(p, q, n) == 0;
      q += k + (q[k] != '\0');
    }
    if (!found) return snprintf(out, len, "%.*s", (int)n, p), 1;
    p += n + (p[n] != '\0');
  }
  return 0;
}

int op2_ckpt_mesh_check(const char *file, const char *saved, const char *now) {
  if (strcmp(saved, now) == 0) return OP2_OK;
  char here[600] = "", there[600] = "";
  int h = first_missing(now, saved, here, sizeof here);
  int s = first_missing(saved, now, there, sizeof there);
  return op2_error(OP2_ERR_STATE,
                   "restart from checkpoint %s: it was written for another mesh: %s%s%s%s%s (the "
                   "checkpoint's data would be restored onto other elements); restart with the "
                   "mesh, numbering and declarations of the run that wrote it",
                   file, s ? "the checkpoint has " : "", there, s && h ? ", " : "",
                   h ? "this run has " : "",
                   h ? here : (s ? "" : "its declarations differ in order"));
}
