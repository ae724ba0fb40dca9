/* SPDX-License-Identifier: BSD-3-Clause */
/* Which strategy a loop gets, by default and when asked (OP2_CUDA_STRATEGY), and what the
 * generated CUDA source is: run on the emulator with NVRTC checking every kernel for sm_90, then
 * the .cu, .ptx, .cubin and manifest in the cache are read back. A second op_init with the same
 * loops builds nothing new. Each loop's results must match plain C in every case. */
#include <dirent.h>

#include "random_mesh.h"
#include "runtime/cuda/cuda.h"

enum { NE = 5000, NN = 1300 };

static const double factor = 3.0; /* also declared to OP2: baked into the kernel */
static const double weights[2] = {0.5, 0.25};
KERNEL(
    scale, static void scale(const double *a, double *b) { b[0] = a[0] * factor + 1.0; })
KERNEL(
    spread, static void spread(const double *w, double *n0, double *n1) {
      n0[0] += w[0];
      n1[0] += 2.0 * w[0];
    })
KERNEL(
    upmax, static void upmax(const double *w, double *n0, double *n1) {
      n0[0] = MAX(n0[0], w[0]);
      n1[0] = MAX(n1[0], -w[0]);
    })
static const char gather_src[] =
    "static void gather(const double *x0, const double *x1, double *g) {\n"
    "  g[0] = sqrt(fabs(x0[0] - x1[0])) + weights[1];\n"
    "}\n";

static int entries(const char *dir, const char *prefix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) n += !strncmp(e->d_name, prefix, strlen(prefix));
  closedir(d);
  return n;
}

/* The text of the first file matching DIR/PREFIX*\/NAME (malloc'ed), or NULL. */
static char *entry_file(const char *dir, const char *prefix, const char *name, size_t *len) {
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char *text = NULL;
  for (struct dirent *e; !text && (e = readdir(d));) {
    if (strncmp(e->d_name, prefix, strlen(prefix))) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", dir, e->d_name, name);
    FILE *f = fopen(path, "rb");
    if (!f) continue;
    text = rm_alloc(1 << 20);
    *len = fread(text, 1, (1 << 20) - 1, f);
    text[*len] = '\0';
    fclose(f);
  }
  closedir(d);
  return text;
}

static int run(const char *strategy, int expect[4]) {
  setenv("OP2_CUDA_STRATEGY", strategy, 1);
  char *argv[] = {"t600", "OP2_BACKEND=cuda-emu", NULL};
  op_init(2, argv, 0);
  op_decl_const(1, "double", &factor, "factor");
  op_decl_const(2, "double", weights, "weights");
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 600);
  unsigned rng = rm_rng(6001);
  double *w = rm_doubles(NE, 0, 1, &rng), *x = rm_doubles(NN, -1, 1, &rng);
  double *want = rm_alloc(NN * sizeof *want), *got = rm_alloc(NN * sizeof *got);
  double *ge = rm_alloc(NE * sizeof *ge), *gw = rm_alloc(NE * sizeof *gw);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dx = op_decl_dat(m.nodes, 1, "double", x, "x");
  op_dat dn = op_decl_dat(m.nodes, 1, "double", NULL, "n");
  op_dat dg = op_decl_dat(m.edges, 1, "double", NULL, "g");
  op_par_loop(scale_src, "scale", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dg, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dg, ge);
  for (int e = 0; e < NE; e++) scale(w + e, gw + e);
  rm_check_same(ge, gw, NE, sizeof *ge, "scale");
  op_par_loop(spread_src, "spread", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dn, 0, m.pedge, 1, "double", OP_INC),
              op_arg_dat(dn, 1, m.pedge, 1, "double", OP_INC));
  for (int e = 0; e < NE; e++)
    spread(w + e, want + m.edge_nodes[2 * e], want + m.edge_nodes[2 * e + 1]);
  op_fetch_data(dn, got);
  rm_check_near(got, want, NN, 1e-12, "spread");
  op_par_loop(upmax_src, "upmax", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(dn, 0, m.pedge, 1, "double", OP_RW),
              op_arg_dat(dn, 1, m.pedge, 1, "double", OP_RW));
  for (int e = 0; e < NE; e++)
    upmax(w + e, want + m.edge_nodes[2 * e], want + m.edge_nodes[2 * e + 1]);
  op_fetch_data(dn, got);
  rm_check_near(got, want, NN, 1e-12, "upmax");
  op_par_loop(gather_src, "gather", m.edges, op_arg_dat(dx, 0, m.pedge, 1, "double", OP_READ),
              op_arg_dat(dx, 1, m.pedge, 1, "double", OP_READ),
              op_arg_dat(dg, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(dg, ge);
  for (int e = 0; e < NE; e++)
    gw[e] = sqrt(fabs(x[m.edge_nodes[2 * e]] - x[m.edge_nodes[2 * e + 1]])) + weights[1];
  rm_check_same(ge, gw, NE, sizeof *ge, "gather");
  const char *names[4] = {"scale", "spread", "upmax", "gather"};
  for (int i = 0; i < 4; i++) {
    int got_s = op2_cuda_loop_strategy(names[i]);
    if (got_s != expect[i]) {
      fprintf(stderr, "strategy %s, loop %s: runs %s, expected %s\n", strategy, names[i],
              op2_cuda_strategy_name(got_s), op2_cuda_strategy_name(expect[i]));
      exit(1);
    }
  }
  free(w), free(x), free(want), free(got), free(ge), free(gw);
  rm_mesh_free(&m);
  int kernels = rm_kernels_obtained();
  op_exit();
  return kernels;
}

int main(void) {
  setenv("OP2_CUDA_EMU_VERIFY", "sm_90", 1);
  const char *cache = getenv("OP2_CACHE_DIR");
  CHECK(cache != NULL);
  int D = OP2_CUDA_DIRECT, A = OP2_CUDA_ATOMICS, G = OP2_CUDA_GLOBAL, H = OP2_CUDA_HIER;
  /* default: INC only (or nothing written) through maps -> atomics, RW through a map ->
   * hierarchical; atomics asked for RW -> global; global asked with nothing to colour -> atomics */
  run("auto", (int[]){D, A, H, A});
  run("atomics", (int[]){D, A, G, A});
  run("global", (int[]){D, G, G, A});
  run("hierarchical", (int[]){D, H, H, H});
  int spread_entries = entries(cache, "spread-");
  run("hierarchical", (int[]){D, H, H, H}); /* again: everything from the cache */
  CHECK_EQ_INT(entries(cache, "spread-"), spread_entries);

  size_t len;
  char *cu = entry_file(cache, "scale-", "scale.cu", &len);
  CHECK(cu != NULL);
  CHECK_CONTAINS(cu, "#line 1 \"kernel:scale\"");
  CHECK_CONTAINS(cu, "static const double factor = 0x1.8p+1"); /* 3.0, exactly */
  CHECK_CONTAINS(cu,
                 "OP2_EXTERN_C __global__ void OP2_LAUNCH_BOUNDS op2_cuda_kernel(op2_cuda_params "
                 "op2_p)");
  /* compiled for the block size it runs with (OP2_CUDA_BLOCK_SIZE, default 256) */
  CHECK_CONTAINS(cu, "#define OP2_LAUNCH_BOUNDS OP2_BOUNDS(256)");
  CHECK_CONTAINS(cu, "strategy direct");
  CHECK(!strstr(cu, "#include"));
  free(cu);
  cu = entry_file(cache, "gather-", "gather.cu", &len);
  CHECK(cu != NULL);
  CHECK_CONTAINS(cu, "static __constant__ const double weights[2]");
  free(cu);
  char *ptx = entry_file(cache, "spread-", "spread.ptx", &len);
  CHECK(ptx != NULL);
  CHECK_CONTAINS(ptx, ".target sm_90");
  CHECK_CONTAINS(ptx, ".entry op2_cuda_kernel");
  free(ptx);
  char *man = entry_file(cache, "spread-", "manifest.json", &len);
  CHECK(man != NULL);
  free(man);
  char *bin = entry_file(cache, "upmax-", "upmax.cubin", &len);
  CHECK(bin != NULL && len > 4 &&
        !memcmp(bin,
                "\x7f"
                "ELF",
                4));
  free(bin);
  return 0;
}
