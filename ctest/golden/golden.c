/* SPDX-License-Identifier: BSD-3-Clause */
/* Golden files of generated kernels: the C target and every CUDA strategy, for a direct loop, an
 * indirect-increment loop, a vector-map loop, an indirect read-write loop (op_arg_idx and a
 * switched-off optional argument too), a loop writing one dat through two maps and a loop with
 * global reductions and constants, a loop reading live constants (C pointers, CUDA __constant__
 * variables); and the SIMD variant of the C file for the direct, increment,
 * vector-map loops and a loop of integer and min/max reductions. Each
 * generated source is compared with its file under ctest/golden/; any difference fails the test
 * and is printed as a unified diff. Changes to generated code are made on purpose by
 * regenerating the files (`meson compile -C build update-golden`, or this program run with
 * OP2_GOLDEN_UPDATE=1) and show in review as diffs of those files.
 *
 * The files are named LOOP.c.golden and LOOP.STRATEGY.cu.golden: data to compare, not sources to
 * build or to search for repeated code.
 *
 * Usage: golden GOLDEN_DIR SCRATCH_DIR */
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <sys/stat.h>

#include "test.h"
#include "runtime/op2_impl.h"
#include "jit/emit.h"         /* the CUDA generator is built without the CUDA toolkit too */
#include "jit/jit_internal.h" /* white-box: the generators themselves */
#include "jit/kernel_lanes.h"

static const char *golden_dir, *scratch_dir;
static int updating, failures, checked;
static char written[64][128]; /* golden files this run produced, to find stale ones */
static int nwritten;

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = 2 * cap + 8192;
      char *grown = realloc(text, cap);
      CHECK(grown);
      text = grown;
    }
    size_t got = fread(text + len, 1, 4096, f);
    len += got;
    if (got < 4096) break;
  }
  fclose(f);
  text[len] = '\0';
  return text;
}

static void write_text(const char *path, const char *text) {
  FILE *f = fopen(path, "wb");
  if (!f) {
    fprintf(stderr, "golden: cannot write %s: %s\n", path, strerror(errno));
    exit(1);
  }
  CHECK(fwrite(text, 1, strlen(text), f) == strlen(text));
  CHECK(fclose(f) == 0);
}

/* The preludes and the parameter block are copied into every generated file verbatim: the golden
 * files show them as one line naming the template, so they hold what the code generator writes
 * and an edit of those templates (reviewed as itself) does not rewrite every golden file. */
static char *without_boilerplate(const char *generated) {
  static const char *boilerplate[] = {"c/prelude.h", "cuda/prelude.h", "cuda/params.h"};
  char *text = strdup(generated);
  CHECK(text);
  for (int i = 0; i < 3; i++) {
    char *tmpl = op2_template_load(op2_ctx()->jit_engine, boilerplate[i]);
    CHECK(tmpl);
    char *at = strstr(text, tmpl);
    if (at) {
      char marker[64];
      int n = snprintf(marker, sizeof marker, "/* template %s */\n", boilerplate[i]);
      size_t tlen = strlen(tmpl);
      CHECK((size_t)n <= tlen);
      memmove(at + n, at + tlen, strlen(at + tlen) + 1);
      memcpy(at, marker, (size_t)n);
    }
    free(tmpl);
  }
  return text;
}

/* Compares generated text with GOLDEN_DIR/file, or writes it there when updating. */
static void compare(const char *file, const char *generated) {
  char *text = without_boilerplate(generated);
  CHECK(nwritten < 64);
  snprintf(written[nwritten++], sizeof written[0], "%s", file);
  char golden[4096], actual[4096];
  snprintf(golden, sizeof golden, "%s/%s", golden_dir, file);
  snprintf(actual, sizeof actual, "%s/%s", scratch_dir, file);
  checked++;
  if (updating) {
    write_text(golden, text);
    printf("golden: wrote %s\n", golden);
    free(text);
    return;
  }
  char *expected = read_text(golden);
  if (expected && strcmp(expected, text) == 0) {
    free(expected), free(text);
    return;
  }
  failures++;
  write_text(actual, text);
  if (!expected) {
    fprintf(stderr, "golden: %s is missing; the generated text is in %s\n", golden, actual);
  } else {
    fprintf(stderr, "golden: generated %s differs from its golden file:\n", file);
    fflush(stderr);
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "diff -u '%s' '%s' 1>&2", golden, actual);
    CHECK(system(cmd) != -1);
    free(expected);
  }
  free(text);
}

static op2_loop *loop_named(const char *name) {
  test_run_queued(); /* lazy execution: a queued call makes its loop when it runs */
  op2_context *ctx = op2_ctx();
  for (int i = ctx->loops.count - 1; i >= 0; i--) {
    op2_loop *l = ctx->loops.items[i];
    if (strcmp(l->name, name) == 0) return l;
  }
  fprintf(stderr, "golden: loop %s not found\n", name);
  exit(1);
}

/* Device index arithmetic: a product of an element index (op2_n, a map value op2_iM_C, a staged
 * element from op2_gm, the plan's position count npos) and a dim, arity or slot count passes 2^31
 * on a large GPU (~537M cells of a 4-double dat), so every such product in generated CUDA must be
 * 64-bit: the index operand is cast to size_t. Products within a block (shared memory, local
 * indices) stay 32-bit. */
static void check_wide_indexing(const char *file, const char *source) {
  regex_t narrow;
  CHECK(regcomp(&narrow, "[0-9]+ \\* (op2_n[^a-z_0-9]|op2_i[0-9]|OP2_LDG\\(op2_gm|op2_p\\.npos)",
                REG_EXTENDED) == 0);
  regmatch_t m;
  for (const char *at = source; regexec(&narrow, at, 1, &m, 0) == 0; at += m.rm_eo) {
    fprintf(stderr, "golden: %s: 32-bit index product '%.*s'\n", file, (int)(m.rm_eo - m.rm_so),
            at + m.rm_so);
    failures++;
  }
  regfree(&narrow);
}

/* The loop's source for the C target and for each CUDA strategy it can run with; a strategy
 * that falls back to another one (a direct loop under any) is stored once. */
static void check_loop(const char *name) {
  op2_context *ctx = op2_ctx();
  op2_loop *loop = loop_named(name);
  char file[128];
  op2_generated gen;
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  CHECK_EQ_INT(op2_codegen_c(ctx->jit_engine, &d, loop->key_blob, &gen), OP2_OK);
  snprintf(file, sizeof file, "%s.c.golden", name);
  compare(file, gen.source.data);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  int done[4] = {0};
  for (int asked = OP2_CUDA_ATOMICS; asked <= OP2_CUDA_HIER; asked++) {
    op2_cuda_layout lay;
    CHECK_EQ_INT(op2_cuda_layout_make(&d, asked, &lay, NULL), OP2_OK);
    if (done[lay.strategy]++) continue;
    lay.max_threads = 256; /* OP2_CUDA_BLOCK_SIZE's default: __launch_bounds__(256) */
    CHECK_EQ_INT(op2_codegen_cuda(ctx->jit_engine, &d, loop->key_blob, &lay, &gen), OP2_OK);
    snprintf(file, sizeof file, "%s.%s.cu.golden", name, op2_cuda_strategy_name(lay.strategy));
    compare(file, gen.source.data);
    check_wide_indexing(file, gen.source.data);
    op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
  }
}

/* The loop's C source with the SIMD loop (OP2_SIMD not off), LOOP.simd.c.golden; the loop must
 * be one the SIMD strategy runs. */
static void check_simd(const char *name) {
  op2_loop *loop = loop_named(name);
  char file[128], why[300];
  op2_generated gen;
  op2_loop_desc d;
  op2_loop_describe(op2_ctx(), loop, &d);
  CHECK_EQ_INT(op2_codegen_c_simd(op2_ctx()->jit_engine, &d, loop->key_blob, &gen, why, sizeof why),
               OP2_OK);
  if (why[0]) fprintf(stderr, "golden: loop %s runs no SIMD groups: %s\n", name, why);
  CHECK(why[0] == '\0');
  snprintf(file, sizeof file, "%s.simd.c.golden", name);
  compare(file, gen.source.data);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
}

/* A loop the SIMD strategy must leave scalar: the reason names the argument, and the source has
 * no SIMD loop. */
static void check_simd_refused(const char *name, const char *reason) {
  op2_loop *loop = loop_named(name);
  char why[300];
  op2_generated gen;
  op2_loop_desc d;
  op2_loop_describe(op2_ctx(), loop, &d);
  CHECK_EQ_INT(op2_codegen_c_simd(op2_ctx()->jit_engine, &d, loop->key_blob, &gen, why, sizeof why),
               OP2_OK);
  if (!strstr(why, reason))
    fprintf(stderr, "golden: loop %s: expected '%s' in '%s'\n", name, reason, why);
  CHECK(strstr(why, reason) != NULL);
  CHECK(strstr(gen.source.data, "OP2_SIMD_GATHER") == NULL);
  op2_buf_free(&gen.source), op2_buf_free(&gen.signature);
}

/* OP2_SIMD=auto's cost rule for groups of `width`: NULL when the loop should run in groups, else
 * a part of the reason it stays scalar. */
static void check_simd_pays(const char *name, int width, const char *reason) {
  op2_loop *loop = loop_named(name);
  char why[400] = "";
  op2_loop_desc d;
  op2_loop_describe(op2_ctx(), loop, &d);
  op2_buf copy = {0};
  const op2_kernel_facts *facts = op2_kernel_facts_of(op2_ctx()->jit_engine, loop->key_blob, name);
  CHECK(facts != NULL);
  uint64_t lanes = op2_kernel_lanes(facts, op2_simd_lanes_wanted(&d), &copy);
  op2_buf_free(&copy);
  int rc = op2_simd_pays(&d, facts, lanes, width, why, sizeof why);
  if (reason ? rc == 0 || !strstr(why, reason) : rc != 0)
    fprintf(stderr, "golden: loop %s: cost rule gave %d '%s', expected '%s'\n", name, rc, why,
            reason ? reason : "(groups)");
  CHECK(reason ? rc != 0 && strstr(why, reason) != NULL : rc == 0);
}

/* Golden files no case produced any more: a removed case must remove its file. */
static void find_stale(void) {
  DIR *d = opendir(golden_dir);
  CHECK(d);
  for (struct dirent *e; (e = readdir(d));) {
    size_t len = strlen(e->d_name);
    if (len < 7 || strcmp(e->d_name + len - 7, ".golden")) continue;
    int known = 0;
    for (int i = 0; i < nwritten; i++) known |= !strcmp(written[i], e->d_name);
    if (!known) {
      fprintf(stderr, "golden: %s/%s is not generated by any case (remove it)\n", golden_dir,
              e->d_name);
      failures++;
    }
  }
  closedir(d);
}

static const char direct_src[] =
    "void direct(const double *a, double *b, const int *step) {\n"
    "  b[0] = a[0] * a[1] + *step;\n"
    "}\n";
static const char inc_src[] =
    "void edge_inc(const double *x0, const double *x1, const double *w, double *r0, double *r1) {\n"
    "  double f = w[0] * (x1[0] - x0[0]);\n"
    "  r0[0] += f;\n"
    "  r1[0] -= f;\n"
    "  r0[1] += x0[1];\n"
    "  r1[1] += x1[1];\n"
    "}\n";
/* r0[0] gets two additions: summed in the lane first, they would round otherwise than the
 * scalar loop's two additions to the row */
static const char twice_src[] =
    "void edge_twice(const double *x0, double *r0, double *r1) {\n"
    "  r0[0] += x0[0];\n"
    "  r1[1] += x0[1];\n"
    "  r0[0] += x0[1];\n"
    "}\n";
/* one double per element: the scatter is the scalar loop's own add, and the branch a blend */
static const char upwind_src[] =
    "void edge_upwind(const double *u0, const double *u1, const double *w, double *r0, "
    "double *r1) {\n"
    "  double f = w[0] > 0.0 ? w[0] * u0[0] : w[0] * u1[0];\n"
    "  *r0 -= f;\n"
    "  *r1 += f;\n"
    "}\n";
static const char upwind_twice_src[] =
    "void edge_upwind_twice(const double *u0, double *r0, double *r1) {\n"
    "  *r0 -= u0[0];\n"
    "  *r1 += u0[0];\n"
    "  *r0 += 0.5 * u0[0];\n"
    "}\n";
/* MG-CFD's flux shape (issue 34): rows of 5 doubles, components named by the text's macros, a
 * conditional block in the body; each component gets one addition */
static const char flux5_src[] =
    "#define V_RHO 0\n"
    "#define V_MOM 1\n"
    "#define V_E (V_MOM + 3)\n"
    "void flux5(const double *u0, const double *u1, const double *w, double *r0, double *r1) {\n"
    "  double s = w[0] * (u1[V_RHO] - u0[V_RHO]);\n"
    "#ifdef V_HALF\n"
    "  s *= 0.5;\n"
    "#endif\n"
    "  r0[V_RHO] += s;\n"
    "  r1[V_RHO] -= s;\n"
    "  r0[V_MOM + 0] += u0[V_MOM];\n"
    "  r0[V_MOM + 1] += u0[V_MOM + 1];\n"
    "  r0[V_MOM + 2] += u0[(V_MOM + 2)];\n"
    "  r1[V_MOM] -= u1[V_MOM];\n"
    "  r1[V_MOM + 1] -= u1[V_MOM + 1];\n"
    "  r1[V_MOM + 2] -= u1[V_MOM + 2];\n"
    "  r0[V_E] += s * u0[V_E];\n"
    "  r1[V_E] += s * u1[V_E];\n"
    "}\n";
/* the same, but V_E names component 3 as V_MOM + 2 does: r0[3] gets two additions */
static const char flux5_twice_src[] =
    "#define V_MOM 1\n"
    "#define V_E (V_MOM + 2)\n"
    "void flux5_twice(const double *u0, double *r0, double *r1) {\n"
    "  r0[V_MOM + 2] += u0[0];\n"
    "  r1[0] += u0[1];\n"
    "  r0[V_E] += u0[2];\n"
    "}\n";
static const char vector_src[] =
    "void cell_vec(const double **x, double **r, double *q) {\n"
    "  for (int k = 0; k < 4; k++) {\n"
    "    r[k][0] += q[0] * x[k][1];\n"
    "    r[k][1] += x[k][0];\n"
    "  }\n"
    "}\n";
static const char rw_src[] =
    "void node_rw(double *n0, const double *n1, const int *idx, double *unused) {\n"
    "  n0[0] = MAX(n0[0], n1[0]) + *idx;\n"
    "  (void)unused;\n"
    "}\n";
static const char two_maps_src[] =
    "void two_maps(double *a, double *b, const double *w) {\n"
    "  *a += w[0];\n"
    "  *b += 2.0 * w[0];\n"
    "}\n";
static const char read_inc_src[] = "void read_inc(const double *a, double *b) { b[0] += a[1]; }\n";
static const char reduce_lanes_src[] =
    "void reduce_lanes(const double *a, const int *step, int *count, int *lo, float *hi) {\n"
    "  if (a[0] > 0.0) *count += *step;\n"
    "  if ((int)a[0] < *lo) *lo = (int)a[0];\n"
    "  if ((float)a[0] > *hi) *hi = (float)a[0];\n"
    "}\n";
static const char reduce_src[] =
    "void reduce(const double *a, const double *n0, double *sum, int *lo, float *hi) {\n"
    "  sum[0] += a[0] * gamma_ + n0[0];\n"
    "  sum[1] += coeffs[1] * a[0];\n"
    "  if ((int)a[0] < *lo) *lo = (int)a[0];\n"
    "  if ((float)n0[0] > *hi) *hi = (float)n0[0];\n"
    "}\n";

/* reads constants that have changed too often to be baked: read at run time */
static const char live_src[] =
    "void live(const double *x, double *n) { n[0] = dt * x[0] + band[1] * gamma_; }\n";

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: golden GOLDEN_DIR SCRATCH_DIR\n");
    return 2;
  }
  golden_dir = argv[1], scratch_dir = argv[2];
  updating = getenv("OP2_GOLDEN_UPDATE") && strcmp(getenv("OP2_GOLDEN_UPDATE"), "0");
  if (mkdir(scratch_dir, 0700) && errno != EEXIST) {
    fprintf(stderr, "golden: cannot create %s: %s\n", scratch_dir, strerror(errno));
    return 1;
  }
  op_init(1, argv, 0);
  enum { NN = 6, NE = 5, NC = 2 };
  int e2n[2 * NE] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 5};
  int c2n[4 * NC] = {0, 1, 2, 3, 2, 3, 4, 5};
  op_set nodes = op_decl_set(NN, "nodes"), edges = op_decl_set(NE, "edges");
  op_set cells = op_decl_set(NC, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, e2n, "pedge");
  op_map pcell = op_decl_map(cells, nodes, 4, c2n, "pcell");
  int e2n_other[NE] = {5, 0, 4, 1, 3};
  op_map pother = op_decl_map(edges, nodes, 1, e2n_other, "pother");
  op_dat x = op_decl_dat(nodes, 2, "double", NULL, "x");
  op_dat r = op_decl_dat(nodes, 2, "double", NULL, "r");
  op_dat n = op_decl_dat(nodes, 1, "double", NULL, "n");
  op_dat w = op_decl_dat(edges, 1, "double", NULL, "w");
  op_dat q = op_decl_dat(cells, 1, "double", NULL, "q");
  op_dat u5 = op_decl_dat(nodes, 5, "double", NULL, "u5");
  op_dat r5 = op_decl_dat(nodes, 5, "double", NULL, "r5");
  op_dat nb = op_decl_dat(nodes, 1, "double", NULL, "nb");
  double gamma_ = 1.4, coeffs[2] = {0.5, 0.25};
  op_decl_const(1, "double", &gamma_, "gamma_");
  op_decl_const(2, "double", coeffs, "coeffs");
  int step = 2, lo = 1 << 30;
  double sum[2] = {0, 0};
  float hi = -1.0f;

  op_par_loop(direct_src, "direct", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(n, -1, OP_ID, 1, "double", OP_WRITE),
              op_arg_gbl(&step, 1, "int", OP_READ));
  op_par_loop(
      inc_src, "edge_inc", edges, op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
      op_arg_dat(x, 1, pedge, 2, "double", OP_READ), op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(r, 0, pedge, 2, "double", OP_INC), op_arg_dat(r, 1, pedge, 2, "double", OP_INC));
  op_par_loop(twice_src, "edge_twice", edges, op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(r, 0, pedge, 2, "double", OP_INC),
              op_arg_dat(r, 1, pedge, 2, "double", OP_INC));
  op_par_loop(
      upwind_src, "edge_upwind", edges, op_arg_dat(n, 0, pedge, 1, "double", OP_READ),
      op_arg_dat(n, 1, pedge, 1, "double", OP_READ), op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
      op_arg_dat(nb, 0, pedge, 1, "double", OP_INC), op_arg_dat(nb, 1, pedge, 1, "double", OP_INC));
  op_par_loop(
      upwind_twice_src, "edge_upwind_twice", edges, op_arg_dat(n, 0, pedge, 1, "double", OP_READ),
      op_arg_dat(nb, 0, pedge, 1, "double", OP_INC), op_arg_dat(nb, 1, pedge, 1, "double", OP_INC));
  op_par_loop(flux5_src, "flux5", edges, op_arg_dat(u5, 0, pedge, 5, "double", OP_READ),
              op_arg_dat(u5, 1, pedge, 5, "double", OP_READ),
              op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(r5, 0, pedge, 5, "double", OP_INC),
              op_arg_dat(r5, 1, pedge, 5, "double", OP_INC));
  op_par_loop(flux5_twice_src, "flux5_twice", edges, op_arg_dat(u5, 0, pedge, 5, "double", OP_READ),
              op_arg_dat(r5, 0, pedge, 5, "double", OP_INC),
              op_arg_dat(r5, 1, pedge, 5, "double", OP_INC));
  op_par_loop(vector_src, "cell_vec", cells, op_arg_dat(x, -4, pcell, 2, "double", OP_READ),
              op_arg_dat(r, -4, pcell, 2, "double", OP_INC),
              op_arg_dat(q, -1, OP_ID, 1, "double", OP_READ));
  op_par_loop(rw_src, "node_rw", edges, op_arg_dat(n, 0, pedge, 1, "double", OP_RW),
              op_arg_dat(nb, 1, pedge, 1, "double", OP_READ), op_arg_idx(1, pedge),
              op_opt_arg_dat(0, nb, 0, pedge, 1, "double", OP_WRITE));
  op_par_loop(two_maps_src, "two_maps", edges, op_arg_dat(n, 0, pedge, 1, "double", OP_RW),
              op_arg_dat(n, 0, pother, 1, "double", OP_INC),
              op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ));
  op_par_loop(reduce_src, "reduce", edges, op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(n, 0, pedge, 1, "double", OP_READ), op_arg_gbl(sum, 2, "double", OP_INC),
              op_arg_gbl(&lo, 1, "int", OP_MIN), op_arg_gbl(&hi, 1, "float", OP_MAX));

  int count = 0;
  op_par_loop(read_inc_src, "read_inc", edges, op_arg_dat(r, 0, pedge, 2, "double", OP_READ),
              op_arg_dat(r, 1, pedge, 2, "double", OP_INC));
  op_par_loop(reduce_lanes_src, "reduce_lanes", edges,
              op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ), op_arg_gbl(&step, 1, "int", OP_READ),
              op_arg_gbl(&count, 1, "int", OP_INC), op_arg_gbl(&lo, 1, "int", OP_MIN),
              op_arg_gbl(&hi, 1, "float", OP_MAX));

  /* dt and band take a third value: live (C reads them through pointers, CUDA from
   * __constant__ variables); gamma_ stays baked */
  for (int v = 1; v <= 3; v++) {
    double dt = 0.125 * v, band[2] = {v, 2.0 * v};
    op_decl_const(1, "double", &dt, "dt");
    op_decl_const(2, "double", band, "band");
  }
  op_par_loop(live_src, "live", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(n, -1, OP_ID, 1, "double", OP_WRITE));

  const char *names[] = {"direct", "edge_inc", "cell_vec", "node_rw", "two_maps", "reduce", "live"};
  for (int i = 0; i < 7; i++) check_loop(names[i]);
  /* SIMD (optimised tier): direct, indirect increments, vector maps, reductions */
  const char *simd_names[] = {"direct", "edge_inc", "cell_vec", "reduce_lanes", "flux5"};
  for (int i = 0; i < 5; i++) check_simd(simd_names[i]);
  check_simd_refused("node_rw", "argument 0 writes through a map (OP_RW)");
  check_simd_refused("read_inc", "arguments 0 and 1 reach the same dat");
  check_simd_refused("reduce", "argument 2 is a floating-point OP_INC reduction");
  check_simd_pays("direct", 8, NULL);
  check_simd_pays("reduce_lanes", 8, NULL);
  /* increments through a map: groups only where whole rows move (8 or 4 lanes, dim 2 to 16) */
  check_simd_pays("edge_inc", 8, NULL);
  check_simd_pays("edge_inc", 4, NULL);
  check_simd_pays("edge_inc", 2, "argument 3 adds through a map (OP_INC)");
  check_simd_pays("edge_inc", 16, "argument 3 adds through a map (OP_INC)");
  check_simd_pays("cell_vec", 8, "argument 1 adds through a map (OP_INC)");
  /* rows of other lengths move whole too (4 components at a time, then one by one), and
   * components named by macros count as literals do */
  check_simd_pays("flux5", 8, NULL);
  check_simd_pays("flux5", 4, NULL);
  check_simd_pays("flux5", 2, "argument 3 adds through a map (OP_INC)");
  check_simd_pays("flux5_twice", 8,
                  "argument 1 adds through a map (OP_INC) and the kernel may add");
  /* or where each element adds one double per map column (the scalar loop's own scatter) */
  check_simd_pays("edge_upwind", 8, NULL);
  check_simd_pays("edge_upwind", 4, NULL);
  /* and only where the kernel provably adds as the scalar loop does (bit for bit) */
  check_simd_pays("edge_twice", 8, "argument 1 adds through a map (OP_INC) and the kernel may add");
  check_simd_pays("edge_twice", 4, "argument 1 adds through a map (OP_INC) and the kernel may add");
  check_simd_pays("edge_upwind_twice", 8,
                  "argument 1 adds through a map (OP_INC) and the kernel may add");
  if (!updating) find_stale();
  op_exit();
  if (updating) return 0;
  if (failures)
    fprintf(stderr,
            "golden: %d of %d generated files differ. If the change is intended, regenerate "
            "them (meson compile -C build update-golden) and commit the new files.\n",
            failures, checked);
  else
    printf("golden: %d generated files match\n", checked);
  return failures ? 1 : 0;
}
