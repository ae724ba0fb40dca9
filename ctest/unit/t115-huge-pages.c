/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_HUGE_PAGES: with `on` (the default) a dat or map of 4 MiB and more starts on a 2 MiB
 * boundary and its memory carries the kernel's huge-page advice (the `hg` flag of its mapping in
 * /proc/self/smaps); smaller arrays, and every array with `off`, do not. Either way an indirect
 * loop adds through the map exactly, and op_fetch_data gives the values back. Run with
 * OP2_BACKEND from meson. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "runtime/op2_impl.h"

enum { CELLS = 300000, EDGES = 600000, SMALL = 1000 };
#define HUGE_PAGE ((uintptr_t)2 << 20)

/* 1 when the mapping holding `p` is advised as huge pages, 0 when not; the mapping must exist. */
static int advised_huge(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  CHECK(f != NULL);
  char line[512];
  int inside = 0, found = 0, advised = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char dash;
    if (sscanf(line, "%lx%c%lx ", &lo, &dash, &hi) == 3 && dash == '-') {
      inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
      found |= inside;
    } else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
      advised = strstr(line, " hg") != NULL;
    }
  }
  fclose(f);
  CHECK(found);
  return advised;
}

static const char *scatter_src =
    "void scatter(const double *w, double *a, double *b) {\n"
    "  for (int k = 0; k < 4; k++) { a[k] += w[k]; b[k] += 2.0 * w[k]; }\n"
    "}\n";

static void run(const char *mode) {
  char opt[64];
  snprintf(opt, sizeof opt, "OP2_HUGE_PAGES=%s", mode);
  char *argv[] = {"t115", opt, NULL};
  op_init(2, argv, 0);
  const int on = strcmp(mode, "on") == 0;

  int *e2c = malloc(sizeof(int) * 2 * EDGES);
  double *w = malloc(sizeof(double) * 4 * EDGES);
  double *zero = calloc(4 * (size_t)CELLS, sizeof(double));
  double small[SMALL];
  CHECK(e2c && w && zero);
  for (int e = 0; e < EDGES; e++) {
    e2c[2 * e] = e / 2;
    e2c[2 * e + 1] = (e / 2 + 1) % CELLS;
    for (int k = 0; k < 4; k++) w[4 * e + k] = (double)((e * 7 + k) % 16); /* sums stay exact */
  }
  for (int i = 0; i < SMALL; i++) small[i] = i;

  op_set edges = op_decl_set(EDGES, "edges"), cells = op_decl_set(CELLS, "cells");
  op_set few = op_decl_set(SMALL, "few");
  op_map pecell = op_decl_map(edges, cells, 2, e2c, "pecell");      /* 4.8 MB */
  op_dat p_w = op_decl_dat(edges, 4, "double", w, "p_w");           /* 19.2 MB */
  op_dat p_acc = op_decl_dat(cells, 4, "double", zero, "p_acc");    /* 9.6 MB */
  op_dat p_small = op_decl_dat(few, 1, "double", small, "p_small"); /* 8 KB */

  /* A kernel built without transparent huge pages refuses the advice: then only the placement
   * and the results can be checked. */
  const int thp = access("/sys/kernel/mm/transparent_hugepage/enabled", R_OK) == 0;
  if (!thp)
    fprintf(stderr, "t115: this kernel has no transparent huge pages; advice not checked\n");
  const void *big[] = {pecell->values, p_w->data, p_acc->data};
  for (int i = 0; i < 3; i++) {
    if (thp) CHECK_EQ_INT(advised_huge(big[i]), on);
    if (on) CHECK_EQ_INT((uintptr_t)big[i] % HUGE_PAGE, 0);
    CHECK_EQ_INT((uintptr_t)big[i] % 64, 0);
  }
  if (thp) CHECK_EQ_INT(advised_huge(p_small->data), 0);

  op_par_loop(scatter_src, "scatter", edges, op_arg_dat(p_w, -1, OP_ID, 4, "double", OP_READ),
              op_arg_dat(p_acc, 0, pecell, 4, "double", OP_INC),
              op_arg_dat(p_acc, 1, pecell, 4, "double", OP_INC));
  double *want = calloc(4 * (size_t)CELLS, sizeof(double)),
         *got = malloc(sizeof(double) * 4 * CELLS);
  CHECK(want && got);
  for (int e = 0; e < EDGES; e++)
    for (int k = 0; k < 4; k++) {
      want[4 * e2c[2 * e] + k] += w[4 * e + k];
      want[4 * e2c[2 * e + 1] + k] += 2.0 * w[4 * e + k];
    }
  op_fetch_data(p_acc, got);
  CHECK(memcmp(got, want, sizeof(double) * 4 * CELLS) == 0);
  free(want);
  free(got);
  free(e2c);
  free(w);
  free(zero);
  op_exit();
}

int main(void) {
  run("on");
  run("off");
  return 0;
}
