/* SPDX-License-Identifier: BSD-3-Clause */
/* op_profile_*: OP2's named sections around an application's own phases. A section is known by
 * its path from the outermost one ("airfoil/iteration/update"); closing it adds its time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/mpi_state.h"
#include "runtime/output.h"
#include "runtime/distributed.h"
#include "runtime/chain.h"

enum { MAX_DEPTH = 32 };

typedef struct section {
  char *path;
  long calls;
  double total, min, max;
} section;

struct op2_profile {
  op2_ptr_list sections;      /* in the order they were first closed */
  int depth;                  /* sections open now */
  char *open_path[MAX_DEPTH]; /* their paths */
  double open_since[MAX_DEPTH];
};

static struct op2_profile *profile(const char *what) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init(what) != OP2_OK) return NULL;
  op2_chain_flush(ctx, what); /* a section times the loops called inside it */
  if (!ctx->profile && !(ctx->profile = calloc(1, sizeof *ctx->profile)))
    op2_error(OP2_ERR_MEM, "%s: out of memory", what);
  return ctx->profile;
}

static void open_section(struct op2_profile *p, const char *what, const char *name) {
  if (!name || !*name) {
    op2_error(OP2_ERR_ARG, "%s: the section name is %s", what, name ? "empty" : "NULL");
    return;
  }
  if (p->depth == MAX_DEPTH) {
    op2_error(OP2_ERR_STATE, "%s '%s': more than %d sections open (missing op_profile_exit?)", what,
              name, MAX_DEPTH);
    return;
  }
  const char *parent = p->depth ? p->open_path[p->depth - 1] : "";
  size_t len = strlen(parent) + strlen(name) + 2;
  char *path = malloc(len);
  if (!path) {
    op2_error(OP2_ERR_MEM, "%s '%s': out of memory", what, name);
    return;
  }
  snprintf(path, len, "%s%s%s", parent, p->depth ? "/" : "", name);
  p->open_path[p->depth] = path;
  p->open_since[p->depth++] = op2_wall_seconds();
}

static void close_section(struct op2_profile *p, const char *what) {
  if (p->depth == 0) {
    op2_error(OP2_ERR_STATE, "%s: no section is open", what);
    return;
  }
  char *path = p->open_path[--p->depth];
  double t = op2_wall_seconds() - p->open_since[p->depth];
  section *s = NULL;
  for (int i = 0; i < p->sections.count && !s; i++) {
    section *c = p->sections.items[i];
    if (strcmp(c->path, path) == 0) s = c;
  }
  if (s) {
    free(path);
  } else if (!(s = calloc(1, sizeof *s)) || op2_list_push(&p->sections, s) != OP2_OK) {
    free(s), free(path);
    op2_error(OP2_ERR_MEM, "%s: out of memory", what);
    return;
  } else {
    s->path = path;
    s->min = t;
  }
  s->calls++;
  s->total += t;
  if (t < s->min) s->min = t;
  if (t > s->max) s->max = t;
}

void op_profile_start(const char *name) {
  struct op2_profile *p = profile("op_profile_start");
  if (!p) return;
  if (p->depth) {
    op2_error(OP2_ERR_STATE, "op_profile_start '%s': profiling has already started",
              name ? name : "(null)");
    return;
  }
  open_section(p, "op_profile_start", name);
}

void op_profile_enter(const char *name) {
  struct op2_profile *p = profile("op_profile_enter");
  if (p) open_section(p, "op_profile_enter", name);
}

void op_profile_exit(void) {
  struct op2_profile *p = profile("op_profile_exit");
  if (p) close_section(p, "op_profile_exit");
}

void op_profile_next(const char *name) {
  struct op2_profile *p = profile("op_profile_next");
  if (!p) return;
  if (p->depth < 2) { /* the outermost section has no sibling */
    op2_error(OP2_ERR_STATE, "op_profile_next '%s': no section inside op_profile_start is open",
              name ? name : "(null)");
    return;
  }
  close_section(p, "op_profile_next");
  open_section(p, "op_profile_next", name);
}

void op_profile_end(void) {
  struct op2_profile *p = profile("op_profile_end");
  while (p && p->depth) close_section(p, "op_profile_end");
}

/* Under MPI every rank closed the same sections in the same order (one program): the slowest
 * rank's figures are printed. Collective; rank 0 prints. */
static int profile_output(op2_context *ctx, const struct op2_profile *p) {
  int n = p->sections.count;
  double *mine = calloc((size_t)n * 3 + 1, sizeof(double));
  double *worst = calloc((size_t)n * 3 + 1, sizeof(double));
  int rc = mine && worst ? OP2_OK : op2_error(OP2_ERR_MEM, "op_profile_output: out of memory");
  rc = op2_mpi_agree(ctx, rc, "op_profile_output"); /* before the reduction */
  for (int i = 0; rc == OP2_OK && i < n; i++) {
    const section *s = p->sections.items[i];
    mine[3 * i] = s->total, mine[3 * i + 1] = -s->min, mine[3 * i + 2] = s->max;
  }
  if (rc == OP2_OK) rc = op2_mpi_reduce_max_sum(ctx, mine, worst, NULL, 3 * n);
  if (rc == OP2_OK && ctx->mpi.rank == 0) {
    printf("\n  %-40s %8s %12s %12s %12s %12s\n", "section", "calls", "total (s)", "mean (s)",
           "min (s)", "max (s)");
    for (int i = 0; i < n; i++) {
      const section *s = p->sections.items[i];
      printf("  %-40s %8ld %12.6f %12.6f %12.6f %12.6f\n", s->path, s->calls, worst[3 * i],
             worst[3 * i] / (double)s->calls, -worst[3 * i + 1], worst[3 * i + 2]);
    }
    fflush(stdout);
  }
  free(mine), free(worst);
  return rc;
}

void op_profile_output(void) {
  if (op2_require_init("op_profile_output") != OP2_OK) return;
  op2_context *ctx = op2_ctx();
  op2_mpi_step(ctx, "op_profile_output");
  struct op2_profile *p = profile("op_profile_output"); /* NULL: out of memory, reported */
  op2_mpi_step_end(ctx, p ? profile_output(ctx, p) : OP2_ERR_MEM);
}

void op2_profile_free(op2_context *ctx) {
  struct op2_profile *p = ctx->profile;
  if (!p) return;
  for (int i = 0; i < p->sections.count; i++) {
    section *s = p->sections.items[i];
    free(s->path);
    free(s);
  }
  free(p->sections.items);
  for (int i = 0; i < p->depth; i++) free(p->open_path[i]);
  free(p);
  ctx->profile = NULL;
}
