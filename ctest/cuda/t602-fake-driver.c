/* SPDX-License-Identifier: BSD-3-Clause */
/* The real CUDA backend (OP2_BACKEND=cuda) against a fake driver table with the driver's own
 * signatures: everything up to the driver is the production path (NVRTC builds a real CUBIN, the
 * disk cache stores it), and the fake records what reaches the driver. Device memory is host
 * memory, so uploads and downloads can be checked by content, and a "launch" stands in for the
 * kernel by writing known values. Checks: the architecture follows the device; dats are uploaded
 * once and kept resident; op_fetch_data downloads only a dat a loop wrote, and only once; grid,
 * block and shared memory sizes per strategy; plan arrays in live device memory; block partials
 * of reductions combined on the host; shared memory beyond the default opted in; a failing driver
 * call becomes an error naming the call; op_exit frees every allocation. */
#include <cuda.h>
#include <stdint.h>

#include <dirent.h>
#include <unistd.h>

#include "random_mesh.h"
#include "runtime/cuda/cuda.h"
#include "jit/jit_internal.h" /* white-box: cache keys and manifests */

/* Each call runs before the driver's counts are read: lazy execution (the default) would
 * queue it until a later call needs its results. */
#define run_par_loop(kernel, name, set, ...)     \
  do {                                           \
    op_par_loop(kernel, name, set, __VA_ARGS__); \
    test_run_queued();                           \
  } while (0)

enum { MAX_ALLOCS = 4096, MAX_LAUNCHES = 512 };

typedef struct launch_rec {
  unsigned grid, block, smem;
  op2_cuda_params p;
} launch_rec;

static struct fake {
  struct {
    char *p;
    size_t bytes;
    int live;
  } a[MAX_ALLOCS];
  int nallocs;
  long htod, dtoh;
  size_t htod_bytes, dtoh_bytes;
  launch_rec l[MAX_LAUNCHES];
  int nlaunches;
  int loads, unloads, retained, released, func_attr;
  int syncs;       /* cuCtxSynchronize calls */
  int max_threads; /* what a function reports as its threads per block limit (0: 1024) */
  int refuse_cubin, refuse_ptx; /* cuModuleLoadData refuses these images */
  int ptx_loads;
  int func_attr_value;
  int fail_alloc; /* the next cuMemAlloc fails */
  int smem_default, smem_optin;
  int ndevices;
  double write_value; /* what a launch writes into argument 1 of a direct loop */
  int write_direct;
  int registers, static_smem; /* what functions report of themselves */
  int host_allocs, host_live; /* cuMemHostAlloc */
  /* __constant__ variables: one device allocation per (module, name), `global_bytes` long */
  struct {
    CUmodule mod;
    char name[64];
    int alloc;
  } g[16];
  int nglobals, get_global, global_bytes;
  long const_copies; /* host-to-device copies into them */
} F;

static int live_allocs(void) {
  int n = 0;
  for (int i = 0; i < F.nallocs; i++) n += F.a[i].live;
  return n;
}

/* The allocation holding [p, p + bytes), or -1. */
static int find_alloc(const void *p, size_t bytes) {
  for (int i = 0; i < F.nallocs; i++)
    if (F.a[i].live && (const char *)p >= F.a[i].p &&
        (const char *)p + bytes <= F.a[i].p + F.a[i].bytes)
      return i;
  return -1;
}

static CUresult f_init(unsigned int flags) {
  return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
static CUresult f_count(int *n) {
  return *n = F.ndevices, CUDA_SUCCESS;
}
static CUresult f_device(CUdevice *d, int ordinal) {
  return *d = 0, ordinal ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}
static CUresult f_attribute(int *v, CUdevice_attribute a, CUdevice d) {
  (void)d;
  if (a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)
    *v = 8;
  else if (a == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)
    *v = 6;
  else if (a == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)
    *v = F.smem_default;
  else if (a == CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
    *v = F.smem_optin;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
static CUresult f_name(char *s, int len, CUdevice d) {
  (void)d;
  snprintf(s, (size_t)len, "fake");
  return CUDA_SUCCESS;
}
static CUresult f_retain(CUcontext *c, CUdevice d) {
  (void)d;
  F.retained++;
  *c = (CUcontext)&F;
  return CUDA_SUCCESS;
}
static CUresult f_release(CUdevice d) {
  (void)d;
  F.released++;
  return CUDA_SUCCESS;
}
static CUresult f_set_current(CUcontext c) {
  return c == (CUcontext)&F ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
static CUresult f_sync(void) {
  F.syncs++;
  return CUDA_SUCCESS;
}
static CUresult f_load(CUmodule *m, const void *image) {
  const unsigned char *b = image;
  int elf = b[0] == 0x7f && b[1] == 'E' && b[2] == 'L' && b[3] == 'F';
  int ptx = !elf && strstr(image, ".entry op2_cuda_kernel") && strstr(image, ".target sm_86");
  if (!elf && !ptx) return CUDA_ERROR_INVALID_IMAGE;
  if (elf && F.refuse_cubin) return CUDA_ERROR_NO_BINARY_FOR_GPU;
  if (ptx && F.refuse_ptx) return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
  F.ptx_loads += ptx;
  F.loads++;
  *m = (CUmodule)(uintptr_t)(0x1000 + F.loads);
  return CUDA_SUCCESS;
}
static CUresult f_unload(CUmodule m) {
  for (int i = 0; i < F.nglobals; i++) /* its __constant__ variables go with it */
    if (F.g[i].mod == m && F.a[F.g[i].alloc].live) {
      free(F.a[F.g[i].alloc].p);
      F.a[F.g[i].alloc].live = 0;
    }
  F.unloads++;
  return CUDA_SUCCESS;
}
static CUresult f_function(CUfunction *f, CUmodule m, const char *name) {
  if (strcmp(name, "op2_cuda_kernel")) return CUDA_ERROR_NOT_FOUND;
  *f = (CUfunction)m;
  return CUDA_SUCCESS;
}
static CUresult f_func_attr(CUfunction f, CUfunction_attribute a, int v) {
  (void)f;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || v > F.smem_optin)
    return CUDA_ERROR_INVALID_VALUE;
  F.func_attr++;
  F.func_attr_value = v;
  return CUDA_SUCCESS;
}
static CUresult f_func_get_attr(int *v, CUfunction_attribute a, CUfunction f) {
  (void)f;
  if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
    *v = F.max_threads ? F.max_threads : 1024;
  else if (a == CU_FUNC_ATTRIBUTE_NUM_REGS)
    *v = F.registers;
  else if (a == CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
    *v = 16;
  else if (a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
    *v = F.static_smem;
  else
    return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
static CUresult f_alloc(CUdeviceptr *p, size_t bytes) {
  if (F.fail_alloc) return F.fail_alloc = 0, CUDA_ERROR_OUT_OF_MEMORY;
  if (!bytes || F.nallocs == MAX_ALLOCS) return CUDA_ERROR_INVALID_VALUE;
  char *m = malloc(bytes);
  CHECK(m != NULL);
  memset(m, 0xcd, bytes);
  F.a[F.nallocs].p = m, F.a[F.nallocs].bytes = bytes, F.a[F.nallocs].live = 1;
  F.nallocs++;
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}
static CUresult f_free(CUdeviceptr p) {
  int i = find_alloc((void *)(uintptr_t)p, 1);
  if (i < 0 || F.a[i].p != (char *)(uintptr_t)p) return CUDA_ERROR_INVALID_VALUE;
  free(F.a[i].p);
  F.a[i].live = 0;
  return CUDA_SUCCESS;
}
static int global_at(CUdeviceptr d) {
  for (int i = 0; i < F.nglobals; i++)
    if (F.a[F.g[i].alloc].live && (CUdeviceptr)(uintptr_t)F.a[F.g[i].alloc].p == d) return i;
  return -1;
}
static CUresult f_htod(CUdeviceptr d, const void *h, size_t bytes) {
  if (find_alloc((void *)(uintptr_t)d, bytes) < 0) return CUDA_ERROR_INVALID_VALUE;
  memcpy((void *)(uintptr_t)d, h, bytes);
  F.htod++, F.htod_bytes += bytes;
  F.const_copies += global_at(d) >= 0;
  return CUDA_SUCCESS;
}
static CUresult f_dtoh(void *h, CUdeviceptr d, size_t bytes) {
  if (find_alloc((void *)(uintptr_t)d, bytes) < 0) return CUDA_ERROR_INVALID_VALUE;
  memcpy(h, (void *)(uintptr_t)d, bytes);
  F.dtoh++, F.dtoh_bytes += bytes;
  return CUDA_SUCCESS;
}
static CUresult f_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                         void **extra) {
  (void)f;
  if (gy != 1 || gz != 1 || by != 1 || bz != 1 || s || extra || !params)
    return CUDA_ERROR_INVALID_VALUE;
  CHECK(F.nlaunches < MAX_LAUNCHES);
  launch_rec *r = &F.l[F.nlaunches++];
  r->grid = gx, r->block = bx, r->smem = smem;
  memcpy(&r->p, params[0], sizeof r->p);
  /* stand-ins for kernels: partial records of 1.0, and a direct loop's output */
  if (r->p.red)
    for (unsigned b = 0; b < gx; b++) ((double *)r->p.red)[r->p.block_offset + (int)b] = 1.0;
  if (F.write_direct) {
    double *out = r->p.arg[1];
    for (int e = r->p.begin; e < r->p.end; e++) out[e] = F.write_value;
  }
  return CUDA_SUCCESS;
}
static CUresult f_host_alloc(void **p, size_t bytes, unsigned flags) {
  if (!bytes || flags) return CUDA_ERROR_INVALID_VALUE;
  *p = malloc(bytes);
  CHECK(*p != NULL);
  F.host_allocs++, F.host_live++;
  return CUDA_SUCCESS;
}
static CUresult f_free_host(void *p) {
  free(p);
  F.host_live--;
  return CUDA_SUCCESS;
}
/* A module's __constant__ variable: device memory of its own, the same for every lookup. */
static CUresult f_get_global(CUdeviceptr *d, size_t *bytes, CUmodule m, const char *name) {
  F.get_global++;
  int i = 0;
  while (i < F.nglobals && (F.g[i].mod != m || strcmp(F.g[i].name, name) != 0)) i++;
  if (i == F.nglobals) {
    if (strncmp(name, "op2_live_", 9) != 0 || F.nglobals == 16) return CUDA_ERROR_NOT_FOUND;
    CUdeviceptr p;
    CUresult r = f_alloc(&p, (size_t)F.global_bytes);
    if (r != CUDA_SUCCESS) return r;
    F.g[i].mod = m, F.g[i].alloc = F.nallocs - 1;
    snprintf(F.g[i].name, sizeof F.g[i].name, "%s", name);
    F.nglobals++;
  }
  *d = (CUdeviceptr)(uintptr_t)F.a[F.g[i].alloc].p;
  *bytes = (size_t)F.global_bytes;
  return CUDA_SUCCESS;
}
static CUresult f_error_string(CUresult e, const char **t) {
  *t = e == CUDA_ERROR_OUT_OF_MEMORY ? "out of memory" : "fake error";
  return CUDA_SUCCESS;
}

static const op2_cu_api fake = {
    "fake",     f_init,         f_count,         f_device,     f_attribute, f_name,
    f_retain,   f_release,      f_set_current,   f_sync,       f_load,      f_unload,
    f_function, f_func_attr,    f_alloc,         f_free,       f_htod,      f_dtoh,
    f_launch,   f_error_string, f_func_get_attr, f_host_alloc, f_free_host, f_get_global};

static void start(const char *strategy, const char *part) {
  setenv("OP2_CUDA_STRATEGY", strategy, 1);
  char part_opt[64];
  snprintf(part_opt, sizeof part_opt, "OP2_PART_SIZE=%s", part);
  char *argv[] = {"t602", "OP2_BACKEND=cuda", part_opt, NULL};
  op2_cuda_use_driver(&fake); /* for this op_init only: op_exit forgets it */
  op_init(3, argv, 0);
}

static const char copy_src[] = "void copy(const double *a, double *b) { b[0] = a[0] + 1.0; }\n";
static const char sum_src[] = "void sum(const double *a, double *s) { *s += a[0]; }\n";
static const char scatter_src[] =
    "void scatter(const double *w, double *n0, double *n1) {\n"
    "  for (int k = 0; k < 4; k++) { n0[k] += w[0]; n1[k] += 2.0 * w[0]; }\n"
    "}\n";
static const char rw_src[] =
    "void rwloop(const double *w, double *n0, double *n1) { n0[0] = MAX(n0[0], w[0]); n1[0] += 1; "
    "}\n";

/* A direct loop: sizes, upload once, download only what was written, once. */
static void direct(void) {
  enum { N = 1000 };
  unsigned rng = rm_rng(602);
  double *a = rm_doubles(N, -1, 1, &rng), *got = rm_alloc(N * sizeof *got);
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", a, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  F.write_direct = 1, F.write_value = 7.0;
  long htod0 = F.htod;
  int syncs0 = F.syncs;
  run_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(F.syncs - syncs0, 0); /* the host needs no result of a direct loop */
  CHECK_EQ_INT(F.loads, 1);
  CHECK_EQ_INT(F.nlaunches, 1);
  launch_rec *r = &F.l[0];
  CHECK_EQ_INT(r->grid, (N + 255) / 256);
  CHECK_EQ_INT(r->block, 256);
  CHECK_EQ_INT(r->smem, 0);
  CHECK_EQ_INT(r->p.begin, 0);
  CHECK_EQ_INT(r->p.end, N);
  CHECK(r->p.red == NULL);
  int ia = find_alloc(r->p.arg[0], N * sizeof(double));
  CHECK(ia >= 0 && memcmp(F.a[ia].p, a, N * sizeof(double)) == 0); /* a uploaded as it was */
  CHECK(find_alloc(r->p.arg[1], N * sizeof(double)) >= 0);
  CHECK_EQ_INT(F.htod - htod0, 2); /* both dats, nothing else */
  long dtoh0 = F.dtoh;
  op_fetch_data(db, got);
  CHECK_EQ_INT(F.dtoh - dtoh0, 1);
  CHECK_EQ_INT(F.syncs - syncs0, 1); /* the fetch waits, once */
  for (int i = 0; i < N; i++) CHECK(got[i] == 7.0);
  op_fetch_data(db, got); /* the host copy is current now */
  CHECK_EQ_INT(F.dtoh - dtoh0, 1);
  op_fetch_data(da, got); /* never written on the device */
  CHECK_EQ_INT(F.dtoh - dtoh0, 1);
  CHECK(memcmp(got, a, N * sizeof(double)) == 0);
  /* a second call: same device memory, no upload */
  F.write_value = 9.0;
  run_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(F.nlaunches, 2);
  CHECK(F.l[1].p.arg[0] == r->p.arg[0] && F.l[1].p.arg[1] == r->p.arg[1]);
  CHECK_EQ_INT(F.htod - htod0, 2);
  CHECK_EQ_INT(F.loads, 1); /* the module too */
  op_fetch_data(db, got);
  CHECK(got[0] == 9.0 && got[N - 1] == 9.0);
  CHECK_EQ_INT(F.dtoh - dtoh0, 2);
  F.write_direct = 0;

  /* a reduction: the fake writes 1.0 as every block's partial; the host adds them to the start */
  double total = 0.5;
  int before = F.nlaunches;
  syncs0 = F.syncs;
  run_par_loop(sum_src, "sum", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_gbl(&total, 1, "double", OP_INC));
  CHECK_EQ_INT(F.syncs - syncs0, 1); /* once, before the partials are read */
  r = &F.l[before];
  CHECK_EQ_INT(F.nlaunches, before + 1);
  CHECK(r->p.red != NULL && find_alloc(r->p.red, r->grid * sizeof(double)) >= 0);
  CHECK_EQ_INT(r->smem, 256 * sizeof(double));         /* the tree's scratch */
  CHECK(find_alloc(r->p.arg[1], sizeof(double)) >= 0); /* the global's device copy */
  CHECK(total == 0.5 + r->grid);
  free(a), free(got);
}

/* Indirect loops: one launch per block colour (hierarchical) or per colour (global). */
static void indirect(const char *strategy, int part, int dim) {
  enum { NE = 6000, NN = 1500 };
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 6021);
  unsigned rng = rm_rng(6022);
  double *w = rm_doubles(NE, 0, 1, &rng);
  op_dat dw = op_decl_dat(m.edges, 1, "double", w, "w");
  op_dat dn = op_decl_dat(m.nodes, dim, "double", NULL, "n"); /* the kernel uses 4 of dim */
  int before = F.nlaunches, syncs0 = F.syncs;
  run_par_loop(scatter_src, "scatter", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(dn, 0, m.pedge, dim, "double", OP_INC),
               op_arg_dat(dn, 1, m.pedge, dim, "double", OP_INC));
  CHECK_EQ_INT(F.syncs - syncs0, 0); /* launches queue behind each other, nothing waits */
  int launches = F.nlaunches - before;
  CHECK(launches >= 2); /* a random mesh always has conflicting blocks or elements */
  long blocks = 0;
  for (int i = before; i < F.nlaunches; i++) {
    launch_rec *r = &F.l[i];
    CHECK(find_alloc(r->p.map[0], sizeof(int) * 2 * NE) >= 0);
    if (!strcmp(strategy, "hierarchical")) {
      CHECK_EQ_INT(r->block, part < 256 ? part : 256);
      CHECK_EQ_INT(r->p.part_size, part);
      CHECK_EQ_INT(r->p.block_offset, blocks);
      CHECK(r->p.red_smem_off > 0 && r->smem == (unsigned)r->p.red_smem_off); /* staging only */
      CHECK(find_alloc(r->p.blkmap, sizeof(int) * r->p.nblocks) >= 0);
      CHECK(find_alloc(r->p.thr_elem, sizeof(int) * NE) >= 0);
      CHECK(find_alloc(r->p.thrcol, NE) >= 0);
      CHECK(find_alloc(r->p.loc_map, sizeof(short) * 2 * NE) >= 0);
      blocks += r->grid;
    } else {
      CHECK(!strcmp(strategy, "global"));
      CHECK_EQ_INT(r->block, 256);
      CHECK(find_alloc(r->p.col_elems + r->p.col_begin, sizeof(int) * r->p.col_count) >= 0);
      CHECK_EQ_INT(r->grid, (r->p.col_count + 255) / 256);
      blocks += r->p.col_count;
    }
  }
  CHECK_EQ_INT(blocks, !strcmp(strategy, "global") ? NE : (NE + part - 1) / part);
  if (!strcmp(strategy, "hierarchical")) { /* every block's positions are a permutation */
    const launch_rec *r = &F.l[before];
    int *seen = rm_alloc(NE * sizeof *seen);
    for (int i = 0; i < NE; i++) seen[r->p.thr_elem[i]]++;
    for (int i = 0; i < NE; i++) CHECK_EQ_INT(seen[i], 1);
    free(seen);
  }
  free(w);
  rm_mesh_free(&m);
}

/* A kernel whose registers allow fewer threads per block than OP2_CUDA_BLOCK_SIZE runs in
 * smaller blocks (whole warps within the function's limit), under every launch shape. */
static void small_blocks(void) {
  enum { N = 1000, NE = 6000, NN = 1500 };
  F.max_threads = 100;
  start("hierarchical", "256");
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  int before = F.nlaunches;
  run_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(F.nlaunches, before + 1);
  CHECK_EQ_INT(F.l[before].block, 96);
  CHECK_EQ_INT(F.l[before].grid, (N + 95) / 96);
  rm_mesh m;
  rm_mesh_make(&m, NE, NN, 1, RM_JUMPS, 6024);
  op_dat dw = op_decl_dat(m.edges, 1, "double", NULL, "w");
  op_dat dn = op_decl_dat(m.nodes, 4, "double", NULL, "n");
  before = F.nlaunches;
  run_par_loop(scatter_src, "scatter", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(dn, 0, m.pedge, 4, "double", OP_INC),
               op_arg_dat(dn, 1, m.pedge, 4, "double", OP_INC));
  CHECK(F.nlaunches > before);
  for (int i = before; i < F.nlaunches; i++) {
    CHECK_EQ_INT(F.l[i].block, 96);
    CHECK_EQ_INT(F.l[i].p.part_size, 256); /* each thread runs several positions */
  }
  rm_mesh_free(&m);
  op_exit();
  F.max_threads = 0;
}

/* A device or driver that cannot run the CUBIN: its PTX is loaded instead; when the PTX is
 * refused too, the error names the loop and the driver's reason. */
static void ptx_fallback(void) {
  enum { N = 100 };
  F.refuse_cubin = 1;
  start("auto", "256");
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  int before = F.nlaunches, ptx0 = F.ptx_loads;
  run_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  CHECK_EQ_INT(F.ptx_loads - ptx0, 1);
  CHECK_EQ_INT(F.nlaunches, before + 1);
  op_exit();
  F.refuse_ptx = 1;
  start("auto", "256");
  s = op_decl_set(N, "s");
  da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  EXPECT_ERROR(op_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
                           op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE)),
               "op_par_loop 'copy': loading the kernel module failed");
  CHECK_CONTAINS(op_last_error(), "CUDA error 222");
  op_exit();
  F.refuse_cubin = F.refuse_ptx = 0;
}

/* The manifest of the copy loop's entry under the cache root `root`. */
static void copy_manifest(const char *root, char *text, size_t len) {
  char cmd[4400];
  snprintf(cmd, sizeof cmd, "cat '%s'/copy-*/manifest.json", root);
  FILE *p = popen(cmd, "r");
  CHECK(p != NULL);
  size_t n = fread(text, 1, len - 1, p);
  text[n] = '\0';
  pclose(p);
}

/* With a ptxas (OP2_CUDA_PTXAS, which meson passes when it finds one), a fresh CUDA entry's
 * manifest records the registers, spills and static shared memory of its kernel. */
static void resources_recorded(void) {
  const char *ptxas = getenv("T602_PTXAS");
  if (!ptxas) {
    printf("fake driver: no ptxas found at configuration: kernel resources not checked\n");
    return;
  }
  char root[4200], saved[4096];
  snprintf(saved, sizeof saved, "%s", getenv("OP2_CACHE_DIR"));
  snprintf(root, sizeof root, "%s/resources-XXXXXX", saved);
  CHECK(mkdtemp(root) != NULL);
  setenv("OP2_CACHE_DIR", root, 1);
  setenv("OP2_CUDA_PTXAS", ptxas, 1);
  start("auto", "256");
  op_set s = op_decl_set(100, "s");
  op_dat da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  run_par_loop(copy_src, "copy", s, op_arg_dat(da, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(db, -1, OP_ID, 1, "double", OP_WRITE));
  op_exit();
  unsetenv("OP2_CUDA_PTXAS");
  setenv("OP2_CACHE_DIR", saved, 1);
  char text[8192];
  copy_manifest(root, text, sizeof text);
  CHECK_CONTAINS(text, "\"resources\":\t\"sm_86 (ptxas -v): ");
  CHECK_CONTAINS(text, " registers, 0 bytes spill stores");
  const char *r = strstr(text, "ptxas -v): ");
  CHECK(r && atoi(r + strlen("ptxas -v): ")) > 0);
}

static const char scale_src[] = "void scale(const double *a, double *b) { b[0] = kk * a[0]; }\n";

/* The value of the live constant `kk` in the fake's device memory (its last module's). */
static double device_kk(void) {
  double v;
  memcpy(&v, F.a[F.g[F.nglobals - 1].alloc].p, sizeof v);
  return v;
}

static void run_scale(op_set s, op_dat a, op_dat b, double kk) {
  op_decl_const(1, "double", &kk, "kk");
  run_par_loop(scale_src, "scale", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
               op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE));
}

/* A live constant reaches the device through its module's __constant__ variable, looked up once
 * (cuModuleGetGlobal) and copied to before a launch only when its value changed: one copy per new
 * value, none for a repeated one, no new module. A variable whose size differs from the
 * declaration is an error. With OP2_DIAGS=2 the driver's numbers of each loaded function
 * (registers, local and static shared memory) are shown. */
static void live_constants(void) {
  enum { N = 100 };
  F.global_bytes = 8, F.registers = 40, F.static_smem = 1024;
  setenv("OP2_DIAGS", "2", 1);
  fflush(stderr);
  FILE *err = tmpfile();
  CHECK(err != NULL);
  int saved = dup(2);
  CHECK(saved >= 0 && dup2(fileno(err), 2) >= 0);
  start("auto", "256");
  op_set s = op_decl_set(N, "s");
  op_dat da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  run_scale(s, da, db, 1.0);
  fflush(stderr);
  CHECK(dup2(saved, 2) >= 0);
  close(saved);
  unsetenv("OP2_DIAGS");
  char text[16384];
  rewind(err);
  size_t n = fread(text, 1, sizeof text - 1, err);
  text[n] = 0;
  fclose(err);
  CHECK_CONTAINS(text,
                 "op_par_loop 'scale': kernel loaded by the driver for sm_86: 40 registers, "
                 "16 bytes of local memory per thread (spills, stack), 1024 bytes of "
                 "static shared memory, at most 1024 threads per block");
  CHECK_EQ_INT(F.get_global, 0); /* baked: nothing to look up */
  run_scale(s, da, db, 2.0);
  int loads = F.loads;
  long copies = F.const_copies;
  run_scale(s, da, db, 3.0); /* the third value: live from now on */
  CHECK(op2_const_find("kk")->live);
  CHECK_EQ_INT(F.loads, loads + 1);
  CHECK_EQ_INT(F.get_global, 1);
  CHECK_EQ_INT(F.const_copies - copies, 1);
  CHECK(device_kk() == 3.0);
  for (int v = 4; v < 40; v++) {
    run_scale(s, da, db, v);
    CHECK(device_kk() == v);
  }
  CHECK_EQ_INT(F.const_copies - copies, 37);
  run_scale(s, da, db, 39.0); /* unchanged: no copy */
  run_scale(s, da, db, 39.0);
  CHECK_EQ_INT(F.const_copies - copies, 37);
  run_scale(s, da, db, 2.0); /* a value it had while baked: still read at run time */
  CHECK_EQ_INT(F.const_copies - copies, 38);
  CHECK(device_kk() == 2.0);
  CHECK_EQ_INT(F.loads, loads + 1);
  CHECK_EQ_INT(F.get_global, 1);
  op_exit();
  F.global_bytes = 4;
  start("auto", "256");
  s = op_decl_set(N, "s");
  da = op_decl_dat(s, 1, "double", NULL, "a"), db = op_decl_dat(s, 1, "double", NULL, "b");
  run_scale(s, da, db, 1.0);
  run_scale(s, da, db, 2.0);
  EXPECT_ERROR(run_scale(s, da, db, 3.0),
               "op_par_loop 'scale': the kernel's constant 'kk' has 4 bytes in device memory, "
               "op_decl_const declared 8");
  op_exit();
  F.registers = F.static_smem = 0;
}

/* The key of every CUDA entry is the hash of its source, NVRTC's identity and the options its
 * manifest says NVRTC received: the options for the key and the compile cannot drift apart. */
static void check_keys_match_flags(const char *root) {
  DIR *d = opendir(root);
  CHECK(d != NULL);
  int checked = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    char path[4400], err[600];
    op2_manifest m;
    snprintf(path, sizeof path, "%s/%s/manifest.json", root, de->d_name);
    if (de->d_name[0] == '.' || op2_manifest_read(path, &m, err, sizeof err) != 0 ||
        strcmp(m.target, "cuda") != 0)
      continue;
    char *src;
    size_t len;
    snprintf(path, sizeof path, "%s/%s/%s", root, de->d_name, m.source_file);
    CHECK(op2_read_file(path, &src, &len) == 0);
    op2_cache_key key;
    op2_cache_key_make(src, len, m.compiler, m.flags, &key);
    free(src);
    CHECK(strcmp(key.hex, m.key) == 0);
    checked++;
  }
  closedir(d);
  CHECK(checked > 0);
}

int main(void) {
  test_catch_errors();
  F.smem_default = 48 * 1024, F.smem_optin = 100 * 1024;
  /* a driver without devices */
  op2_cuda_use_driver(&fake);
  char *argv[] = {"t602", "OP2_BACKEND=cuda", NULL};
  EXPECT_ERROR(op_init(2, argv, 0), "the CUDA driver reports no device");
  op_exit();
  F.ndevices = 1;
  /* a device ordinal the driver does not have */
  op2_cuda_use_driver(&fake);
  char *argv_dev[] = {"t602", "OP2_BACKEND=cuda", "OP2_CUDA_DEVICE=1", NULL};
  EXPECT_ERROR(op_init(3, argv_dev, 0), "OP2_CUDA_DEVICE=1: the driver reports 1 device(s)");
  op_exit();
  /* the driver given for one op_init is gone after op_exit: the default library is looked for */
  char *argv_lib[] = {"t602", "OP2_BACKEND=cuda", "OP2_CUDA_DRIVER=/nonexistent/libcuda.so.1",
                      NULL};
  EXPECT_ERROR(op_init(3, argv_lib, 0), "cannot load the CUDA driver /nonexistent/libcuda.so.1");
  op_exit();

  start("auto", "256");
  CHECK_EQ_INT(F.retained, 1);
  direct();
  /* a driver failure names the call and the CUDA error */
  op_set s = op_decl_set(10, "small");
  op_dat d = op_decl_dat(s, 1, "double", NULL, "fresh");
  op_dat e = op_decl_dat(s, 1, "double", NULL, "fresh2");
  F.fail_alloc = 1;
  EXPECT_ERROR(op_par_loop(copy_src, "copy", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_READ),
                           op_arg_dat(e, -1, OP_ID, 1, "double", OP_WRITE)),
               "cuMemAlloc");
  CHECK_CONTAINS(op_last_error(), "CUDA error 2 (out of memory)");
  op_exit();
  CHECK_EQ_INT(live_allocs(), 0);
  CHECK_EQ_INT(F.unloads, F.loads);
  CHECK_EQ_INT(F.released, 1);

  /* the CUBIN came from NVRTC for the fake's compute capability 8.6 */
  char text[8192];
  copy_manifest(getenv("OP2_CACHE_DIR"), text, sizeof text);
  CHECK_CONTAINS(text, "-arch=sm_86");
  CHECK_CONTAINS(text, "\"cuda\"");
  check_keys_match_flags(getenv("OP2_CACHE_DIR"));

  /* hierarchical, global colouring; then hierarchical with blocks that need more shared memory than
   * the default, so the backend opts in */
  start("hierarchical", "256");
  indirect("hierarchical", 256, 4);
  op_exit();
  start("global", "256");
  indirect("global", 256, 4);
  op_exit();
  small_blocks();
  live_constants();
  ptx_fallback();
  resources_recorded();
  start("hierarchical", "2048");
  indirect("hierarchical", 2048, 16);
  CHECK(F.func_attr >= 1 && F.func_attr_value > F.smem_default);
  CHECK(F.l[F.nlaunches - 1].smem <= (unsigned)F.func_attr_value);
  /* indirect RW defaults to hierarchical; a loop asking more than the device has is refused */
  op_exit();
  F.smem_optin = 48 * 1024;
  start("auto", "4096");
  {
    rm_mesh m;
    rm_mesh_make(&m, 20000, 8000, 1, RM_FULLY_RANDOM, 6023);
    op_dat dw = op_decl_dat(m.edges, 1, "double", NULL, "w");
    op_dat dn = op_decl_dat(m.nodes, 8, "double", NULL, "n");
    EXPECT_ERROR(
        op_par_loop(rw_src, "rwloop", m.edges, op_arg_dat(dw, -1, OP_ID, 1, "double", OP_READ),
                    op_arg_dat(dn, 0, m.pedge, 8, "double", OP_RW),
                    op_arg_dat(dn, 1, m.pedge, 8, "double", OP_RW)),
        "bytes of shared memory per block");
    CHECK_EQ_INT(op2_cuda_loop_strategy("rwloop"), OP2_CUDA_HIER);
    rm_mesh_free(&m);
  }
  op_exit();
  CHECK_EQ_INT(live_allocs(), 0);
  printf("fake driver: %d allocations, %ld uploads, %ld downloads, %d launches, %d modules\n",
         F.nallocs, F.htod, F.dtoh, F.nlaunches, F.loads);
  return 0;
}
