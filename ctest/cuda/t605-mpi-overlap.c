/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI + CUDA: the order of device work around a halo exchange, seen from the driver table. Runs
 * under mpiexec with OP2_BACKEND=cuda-emu; the emulator's table is wrapped by one that records
 * launches, copies and synchronisations. For an indirect loop that reads a dat written on the
 * device just before (so its halo is dirty), each rank must:
 *   1. gather the dat's export rows on the device and copy them to the host (for MPI),
 *   2. launch the loop over its core elements (which need no halo) before the received import
 *      rows are copied to the device, and not wait for that launch first,
 *   3. copy the import rows to the device in one piece, then launch the other elements,
 *   4. wait for the device once, after the last launch.
 * The results must also equal plain C on the whole mesh. Halo messages live in page-locked host
 * memory from the driver (cuMemHostAlloc): the gather's copy lands in it, the dat's buffers are
 * allocated at its first exchange only (not per loop call), and op_exit frees every one before it
 * releases the device. Finally a driver failure while packing is reported on every rank, naming
 * the loop and the call, and no rank waits forever for the messages of another.
 * Usage: t605-mpi-overlap */
#include "mpi/mpi_test.h"
#include "runtime/cuda/cuda.h"

enum { NN = 600, NE = 1500, MAX_EVENTS = 256 };

KERNEL(
    smooth, static void smooth(const double *x, double *v) {
      v[0] = 0.5 * v[0] + x[0] * x[1];
      v[1] = v[1] - x[0];
    })

KERNEL(
    flux, static void flux(const double *va, const double *vb, double *ra, double *rb) {
      double f = va[0] - vb[0] + 0.25 * (va[1] + vb[1]);
      ra[0] += f;
      rb[0] -= f;
    })

typedef enum { EV_LAUNCH, EV_HTOD, EV_DTOH, EV_SYNC } ev_kind;
typedef struct event {
  ev_kind kind;
  CUfunction fn;
  int begin, end; /* launches: the range in their parameters */
  size_t bytes;   /* copies */
  int pinned;     /* device-to-host copies: into memory from cuMemHostAlloc */
} event;

enum { MAX_PINNED = 64 };

static struct {
  const op2_cu_api *emu;
  int fail_dtoh; /* the next device-to-host copy fails */
  int on;
  int n;
  event ev[MAX_EVENTS];
  struct {
    char *p;
    size_t bytes;
  } pinned[MAX_PINNED]; /* live cuMemHostAlloc blocks */
  int npinned, host_allocs, host_frees, frees_after_release, released;
} trace;

static int in_pinned(const void *p, size_t bytes) {
  for (int i = 0; i < trace.npinned; i++)
    if ((const char *)p >= trace.pinned[i].p &&
        (const char *)p + bytes <= trace.pinned[i].p + trace.pinned[i].bytes)
      return 1;
  return 0;
}

static void record(event e) {
  if (!trace.on) return;
  CHECK(trace.n < MAX_EVENTS);
  trace.ev[trace.n++] = e;
}

static CUresult t_launch(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned smem, CUstream s, void **params,
                         void **extra) {
  const op2_cuda_params *p = params[0];
  record((event){EV_LAUNCH, f, p->begin, p->end, 0, 0});
  return trace.emu->cuLaunchKernel(f, gx, gy, gz, bx, by, bz, smem, s, params, extra);
}
static CUresult t_htod(CUdeviceptr d, const void *h, size_t bytes) {
  record((event){EV_HTOD, NULL, 0, 0, bytes, 0});
  return trace.emu->cuMemcpyHtoD(d, h, bytes);
}
static CUresult t_dtoh(void *h, CUdeviceptr d, size_t bytes) {
  if (trace.fail_dtoh) {
    trace.fail_dtoh = 0;
    return CUDA_ERROR_LAUNCH_FAILED;
  }
  record((event){EV_DTOH, NULL, 0, 0, bytes, in_pinned(h, bytes)});
  return trace.emu->cuMemcpyDtoH(h, d, bytes);
}
static CUresult t_sync(void) {
  record((event){EV_SYNC, NULL, 0, 0, 0, 0});
  return trace.emu->cuCtxSynchronize();
}
static CUresult t_host_alloc(void **p, size_t bytes, unsigned flags) {
  CHECK(trace.npinned < MAX_PINNED);
  CUresult r = trace.emu->cuMemHostAlloc(p, bytes, flags);
  if (r == CUDA_SUCCESS) {
    trace.pinned[trace.npinned].p = *p, trace.pinned[trace.npinned].bytes = bytes;
    trace.npinned++, trace.host_allocs++;
  }
  return r;
}
static CUresult t_free_host(void *p) {
  int i = 0;
  while (i < trace.npinned && trace.pinned[i].p != p) i++;
  CHECK(i < trace.npinned); /* only what cuMemHostAlloc gave */
  trace.pinned[i] = trace.pinned[--trace.npinned];
  trace.host_frees++;
  trace.frees_after_release += trace.released;
  return trace.emu->cuMemFreeHost(p);
}
static CUresult t_release(CUdevice d) {
  trace.released = 1;
  return trace.emu->cuDevicePrimaryCtxRelease(d);
}

static void print_trace(void) {
  static const char *names[] = {"launch", "htod", "dtoh", "sync"};
  for (int i = 0; i < trace.n; i++)
    fprintf(stderr, "rank %d event %d: %s fn %p [%d, %d) %zu bytes\n", mt_rank(), i,
            names[trace.ev[i].kind], (void *)trace.ev[i].fn, trace.ev[i].begin, trace.ev[i].end,
            trace.ev[i].bytes);
}

#define EXPECT(cond)                                               \
  do {                                                             \
    if (!(cond)) {                                                 \
      print_trace();                                               \
      fprintf(stderr, "rank %d: expected %s\n", mt_rank(), #cond); \
      exit(1);                                                     \
    }                                                              \
  } while (0)

static int first(ev_kind kind, int from) {
  for (int i = from; i < trace.n; i++)
    if (trace.ev[i].kind == kind) return i;
  return -1;
}

int main(int argc, char **argv) {
  op2_cu_api api = *op2_cuda_emu_api();
  trace.emu = op2_cuda_emu_api();
  api.name = "tracing emulator";
  api.cuLaunchKernel = t_launch;
  api.cuMemcpyHtoD = t_htod;
  api.cuMemcpyDtoH = t_dtoh;
  api.cuCtxSynchronize = t_sync;
  api.cuMemHostAlloc = t_host_alloc;
  api.cuMemFreeHost = t_free_host;
  api.cuDevicePrimaryCtxRelease = t_release;
  op2_cuda_use_driver(&api);
  test_catch_errors();
  op_init(argc, argv, 0);
  CHECK(mt_size() >= 2);
  unsigned rng = rm_rng(605);
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NN, "nodes");
  mt_set edges = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, NE, "edges");
  int *en = rm_map_values(NE, 2, NN, 60, &rng);
  op_map pedge = mt_decl_map(&edges, &nodes, 2, en, "pedge");
  double *x = rm_doubles(2 * NN, -1, 1, &rng), *v = rm_doubles(2 * NN, -1, 1, &rng);
  op_dat dx = mt_decl_dat(&nodes, 2, "double", sizeof(double), x, "x");
  op_dat dv = mt_decl_dat(&nodes, 2, "double", sizeof(double), v, "v");
  op_dat dr = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "r");
  op_partition("PTSCOTCH", "KWAY", nodes.set, pedge, dx);

  double *r = rm_alloc(sizeof(double) * NN);
  int allocs_after_first = -1;
  for (int round = 0; round < 4; round++) {
    /* v changes on the device: its halo copies are stale now */
    op_par_loop(smooth_src, "smooth", nodes.set, op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(dv, -1, OP_ID, 2, "double", OP_RW));
    test_run_queued(); /* lazy execution: smooth runs now, before the trace of flux */
    for (int i = 0; i < NN; i++) smooth(x + 2 * i, v + 2 * i);
    /* the second round runs with every buffer and plan already on the device */
    trace.on = round == 1;
    if (round == 1) allocs_after_first = trace.host_allocs;
    op_par_loop(flux_src, "flux", edges.set, op_arg_dat(dv, 0, pedge, 2, "double", OP_READ),
                op_arg_dat(dv, 1, pedge, 2, "double", OP_READ),
                op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
                op_arg_dat(dr, 1, pedge, 1, "double", OP_INC));
    test_run_queued(); /* and flux inside it */
    trace.on = 0;
    for (int e = 0; e < NE; e++)
      flux(v + 2 * en[2 * e], v + 2 * en[2 * e + 1], r + en[2 * e], r + en[2 * e + 1]);
  }

  /* 1: the gather, then the copy of what it packed */
  int gather = first(EV_LAUNCH, 0);
  EXPECT(gather == 0);
  int pack = first(EV_DTOH, 0);
  EXPECT(pack == gather + 1);
  EXPECT(trace.ev[pack].bytes == sizeof(double) * 2 * (size_t)trace.ev[gather].end);
  EXPECT(trace.ev[pack].pinned);
  /* the dat's send and receive buffers, allocated at its first exchange only */
  EXPECT(allocs_after_first == 2);
  EXPECT(trace.host_allocs == allocs_after_first);
  /* 2: the core launch comes next, and nothing waits for it before the import copy */
  int core = first(EV_LAUNCH, pack);
  EXPECT(core == pack + 1);
  EXPECT(trace.ev[core].fn != trace.ev[gather].fn);
  EXPECT(trace.ev[core].begin == 0 && trace.ev[core].end > 0);
  int import = first(EV_HTOD, core);
  EXPECT(import > core);
  int sync = first(EV_SYNC, 0);
  EXPECT(sync > import);
  /* 3: one import copy, then launches over the rest, starting where the core ended */
  EXPECT(first(EV_HTOD, import + 1) == -1);
  int rest = first(EV_LAUNCH, import);
  EXPECT(rest > import && rest < sync);
  EXPECT(trace.ev[rest].fn == trace.ev[core].fn);
  EXPECT(trace.ev[rest].begin == trace.ev[core].end);
  /* 4: one wait, after the last launch */
  EXPECT(first(EV_SYNC, sync + 1) == -1);
  EXPECT(first(EV_LAUNCH, sync) == -1);

  double *got = mt_fetch_all(dr, NN, sizeof(double));
  mt_check_doubles(got, r, NN, 1e-12, "r");
  free(got);
  got = mt_fetch_all(dv, NN, 2 * sizeof(double));
  mt_check_doubles(got, v, 2 * NN, 0, "v");
  free(got);

  /* 5: the gather's copy to the host fails on every rank */
  op_par_loop(smooth_src, "smooth", nodes.set, op_arg_dat(dx, -1, OP_ID, 2, "double", OP_READ),
              op_arg_dat(dv, -1, OP_ID, 2, "double", OP_RW));
  trace.fail_dtoh = 1;
  EXPECT_ERROR(
      op_par_loop(flux_src, "flux", edges.set, op_arg_dat(dv, 0, pedge, 2, "double", OP_READ),
                  op_arg_dat(dv, 1, pedge, 2, "double", OP_READ),
                  op_arg_dat(dr, 0, pedge, 1, "double", OP_INC),
                  op_arg_dat(dr, 1, pedge, 1, "double", OP_INC)),
      "op_par_loop 'flux'");
  CHECK_CONTAINS(op_last_error(), "cuMemcpyDtoH");
  CHECK(trace.fail_dtoh == 0);
  if (mt_rank() == 0)
    printf("t605 on %d ranks: gather, core launch, import copy, rest, one wait\n", mt_size());
  free(x), free(v), free(r), free(en);
  EXPECT(trace.host_allocs == allocs_after_first);
  op_exit();
  /* every page-locked buffer freed, while the device was still held */
  EXPECT(trace.npinned == 0 && trace.host_frees == trace.host_allocs);
  EXPECT(trace.frees_after_release == 0);
  return 0;
}
