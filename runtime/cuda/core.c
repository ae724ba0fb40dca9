/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA backends' host side, shared by cuda and cuda-emu: one context, device memory per dat
 * uploaded at first use and kept resident (the host copy is refreshed only when a fetch needs it:
 * dat->device_newer), maps and plans uploaded once, kernel parameters, launches, reductions.
 * Under MPI: halo gathers on the device and loop phases queued around the exchange.
 * Every driver call goes through the op2_cu_api table and is checked; the table is the real
 * driver, the emulator or a test's fake, and nothing here knows which. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cuda/cuda.h"
#include "runtime/distributed.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"
#include "runtime/jit_use.h"
#include "runtime/backend.h"

typedef struct dev_buf {
  CUdeviceptr ptr;
  size_t bytes;
} dev_buf;

/* A live constant a module reads from its __constant__ variable: copied there before a launch
 * when its value differs from the one copied last (one copy per change, none per call). */
typedef struct live_const {
  const op2_const *c;
  CUdeviceptr ptr;
  size_t bytes;
  char *sent; /* the value in device memory; NULL before the first copy */
} live_const;

/* A kernel jit/ built (op2_jit_kernel) as the driver loaded it: runtime state, one per kernel. */
typedef struct cuda_module {
  op2_kernel *kernel; /* jit/'s: its CUBIN and PTX, or the emulator's code */
  CUmodule mod;
  CUfunction fn;
  int smem_limit;  /* dynamic shared memory the function may use (opted in beyond the default) */
  int max_threads; /* threads per block the loaded function can run (registers limit it) */
  /* what the driver reports of the loaded function (a real driver only; 0 in emulation) */
  int registers, local_bytes, static_smem;
  op2_emu_image image; /* what the emulator's cuModuleLoadData receives */
  live_const *live;    /* the live constants its kernel reads */
  int nlive;
  bool live_found; /* live constants looked up (loop modules, once) */
} cuda_module;

/* One loop over one element range: the whole set, or one MPI phase of it (core, owned
 * non-core, exec halo), each with its own plan and reduction records. */
typedef struct cuda_loop {
  const op2_loop *loop;
  int begin, end;
  op2_cuda_layout lay;
  cuda_module *mod;
  op2_cuda_plan *plan;
  dev_buf col_elems, blkmap, thr_elem, thrcol, nthrcol, ind_offs, ind_sizes, ind_map, loc_map;
  dev_buf gbl, red;
  char *gbl_host, *red_host;
  size_t gbl_bytes;
  int gbl_off[OP2_CUDA_MAX_ARGS];
} cuda_loop;

/* A run queued without waiting (MPI phases): its reductions are finished by complete(). */
typedef struct queued_run {
  cuda_loop *cl;
  int records;
  void *dst[OP2_CUDA_MAX_ARGS]; /* per reduction argument: where its result goes */
} queued_run;

enum { MAX_QUEUED = 4 };

/* The halo gather kernel for one row size. */
typedef struct gather_kernel {
  size_t row_bytes;
  cuda_module *mod;
} gather_kernel;

struct op2_cuda_state {
  op2_cu_api api;
  int emulated;
  void *driver_data; /* the emulator's device, or NULL */
  void *driver_handle;
  CUdevice dev;
  CUcontext cuctx;
  int have_ctx;
  char arch[32];
  int smem_default, smem_optin;
  int block_size;
  int asked; /* OP2_CUDA_STRATEGY as an op2_cuda_strategy, -1 for the default */
  op2_ptr_list loops, modules;
  op2_jit_counters counters; /* CUDA module builds: compiles, disk hits, refused entries */
  dev_buf *maps;             /* by map index */
  int nmaps;
  dev_buf *origs; /* by set index */
  int norigs;
  cuda_loop *last;
  queued_run queued[MAX_QUEUED];
  int nqueued;
  /* MPI halo exchanges */
  gather_kernel *gathers;
  int ngathers;
  dev_buf *send_rows; /* by set index: the export rows in message order */
  int nsend_rows;
  dev_buf halo_buf; /* packed export rows of one dat */
};

void op2_cuda_use_driver(const op2_cu_api *api) {
  op2_ctx()->backend_test_driver = api;
}

void *op2_cuda_driver_data(op2_context *ctx) {
  op2_cuda_state *st = ctx->backend_data;
  return st ? st->driver_data : NULL;
}

static op2_cuda_state *state(op2_context *ctx) {
  return ctx->backend_data;
}

static int cu_error(op2_cuda_state *st, CUresult r, const char *what, const char *name) {
  const char *text = NULL;
  if (!st->api.cuGetErrorString || st->api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  return op2_error(OP2_ERR_STATE, "%s%s%s: %s failed: CUDA error %d (%s)",
                   name ? "op_par_loop '" : "", name ? name : "", name ? "'" : "cuda backend", what,
                   (int)r, text ? text : "no description");
}

/* Checks a driver call; `name` is the loop for messages, or NULL. */
#define CU(st, call, name)                                                      \
  do {                                                                          \
    CUresult op2_cu_r_ = (call);                                                \
    if (op2_cu_r_ != CUDA_SUCCESS) return cu_error(st, op2_cu_r_, #call, name); \
  } while (0)

static int upload(op2_cuda_state *st, dev_buf *d, const void *host, size_t bytes,
                  const char *name) {
  d->bytes = bytes;
  d->ptr = 0;
  if (!bytes || !host) return OP2_OK;
  CU(st, st->api.cuMemAlloc(&d->ptr, bytes), name);
  CU(st, st->api.cuMemcpyHtoD(d->ptr, host, bytes), name);
  return OP2_OK;
}

static void release(op2_cuda_state *st, dev_buf *d) {
  if (d->ptr && st->api.cuMemFree(d->ptr) != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: cuMemFree failed at exit");
  d->ptr = 0;
  d->bytes = 0;
}

/* ---- initialisation ---- */

static int asked_strategy(op2_cuda_ask ask) {
  switch (ask) {
    case OP2_CUDA_ASK_ATOMICS:
      return OP2_CUDA_ATOMICS;
    case OP2_CUDA_ASK_GLOBAL:
      return OP2_CUDA_GLOBAL;
    case OP2_CUDA_ASK_HIERARCHICAL:
      return OP2_CUDA_HIER;
    case OP2_CUDA_ASK_AUTO:
      break;
  }
  return -1;
}

static int init_device(op2_context *ctx, op2_cuda_state *st) {
  if (!st->emulated && !ctx->backend_test_driver) {
    const char *path = op2_cuda_options_of(ctx)->driver;
    op2_jit_error why;
    if (op2_cu_driver_load(path, &st->api, &st->driver_handle, &why) != OP2_OK)
      return op2_error_record(&why,
                              "OP2_BACKEND=cuda: cannot load the CUDA driver %s (%s); "
                              "this machine has no usable NVIDIA driver. OP2_BACKEND=cuda-emu runs "
                              "the same generated CUDA code on the CPU",
                              path, why.msg);
  }
  CUresult r = st->api.cuInit(0);
  if (r != CUDA_SUCCESS) {
    const char *text = NULL;
    if (st->api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
    return op2_error(OP2_ERR_STATE,
                     "OP2_BACKEND=cuda: the CUDA driver does not start (cuInit: "
                     "CUDA error %d, %s): no usable GPU. OP2_BACKEND=cuda-emu runs the same "
                     "generated CUDA code on the CPU",
                     (int)r, text ? text : "no description");
  }
  int count = 0;
  CU(st, st->api.cuDeviceGetCount(&count), NULL);
  if (count < 1)
    return op2_error(OP2_ERR_STATE, "OP2_BACKEND=cuda: the CUDA driver reports no device");
  /* Ranks sharing a machine share its devices round-robin unless told otherwise. */
  int device = op2_cuda_options_of(ctx)->device;
  int ordinal = device >= 0 ? device : ctx->mpi.node_rank % count;
  if (ordinal >= count)
    return op2_error(OP2_ERR_ARG,
                     "option OP2_CUDA_DEVICE=%d: the driver reports %d device(s) (ordinals 0 to "
                     "%d)",
                     ordinal, count, count - 1);
  CU(st, st->api.cuDeviceGet(&st->dev, ordinal), NULL);
  int major = 0, minor = 0;
  CU(st,
     st->api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, st->dev),
     NULL);
  CU(st,
     st->api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, st->dev),
     NULL);
  CU(st,
     st->api.cuDeviceGetAttribute(&st->smem_default,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, st->dev),
     NULL);
  CU(st,
     st->api.cuDeviceGetAttribute(&st->smem_optin,
                                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, st->dev),
     NULL);
  if (!st->arch[0]) snprintf(st->arch, sizeof st->arch, "sm_%d%d", major, minor);
  CU(st, st->api.cuDevicePrimaryCtxRetain(&st->cuctx, st->dev), NULL);
  st->have_ctx = 1;
  CU(st, st->api.cuCtxSetCurrent(st->cuctx), NULL);
  char name[256] = "";
  if (st->api.cuDeviceGetName(name, sizeof name, st->dev) != CUDA_SUCCESS) name[0] = '\0';
  op2_diag(1, "cuda backend: %s device %d '%s', compute capability %d.%d, kernels for %s",
           st->api.name ? st->api.name : "driver", ordinal, name, major, minor, st->arch);
  return OP2_OK;
}

int op2_cuda_init(op2_context *ctx, const op2_cu_api *api, void *driver_data, int emulated) {
  op2_cuda_state *st = calloc(1, sizeof *st);
  if (!st) return op2_error(OP2_ERR_MEM, "cuda backend: out of memory");
  ctx->backend_data = st;
  st->emulated = emulated;
  st->driver_data = driver_data;
  /* a test's table stands in for the real driver and the emulator's */
  if (ctx->backend_test_driver)
    st->api = *(const op2_cu_api *)ctx->backend_test_driver;
  else if (api)
    st->api = *api;
  const op2_cuda_options *opt = op2_cuda_options_of(ctx);
  st->asked = asked_strategy(opt->strategy);
  st->block_size = opt->block_size;
  snprintf(st->arch, sizeof st->arch, "%s", opt->arch); /* "": the device's */
  int rc = init_device(ctx, st);
  if (rc != OP2_OK) {
    op2_cuda_finalize(ctx);
    return rc;
  }
  return OP2_OK;
}

/* ---- per loop: strategy, kernel, plan ---- */

/* The module of generated source (consumed): one per source and architecture, built or taken
 * from the disk cache. `name` is the loop's, for the cache entry and messages. */
/* The loaded function's own limit on threads per block: a kernel using many registers may run
 * fewer than OP2_CUDA_BLOCK_SIZE, and a launch beyond it fails on the GPU alone. The blocks of
 * this module are cut to whole warps within it (threads_for). A real driver also says what the
 * function uses (registers, local memory per thread, static shared memory): static shared memory
 * counts against the block's limit (launch), and OP2_DIAGS=2 shows all of it. */
static int read_limits(op2_cuda_state *st, cuda_module *m, const char *name) {
  int v = 0;
  CU(st, st->api.cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, m->fn), name);
  if (v < 32)
    return op2_error(OP2_ERR_STATE,
                     "op_par_loop '%s': the device runs at most %d threads per block of its "
                     "kernel, less than one warp",
                     name, v);
  m->max_threads = v;
  if (v < st->block_size)
    op2_diag(1,
             "op_par_loop '%s': its kernel runs at most %d threads per block on this device, "
             "OP2_CUDA_BLOCK_SIZE is %d: its blocks have %d threads",
             name, v, st->block_size, v / 32 * 32);
  if (st->emulated) return OP2_OK; /* the emulator's functions have no registers */
  CU(st, st->api.cuFuncGetAttribute(&m->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, m->fn), name);
  CU(st, st->api.cuFuncGetAttribute(&m->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, m->fn),
     name);
  CU(st, st->api.cuFuncGetAttribute(&m->static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, m->fn),
     name);
  op2_diag(2,
           "op_par_loop '%s': kernel loaded by the driver for %s: %d registers, %d bytes of local "
           "memory per thread (spills, stack), %d bytes of static shared memory, at most %d "
           "threads per block",
           name, st->arch, m->registers, m->local_bytes, m->static_smem, v);
  return OP2_OK;
}

/* Threads per block for a module: OP2_CUDA_BLOCK_SIZE, or the loop's tuned size (never more:
 * the kernel's launch bound), within the function's limit. */
static unsigned threads_for(const op2_cuda_state *st, const cuda_module *m, const op2_loop *loop) {
  int bs = loop && loop->params.block_size && loop->params.block_size < st->block_size
               ? loop->params.block_size
               : st->block_size;
  if (m->max_threads && m->max_threads < bs) bs = m->max_threads / 32 * 32;
  return (unsigned)bs;
}

/* A CUBIN the device or driver cannot run (built for another architecture, or newer than the
 * driver): its PTX, NUL-terminated as cuModuleLoadData wants it, may still load. */
static int cubin_refused(CUresult r) {
  return r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE ||
         r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
}

static void module_free(cuda_module *m) {
  for (int i = 0; i < m->nlive; i++) free(m->live[i].sent);
  free(m->live);
  op2_kernel_free(m->kernel);
  free(m);
}

/* cuModuleGetGlobal in emulation: the emulated module's own symbol. */
static void *emu_global(const op2_emu_image *img, const char *name, size_t *bytes) {
  return op2_kernel_symbol(img->kernel, name, bytes);
}

/* op2_jit_kernel's search of the kernels built before: those of the loaded modules. */
static op2_kernel *loaded_kernel(void *arg, uint64_t hi, uint64_t lo) {
  op2_cuda_state *st = arg;
  for (int i = 0; i < st->modules.count; i++) {
    cuda_module *m = st->modules.items[i];
    uint64_t key[2];
    op2_kernel_key(m->kernel, key);
    if (key[0] == hi && key[1] == lo) return m->kernel;
  }
  return NULL;
}

static void count(op2_jit_counters *to, const op2_jit_counters *add) {
  to->compiles += add->compiles, to->disk_hits += add->disk_hits;
  to->disk_rejects += add->disk_rejects, to->store_failures += add->store_failures;
}

/* Loads a fresh kernel into the driver. */
static int module_load(op2_cuda_state *st, cuda_module *m) {
  const op2_kernel *k = m->kernel;
  const char *name = op2_kernel_name(k);
  const void *image;
  if (st->emulated) {
    m->image.entry = op2_kernel_entry(k);
    m->image.global = emu_global;
    m->image.kernel = k;
    image = &m->image;
  } else {
    size_t len;
    image = op2_kernel_image(k, &len);
  }
  CUresult r = st->api.cuModuleLoadData(&m->mod, image);
  const char *ptx = op2_kernel_ptx(k);
  if (ptx && cubin_refused(r)) {
    const char *text = NULL;
    if (st->api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
    op2_diag(1,
             "op_par_loop '%s': the driver refuses the CUBIN for %s (CUDA error %d, %s): "
             "loading its PTX, which the driver compiles",
             name, st->arch, (int)r, text ? text : "no description");
    r = st->api.cuModuleLoadData(&m->mod, ptx);
  }
  if (r == CUDA_SUCCESS) r = st->api.cuModuleGetFunction(&m->fn, m->mod, "op2_cuda_kernel");
  if (r != CUDA_SUCCESS) return cu_error(st, r, "loading the kernel module", name);
  return read_limits(st, m, name);
}

/* The module of a request (a loop's kernel under its layout, or a halo gather kernel): jit/
 * builds or finds the kernel (op2_jit_kernel: one per source and architecture, compiled or from
 * the disk cache), and a kernel built anew is loaded here. *fresh: it was. */
static int module_for(op2_context *ctx, op2_cuda_state *st, op2_jit_request *rq, cuda_module **out,
                      bool *fresh) {
  rq->target = ctx->backend->target;
  rq->find_loaded = loaded_kernel;
  rq->find_arg = st;
  rq->cuda.arch = st->arch;
  rq->cuda.ptxas = op2_cuda_options_of(ctx)->ptxas;
  rq->cuda.verify_archs = op2_cuda_options_of(ctx)->emu_verify;
  op2_jit_result res;
  int rc = op2_jit_kernel(ctx->jit_engine, rq, &res);
  count(&st->counters, &res.counts);
  *fresh = res.fresh;
  if (rc != OP2_OK) return op2_jit_report(ctx, rc);
  for (int i = 0; !res.fresh && i < st->modules.count; i++) {
    cuda_module *m = st->modules.items[i];
    if (m->kernel == res.kernel) return *out = m, OP2_OK;
  }
  cuda_module *m = calloc(1, sizeof *m);
  if (!m) {
    op2_jit_discard(ctx->jit_engine, res.kernel);
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", op2_kernel_name(res.kernel));
  }
  m->kernel = res.kernel;
  rc = module_load(st, m);
  m->smem_limit = st->smem_default - m->static_smem; /* the default covers both */
  if (rc == OP2_OK) rc = op2_list_push(&st->modules, m);
  if (rc != OP2_OK) {
    if (m->mod) st->api.cuModuleUnload(m->mod);
    module_free(m);
    return rc;
  }
  *out = m;
  return OP2_OK;
}

/* The __constant__ variables of the live constants a loop's kernel reads (codegen.c declares
 * one for each), found once per module after loading. */
static int find_live_constants(op2_cuda_state *st, const op2_loop *loop, cuda_module *m) {
  op2_const *const *used = NULL;
  int n = op2_kernel_constants(m->kernel, &used);
  int nlive = 0;
  for (int i = 0; i < n; i++) nlive += used[i]->live;
  free(m->live); /* an earlier attempt that failed copied nothing */
  m->nlive = 0;
  m->live = nlive ? calloc((size_t)nlive, sizeof *m->live) : NULL;
  if (nlive && !m->live) {
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
  }
  int rc = OP2_OK;
  for (int i = 0; i < n && rc == OP2_OK; i++) {
    const op2_const *c = used[i];
    if (!c->live) continue;
    live_const *l = &m->live[m->nlive++];
    l->c = c;
    l->bytes = (size_t)c->dim * op2_type_size(c->type);
    char symbol[300];
    snprintf(symbol, sizeof symbol, "%s%s", OP2_LIVE_CONST_PREFIX, c->name);
    size_t bytes = 0;
    CUresult r = st->api.cuModuleGetGlobal(&l->ptr, &bytes, m->mod, symbol);
    if (r != CUDA_SUCCESS)
      rc = cu_error(st, r, "cuModuleGetGlobal (a live constant's __constant__ variable)",
                    loop->name);
    else if (bytes && bytes != l->bytes) /* the emulator may not know a size: 0 */
      rc = op2_error(OP2_ERR_STATE,
                     "op_par_loop '%s': the kernel's constant '%s' has %zu bytes in device "
                     "memory, op_decl_const declared %zu",
                     loop->name, c->name, bytes, l->bytes);
  }
  m->live_found = rc == OP2_OK;
  return rc;
}

/* Before a launch: every live constant whose value changed since the module's last launch. */
static int update_live_constants(op2_cuda_state *st, cuda_module *m, const char *name) {
  for (int i = 0; i < m->nlive; i++) {
    live_const *l = &m->live[i];
    if (l->sent && memcmp(l->sent, l->c->data, l->bytes) == 0) continue;
    if (!l->sent && !(l->sent = malloc(l->bytes)))
      return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    /* in stream order: launches queued before still read the previous value */
    CU(st, st->api.cuMemcpyHtoD(l->ptr, l->c->data, l->bytes), name);
    memcpy(l->sent, l->c->data, l->bytes);
  }
  return OP2_OK;
}

/* The module of a loop under a layout, built (or found) once per loop shape by prepare. */
static int loop_module(op2_context *ctx, op2_cuda_state *st, const op2_loop *loop,
                       const op2_cuda_layout *lay, cuda_module **out) {
  /* loop.c keeps the kernel text at the start of the shape key (NUL-terminated). */
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  op2_jit_request rq = {.loop = &d, .kernel_src = loop->key_blob, .cuda.layout = lay};
  int refused = st->counters.disk_rejects;
  bool fresh = false;
  OP2_CALL(module_for(ctx, st, &rq, out, &fresh));
  /* What op_timing_output reports: one kernel per loop module, compiled or from the disk cache
   * (the emulator's NVRTC verification builds are counted in st->counters only). */
  ctx->jit.disk_rejects += st->counters.disk_rejects - refused;
  if (!(*out)->live_found) OP2_CALL(find_live_constants(st, loop, *out));
  if (!fresh) return OP2_OK; /* built before */
  if (op2_kernel_origin_of((*out)->kernel) == OP2_FROM_DISK)
    ctx->jit.disk_hits++, loop->stats->kernels_from_disk++;
  else
    ctx->jit.compiles++, loop->stats->kernels_compiled++;
  return OP2_OK;
}

typedef struct {
  op2_cuda_state *st;
  op2_loop *loop;
  const op2_cuda_layout *lay;
} module_job;

static int build_module(op2_context *ctx, void *arg) {
  module_job *j = arg;
  return loop_module(ctx, j->st, j->loop, j->lay, (cuda_module **)&j->loop->backend_kernel);
}

/* The loop's layout (base/cuda_layout.h), a loop the CUDA strategies cannot run reported here. */
static int layout_make(const op2_loop_desc *d, int asked, op2_cuda_layout *lay) {
  op2_jit_error err = {0};
  if (op2_cuda_layout_make(d, asked, lay, &err) != OP2_OK)
    return op2_error_record(&err, "%s", err.msg);
  return OP2_OK;
}

/* One build per machine (runtime/mpi/): its first rank compiles into the disk cache and the
 * others then load that entry. */
int op2_cuda_prepare(op2_context *ctx, op2_loop *loop) {
  op2_cuda_state *st = state(ctx);
  op2_cuda_layout lay;
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  OP2_CALL(layout_make(&d, st->asked, &lay));
  lay.max_threads = st->block_size;
  module_job job = {st, loop, &lay};
  return op2_mpi_node_build(ctx, build_module, &job);
}

static int upload_plan(op2_cuda_state *st, cuda_loop *cl) {
  const op2_cuda_plan *p = cl->plan;
  const char *name = cl->loop->name;
  int n = p->end - p->begin;
  if (p->strategy == OP2_CUDA_GLOBAL)
    return upload(st, &cl->col_elems, p->col_elems, sizeof(int) * (size_t)n, name);
  int ng = cl->lay.ngroups;
  OP2_CALL(upload(st, &cl->blkmap, p->blkmap, sizeof(int) * (size_t)p->nblocks, name));
  OP2_CALL(upload(st, &cl->thr_elem, p->thr_elem, sizeof(int) * (size_t)n, name));
  OP2_CALL(upload(st, &cl->thrcol, p->thrcol, (size_t)n, name));
  OP2_CALL(upload(st, &cl->nthrcol, p->nthrcol, sizeof(int) * (size_t)p->nblocks, name));
  OP2_CALL(upload(st, &cl->ind_offs, p->ind_offs, sizeof(int) * (size_t)(ng * p->nblocks), name));
  OP2_CALL(upload(st, &cl->ind_sizes, p->ind_sizes, sizeof(int) * (size_t)(ng * p->nblocks), name));
  OP2_CALL(upload(st, &cl->ind_map, p->ind_map, sizeof(int) * (size_t)p->ind_map_len, name));
  return upload(st, &cl->loc_map, p->loc_map,
                sizeof(unsigned short) * (size_t)n * (size_t)cl->lay.nslots, name);
}

static int setup_loop(op2_context *ctx, op2_cuda_state *st, cuda_loop *cl, int begin, int end) {
  const op2_loop *loop = cl->loop;
  double t0 = op2_wall_seconds();
  op2_loop_desc d;
  op2_loop_describe(ctx, loop, &d);
  OP2_CALL(layout_make(&d, st->asked, &cl->lay));
  cl->lay.max_threads = st->block_size;
  if (cl->lay.why[0]) op2_diag(1, "cuda backend, loop '%s': %s", loop->name, cl->lay.why);
  cl->mod = loop->backend_kernel; /* prepare built it under the same layout */
  loop->stats->jit_ms += 1e3 * (op2_wall_seconds() - t0);
  if (cl->lay.strategy == OP2_CUDA_GLOBAL || cl->lay.strategy == OP2_CUDA_HIER) {
    OP2_CALL(op2_cuda_plan_build(ctx, loop, &cl->lay, begin, end, &cl->plan));
    loop->stats->plan_seconds += cl->plan->build_seconds;
    OP2_CALL(upload_plan(st, cl));
    op2_diag(2,
             "cuda plan for loop '%s' (%s): %d colours, %d blocks in %d block colours, at "
             "most %d thread colours, %d bytes staged per block",
             loop->name, op2_cuda_strategy_name(cl->lay.strategy), cl->plan->ncolours,
             cl->plan->nblocks, cl->plan->nblock_colours, cl->plan->max_thread_colours,
             cl->plan->stage_bytes);
  }
  /* Global arguments: one device buffer, the values of each call copied in before launch. */
  size_t off = 0;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind != OP2_ARG_GBL) continue;
    cl->gbl_off[i] = (int)off;
    off += ((size_t)d->dim * op2_type_size(d->type) + 7) / 8 * 8;
  }
  cl->gbl_bytes = off;
  if (off) {
    cl->gbl_host = calloc(1, off);
    if (!cl->gbl_host) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
    CU(st, st->api.cuMemAlloc(&cl->gbl.ptr, off), loop->name);
    cl->gbl.bytes = off;
  }
  op2_diag(2, "cuda backend: loop '%s' runs with the %s strategy", loop->name,
           op2_cuda_strategy_name(cl->lay.strategy));
  return OP2_OK;
}

static void loop_release(op2_cuda_state *st, cuda_loop *cl) {
  dev_buf *bufs[] = {&cl->col_elems, &cl->blkmap,   &cl->thr_elem,  &cl->thrcol,
                     &cl->nthrcol,   &cl->ind_offs, &cl->ind_sizes, &cl->ind_map,
                     &cl->loc_map,   &cl->gbl,      &cl->red};
  for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) release(st, bufs[i]);
  op2_cuda_plan_free(cl->plan);
  free(cl->gbl_host), free(cl->red_host);
  free(cl);
}

static int same_run(const cuda_loop *cl, const op2_exec *exec) {
  return cl->loop == exec->loop && cl->begin == exec->begin && cl->end == exec->end;
}

static int loop_state(op2_context *ctx, op2_cuda_state *st, const op2_exec *exec, cuda_loop **out) {
  if (st->last && same_run(st->last, exec)) return *out = st->last, OP2_OK;
  for (int i = 0; i < st->loops.count; i++) {
    cuda_loop *cl = st->loops.items[i];
    if (same_run(cl, exec)) return *out = st->last = cl, OP2_OK;
  }
  cuda_loop *cl = calloc(1, sizeof *cl);
  if (!cl) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", exec->loop->name);
  cl->loop = exec->loop;
  cl->begin = exec->begin;
  cl->end = exec->end;
  int rc = setup_loop(ctx, st, cl, exec->begin, exec->end);
  if (rc == OP2_OK) rc = op2_list_push(&st->loops, cl);
  if (rc != OP2_OK) return loop_release(st, cl), rc;
  *out = st->last = cl;
  return OP2_OK;
}

/* ---- data on the device ---- */

static int dat_device(op2_cuda_state *st, op_dat dat, CUdeviceptr *out, const char *name) {
  if (!dat->device) {
    dev_buf *d = calloc(1, sizeof *d);
    if (!d) return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    int rc = upload(st, d, dat->data, op2_set_local_count(dat->set) * dat->elem_bytes, name);
    if (rc != OP2_OK) return free(d), rc;
    dat->device = d;
    dat->device_newer = false;
  }
  *out = ((dev_buf *)dat->device)->ptr;
  return OP2_OK;
}

static int grow(dev_buf **arr, int *n, int need) {
  if (need <= *n) return OP2_OK;
  dev_buf *a = realloc(*arr, sizeof **arr * (size_t)need);
  if (!a) return OP2_ERR_MEM;
  memset(a + *n, 0, sizeof *a * (size_t)(need - *n));
  *arr = a;
  *n = need;
  return OP2_OK;
}

static int map_device(op2_cuda_state *st, op_map map, CUdeviceptr *out, const char *name) {
  if (grow(&st->maps, &st->nmaps, map->index + 1) != OP2_OK)
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  dev_buf *d = &st->maps[map->index];
  /* under MPI a map also has rows for the exec halo, which indirect-write loops run */
  size_t rows = (size_t)map->from->size + (size_t)map->from->exec_size;
  if (!d->bytes && rows > 0)
    OP2_CALL(upload(st, d, map->values, sizeof(int) * rows * (size_t)map->dim, name));
  *out = d->ptr;
  return OP2_OK;
}

static int orig_device(op2_cuda_state *st, op_set set, CUdeviceptr *out, const char *name) {
  *out = 0;
  if (!set->orig) return OP2_OK;
  if (grow(&st->origs, &st->norigs, set->index + 1) != OP2_OK)
    return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
  dev_buf *d = &st->origs[set->index];
  int failed;
  const int *table = op2_set_idx_table(set, name, &failed);
  if (failed) return OP2_ERR_ARG;
  if (!d->bytes && set->size > 0)
    OP2_CALL(upload(st, d, table, sizeof(int) * op2_set_local_count(set), name));
  *out = d->ptr;
  return OP2_OK;
}

/* ---- running a loop ---- */

static int launch(op2_cuda_state *st, cuda_module *m, const char *name, op2_cuda_params *p,
                  unsigned grid, unsigned block, unsigned smem) {
  if ((int)smem > m->smem_limit) {
    if ((int)smem + m->static_smem > st->smem_optin)
      return op2_error(OP2_ERR_ARG,
                       "op_par_loop '%s': needs %u bytes of shared memory per "
                       "block (and %d static), the device has %d; lower OP2_PART_SIZE (now %d)",
                       name, smem, m->static_smem, st->smem_optin, p->part_size);
    CU(st,
       st->api.cuFuncSetAttribute(m->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                  (int)smem),
       name);
    m->smem_limit = (int)smem;
  }
  void *params[] = {p};
  CU(st, st->api.cuLaunchKernel(m->fn, grid, 1, 1, block, 1, 1, smem, NULL, params, NULL), name);
  return OP2_OK;
}

static unsigned ceil_div(long a, long b) {
  return (unsigned)((a + b - 1) / b);
}

/* Launches of one call; *records counts the reduction records (blocks) they write. */
static int launches(op2_cuda_state *st, cuda_loop *cl, op2_cuda_params *p, int count_only,
                    int *records) {
  const op2_cuda_layout *lay = &cl->lay;
  const op2_cuda_plan *plan = cl->plan;
  unsigned bs = threads_for(st, cl->mod, cl->loop);
  int n = p->end - p->begin;
  *records = 0;
  if (lay->strategy == OP2_CUDA_DIRECT || lay->strategy == OP2_CUDA_ATOMICS) {
    unsigned grid = ceil_div(n, bs);
    p->block_offset = 0;
    if (!count_only && grid)
      OP2_CALL(launch(st, cl->mod, cl->loop->name, p, grid, bs,
                      lay->nred ? bs * (unsigned)lay->red_thread_bytes : 0));
    *records = (int)grid;
    return OP2_OK;
  }
  if (lay->strategy == OP2_CUDA_GLOBAL) {
    p->col_elems = (const int *)(uintptr_t)cl->col_elems.ptr;
    for (int c = 0; c < plan->ncolours; c++) {
      p->col_begin = plan->col_offset[c];
      p->col_count = plan->col_offset[c + 1] - plan->col_offset[c];
      p->block_offset = *records;
      unsigned grid = ceil_div(p->col_count, bs);
      if (!count_only && grid)
        OP2_CALL(launch(st, cl->mod, cl->loop->name, p, grid, bs,
                        lay->nred ? bs * (unsigned)lay->red_thread_bytes : 0));
      *records += (int)grid;
    }
    return OP2_OK;
  }
  /* hierarchical: one launch per block colour, a thread per position (looping when the part
   * size exceeds the block size) */
  unsigned threads = plan->part_size < (int)bs ? (unsigned)plan->part_size : bs;
  p->part_size = plan->part_size;
  p->nblocks = plan->nblocks;
  p->npos = plan->npos;
  p->blkmap = (const int *)(uintptr_t)cl->blkmap.ptr;
  p->thr_elem = (const int *)(uintptr_t)cl->thr_elem.ptr;
  p->thrcol = (const unsigned char *)(uintptr_t)cl->thrcol.ptr;
  p->nthrcol = (const int *)(uintptr_t)cl->nthrcol.ptr;
  p->ind_offs = (const int *)(uintptr_t)cl->ind_offs.ptr;
  p->ind_sizes = (const int *)(uintptr_t)cl->ind_sizes.ptr;
  p->ind_map = (const int *)(uintptr_t)cl->ind_map.ptr;
  p->loc_map = (const unsigned short *)(uintptr_t)cl->loc_map.ptr;
  for (int g = 0; g < lay->ngroups; g++) p->goff[g] = plan->goff[g];
  p->red_smem_off = (plan->stage_bytes + 15) / 16 * 16;
  unsigned smem =
      (unsigned)p->red_smem_off + (lay->nred ? threads * (unsigned)lay->red_thread_bytes : 0);
  for (int c = 0; c < plan->nblock_colours; c++) {
    p->block_offset = plan->block_col_offset[c];
    unsigned grid = (unsigned)(plan->block_col_offset[c + 1] - plan->block_col_offset[c]);
    if (!count_only && grid) OP2_CALL(launch(st, cl->mod, cl->loop->name, p, grid, threads, smem));
  }
  *records = plan->nblocks;
  return OP2_OK;
}

/* Block partials are combined on the host, in block order, so a run repeats bit for bit. */
static int finish_reductions(op2_cuda_state *st, cuda_loop *cl, void *const *dst, int records) {
  const op2_cuda_layout *lay = &cl->lay;
  size_t rec = (size_t)lay->red_rec_bytes;
  CU(st, st->api.cuMemcpyDtoH(cl->red_host, cl->red.ptr, rec * (size_t)records), cl->loop->name);
  void *part[OP2_CUDA_MAX_ARGS];
  for (int r = 0; r < records; r++) {
    for (int i = 0; i < cl->loop->nargs; i++)
      part[i] = lay->red_off[i] < 0 ? NULL : cl->red_host + (size_t)r * rec + lay->red_off[i];
    op2_reduction_fold_part(cl->loop->desc, cl->loop->nargs, dst, part);
  }
  return OP2_OK;
}

int op2_cuda_run(op2_context *ctx, const op2_exec *exec) {
  op2_cuda_state *st = state(ctx);
  cuda_loop *cl = NULL;
  OP2_CALL(loop_state(ctx, st, exec, &cl));
  const op2_loop *loop = exec->loop;
  op2_cuda_params p;
  memset(&p, 0, sizeof p);
  p.begin = exec->begin;
  p.end = exec->end;
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    const op_arg *a = &loop->args[i];
    CUdeviceptr ptr = 0;
    if (d->kind == OP2_ARG_DAT && !d->opt_off) {
      OP2_CALL(dat_device(st, a->dat, &ptr, loop->name));
    } else if (d->kind == OP2_ARG_GBL) {
      memcpy(cl->gbl_host + cl->gbl_off[i], exec->arg_ptrs[i],
             (size_t)d->dim * op2_type_size(d->type));
      ptr = cl->gbl.ptr + (CUdeviceptr)cl->gbl_off[i];
    } else if (d->kind == OP2_ARG_IDX) {
      OP2_CALL(orig_device(st, d->map_arity ? a->map->to : loop->set, &ptr, loop->name));
    }
    p.arg[i] = (void *)(uintptr_t)ptr;
    if (d->map_arity && !d->opt_off) {
      OP2_CALL(map_device(st, a->map, &ptr, loop->name));
      p.map[d->map_group] = (const int *)(uintptr_t)ptr;
    }
  }
  if (cl->gbl_bytes)
    CU(st, st->api.cuMemcpyHtoD(cl->gbl.ptr, cl->gbl_host, cl->gbl_bytes), loop->name);
  OP2_CALL(update_live_constants(st, cl->mod, loop->name));
  int records = 0;
  if (cl->lay.nred) {
    OP2_CALL(launches(st, cl, &p, 1, &records));
    size_t need = (size_t)records * (size_t)cl->lay.red_rec_bytes;
    if (need > cl->red.bytes) {
      release(st, &cl->red);
      free(cl->red_host);
      cl->red_host = malloc(need);
      if (!cl->red_host)
        return op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", loop->name);
      CU(st, st->api.cuMemAlloc(&cl->red.ptr, need), loop->name);
      cl->red.bytes = need;
    }
    p.red = (char *)(uintptr_t)cl->red.ptr;
  }
  if (exec->async && st->nqueued == MAX_QUEUED) OP2_CALL(op2_cuda_complete(ctx));
  OP2_CALL(launches(st, cl, &p, 0, &records));
  for (int i = 0; i < loop->nargs; i++) {
    const op2_arg_desc *d = &loop->desc[i];
    if (d->kind == OP2_ARG_DAT && !d->opt_off && d->acc != OP_READ)
      loop->args[i].dat->device_newer = true;
  }
  if (exec->async) { /* MPI phases: the caller waits once, after the last (op2_cuda_complete) */
    queued_run *q = &st->queued[st->nqueued++];
    q->cl = cl;
    q->records = cl->lay.nred ? records : 0;
    memcpy(q->dst, exec->arg_ptrs, sizeof(void *) * (size_t)loop->nargs);
    return OP2_OK;
  }
  /* The host waits only for a result it needs: a loop without reductions is queued behind the
   * previous ones on the stream, and an asynchronous error it causes is reported by the next
   * call that waits (a reduction, op_fetch_data, a halo exchange, op_exit). */
  if (cl->lay.nred && records) {
    CU(st, st->api.cuCtxSynchronize(), loop->name);
    OP2_CALL(finish_reductions(st, cl, exec->arg_ptrs, records));
  }
  return OP2_OK;
}

int op2_cuda_complete(op2_context *ctx) {
  op2_cuda_state *st = state(ctx);
  if (!st || !st->nqueued) return OP2_OK;
  int n = st->nqueued;
  st->nqueued = 0;
  CU(st, st->api.cuCtxSynchronize(), st->queued[n - 1].cl->loop->name);
  for (int i = 0; i < n; i++) {
    queued_run *q = &st->queued[i];
    if (q->records) OP2_CALL(finish_reductions(st, q->cl, q->dst, q->records));
  }
  return OP2_OK;
}

/* ---- halo exchanges under MPI ---- */

static int gather_kernel_for(op2_context *ctx, op2_cuda_state *st, size_t row_bytes,
                             cuda_module **out) {
  for (int i = 0; i < st->ngathers; i++)
    if (st->gathers[i].row_bytes == row_bytes) return *out = st->gathers[i].mod, OP2_OK;
  gather_kernel *g = realloc(st->gathers, sizeof *g * (size_t)(st->ngathers + 1));
  if (!g) return op2_error(OP2_ERR_MEM, "halo exchange: out of memory");
  st->gathers = g;
  op2_jit_request rq = {.cuda.gather_row_bytes = row_bytes};
  bool fresh;
  OP2_CALL(module_for(ctx, st, &rq, out, &fresh));
  st->gathers[st->ngathers++] = (gather_kernel){row_bytes, *out};
  return OP2_OK;
}

int op2_cuda_halo_pack(op2_context *ctx, const char *name, op_dat dat, const int *rows, int n,
                       void *out) {
  op2_cuda_state *st = state(ctx);
  size_t bytes = (size_t)n * dat->elem_bytes;
  cuda_module *m = NULL;
  OP2_CALL(gather_kernel_for(ctx, st, dat->elem_bytes, &m));
  if (grow(&st->send_rows, &st->nsend_rows, dat->set->index + 1) != OP2_OK)
    return op2_error(OP2_ERR_MEM, "halo exchange: out of memory");
  dev_buf *list = &st->send_rows[dat->set->index];
  if (!list->bytes) OP2_CALL(upload(st, list, rows, sizeof(int) * (size_t)n, name));
  if (bytes > st->halo_buf.bytes) {
    release(st, &st->halo_buf);
    CU(st, st->api.cuMemAlloc(&st->halo_buf.ptr, bytes), name);
    st->halo_buf.bytes = bytes;
  }
  CUdeviceptr base = 0;
  OP2_CALL(dat_device(st, dat, &base, name));
  op2_cuda_params p;
  memset(&p, 0, sizeof p);
  p.arg[0] = (void *)(uintptr_t)base;
  p.arg[1] = (void *)(uintptr_t)st->halo_buf.ptr;
  p.map[0] = (const int *)(uintptr_t)list->ptr;
  p.begin = 0;
  p.end = n;
  /* a thread per word of the packed rows: consecutive threads store consecutive words */
  size_t word = dat->elem_bytes % 8 == 0 ? 8 : dat->elem_bytes % 4 == 0 ? 4 : 1;
  unsigned bs = threads_for(st, m, NULL);
  OP2_CALL(launch(st, m, name, &p, ceil_div((long)(bytes / word), bs), bs, 0));
  /* ordered after the gather and any queued loop that wrote the dat */
  CU(st, st->api.cuMemcpyDtoH(out, st->halo_buf.ptr, bytes), name);
  return OP2_OK;
}

int op2_cuda_halo_unpack(op2_context *ctx, const char *name, op_dat dat) {
  op2_cuda_state *st = state(ctx);
  dev_buf *d = dat->device;
  size_t first = (size_t)dat->set->size * dat->elem_bytes;
  size_t bytes = ((size_t)dat->set->exec_size + (size_t)dat->set->nonexec_size) * dat->elem_bytes;
  if (d && bytes) CU(st, st->api.cuMemcpyHtoD(d->ptr + first, dat->data + first, bytes), name);
  return OP2_OK;
}

/* Page-locked: the driver copies to and from it directly, with no staging copy through a
 * pageable bounce buffer, and it can take part in asynchronous copies. */
int op2_cuda_host_alloc(op2_context *ctx, const char *name, size_t bytes, void **out) {
  op2_cuda_state *st = state(ctx);
  *out = NULL;
  CUresult r = st->api.cuMemHostAlloc(out, bytes ? bytes : 1, 0);
  if (r != CUDA_SUCCESS) {
    *out = NULL;
    return cu_error(st, r, "cuMemHostAlloc (page-locked memory for halo messages)", name);
  }
  return OP2_OK;
}

void op2_cuda_host_free(op2_context *ctx, void *p) {
  op2_cuda_state *st = state(ctx);
  if (p && st && st->api.cuMemFreeHost(p) != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: cuMemFreeHost failed");
}

int op2_cuda_sync_host(op2_context *ctx, op_dat dat) {
  op2_cuda_state *st = state(ctx);
  dev_buf *d = dat->device;
  if (!st || !d || !dat->device_newer) return OP2_OK;
  /* the loops queued before are waited for here, so their errors are named as such */
  CU(st, st->api.cuCtxSynchronize(), NULL);
  if (d->bytes) CU(st, st->api.cuMemcpyDtoH(dat->data, d->ptr, d->bytes), NULL);
  dat->device_newer = false;
  return OP2_OK;
}

/* Every launch queued before has finished: MPI phases with their reductions, then the stream
 * (a loop without reductions returns before its kernel has run, and may still use the dat). */
static int wait_device(op2_context *ctx, op2_cuda_state *st, op_dat dat) {
  OP2_CALL(op2_cuda_complete(ctx));
  CUresult r = st->api.cuCtxSynchronize();
  if (r == CUDA_SUCCESS) return OP2_OK;
  const char *text = NULL;
  if (!st->api.cuGetErrorString || st->api.cuGetErrorString(r, &text) != CUDA_SUCCESS) text = NULL;
  return op2_error(OP2_ERR_STATE,
                   "op_free_dat_temp '%s': waiting for the loops queued on the device failed: "
                   "CUDA error %d (%s); the dat is not freed",
                   dat->name, (int)r, text ? text : "no description");
}

int op2_cuda_free_dat(op2_context *ctx, op_dat dat) {
  op2_cuda_state *st = state(ctx);
  dev_buf *d = dat->device;
  int rc = st && d ? wait_device(ctx, st, dat) : OP2_OK;
  /* every rank frees its copy, or none does: the ranks' dats stay the same list (a rank whose
   * dat was never used on the device has nothing to wait for, but agrees) */
  if (ctx->mpi.size > 1) rc = op2_mpi_agree(ctx, rc, "op_free_dat_temp");
  if (rc != OP2_OK || !st || !d) return rc;
  if (d->ptr && st->api.cuMemFree(d->ptr) != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: cuMemFree of dat '%s' failed", dat->name);
  free(d);
  dat->device = NULL;
  dat->device_newer = false;
  return OP2_OK;
}

void op2_cuda_forget_loop(op2_context *ctx, const op2_loop *loop) {
  op2_cuda_state *st = state(ctx);
  if (!st) return;
  /* nothing queued may finish into a run about to go (op2_cuda_free_dat completed them), nor
   * may a launch still read its plan's device arrays */
  bool found = false;
  for (int i = 0; i < st->loops.count && !found; i++)
    found = ((cuda_loop *)st->loops.items[i])->loop == loop;
  if (!found) return;
  if (op2_cuda_complete(ctx) != OP2_OK || st->api.cuCtxSynchronize() != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: waiting for the device before freeing loop '%s' failed", loop->name);
  int kept = 0;
  for (int i = 0; i < st->loops.count; i++) {
    cuda_loop *cl = st->loops.items[i];
    if (cl->loop != loop) {
      st->loops.items[kept++] = cl;
      continue;
    }
    if (st->last == cl) st->last = NULL;
    loop_release(st, cl);
  }
  st->loops.count = kept;
}

int op2_cuda_runs_held(void) {
  op2_context *ctx = op2_ctx();
  op2_cuda_state *st = ctx->initialised && ctx->backend && ctx->backend->prepare == op2_cuda_prepare
                           ? state(ctx)
                           : NULL;
  return st ? st->loops.count : -1;
}

int op2_cuda_loop_strategy(const char *loop_name) {
  op2_context *ctx = op2_ctx();
  /* backend_data is the CUDA state under the backends whose prepare is ours (cuda, cuda-emu) */
  op2_cuda_state *st = ctx->initialised && ctx->backend && ctx->backend->prepare == op2_cuda_prepare
                           ? state(ctx)
                           : NULL;
  if (!st) return -1;
  for (int i = 0; i < st->loops.count; i++) {
    cuda_loop *cl = st->loops.items[i];
    if (!strcmp(cl->loop->name, loop_name)) return (int)cl->lay.strategy;
  }
  return -1;
}

void op2_cuda_finalize(op2_context *ctx) {
  op2_cuda_state *st = state(ctx);
  if (!st) return;
  if (st->modules.count)
    op2_diag(1,
             "cuda backend: %d kernel modules; builds: %d compiled, %d from the disk cache, %d "
             "cache entries refused",
             st->modules.count, st->counters.compiles, st->counters.disk_hits,
             st->counters.disk_rejects);
  if (st->nqueued && st->api.cuCtxSynchronize() != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: synchronising failed at exit");
  st->nqueued = 0;
  for (int i = 0; i < st->loops.count; i++) loop_release(st, st->loops.items[i]);
  free(st->loops.items);
  for (int i = 0; i < st->modules.count; i++) {
    cuda_module *m = st->modules.items[i];
    if (m->mod && st->api.cuModuleUnload(m->mod) != CUDA_SUCCESS)
      op2_diag(1, "cuda backend: cuModuleUnload failed at exit");
    module_free(m);
  }
  free(st->modules.items);
  for (int i = 0; i < ctx->dats.count; i++) {
    op_dat dat = ctx->dats.items[i];
    if (!dat->device) continue;
    release(st, dat->device);
    free(dat->device);
    dat->device = NULL;
  }
  for (int i = 0; i < st->nmaps; i++) release(st, &st->maps[i]);
  for (int i = 0; i < st->norigs; i++) release(st, &st->origs[i]);
  for (int i = 0; i < st->nsend_rows; i++) release(st, &st->send_rows[i]);
  release(st, &st->halo_buf);
  free(st->maps), free(st->origs), free(st->send_rows), free(st->gathers);
  if (st->have_ctx && st->api.cuDevicePrimaryCtxRelease(st->dev) != CUDA_SUCCESS)
    op2_diag(1, "cuda backend: releasing the context failed at exit");
  if (st->driver_handle) dlclose(st->driver_handle);
  free(st);
  ctx->backend_data = NULL;
}
