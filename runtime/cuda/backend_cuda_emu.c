/* The CUDA emulation backend (OP2_BACKEND=cuda-emu): the CUDA backend's host code, unchanged, over
 * a driver table that runs on the CPU. Modules are the generated .cu text compiled as C (see
 * jit/jit_cuda.c); a launch runs its blocks in order and a block's threads in order, as fibers
 * when the kernel has barriers: __syncthreads() parks the thread and resumes the next one, and a
 * barrier round ends when every thread of the block has arrived. Device memory is host memory.
 *
 * With OP2_CUDA_EMU_SECTORS=on it also counts global-memory traffic as a GPU moves it: for each
 * warp (32 consecutive threads of a block) and access site of the generated code, the distinct
 * 32-byte sectors its threads touch (the k-th execution of a site by each thread counts
 * together, as one warp instruction would). Loads, stores and atomics are counted apart. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "../backend.h"
#include "cuda.h"

/* AddressSanitizer must be told when the stack changes, or it takes fiber frames for overflows. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define ASAN_START(save, bottom, size) __sanitizer_start_switch_fiber(save, bottom, size)
#define ASAN_FINISH(save, bottom, size) __sanitizer_finish_switch_fiber(save, bottom, size)
#else
#define ASAN_START(save, bottom, size) ((void)0)
#define ASAN_FINISH(save, bottom, size) ((void)0)
#endif

/* ---- fibers: ucontext, with a few instructions instead of swapcontext's system call on x86-64
 * (swapcontext saves the signal mask: about 0.4 us a switch, and a barrier-heavy kernel switches
 * several times per thread) ---- */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(OP2_EMU_PORTABLE_FIBERS)
#define OP2_FAST_SWITCH 1
/* Saves the callee-saved registers on the current stack and its pointer in *save, then continues
 * on the stack `load` (which the same routine, or fiber_prepare, left). */
void op2_emu_switch(void **save, void *load);
__asm__(
    ".text\n"
    ".globl op2_emu_switch\n"
    ".hidden op2_emu_switch\n"
    ".type op2_emu_switch, @function\n"
    "op2_emu_switch:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size op2_emu_switch, .-op2_emu_switch\n");
#endif

enum { STACK_BYTES = 128 * 1024, MAX_THREADS = 1024, NSITES = 256 };
enum { T_READY, T_WAITING, T_DONE };

typedef struct fiber {
  char *stack;
#ifdef OP2_FAST_SWITCH
  void *sp;
#else
  ucontext_t uc;
#endif
  int state;
  void *asan_fake; /* AddressSanitizer's fake stack while the fiber is parked */
} fiber;

typedef void (*kernel_fn)(op2_cuda_params);

typedef struct emu_module {
  kernel_fn fn;
  int barriers;
  int smem_limit;
} emu_module;

/* A sector set for one block: open addressing, entries valid for the current generation. */
typedef struct sector_entry {
  uint64_t sector;
  uint32_t tag; /* warp, site, occurrence, kind */
  uint32_t gen;
} sector_entry;

typedef struct emu {
  op2_emu_env env;
  fiber fibers[MAX_THREADS];
  int nfibers;
#ifdef OP2_FAST_SWITCH
  void *sched_sp;
#else
  ucontext_t sched;
#endif
  int cur;
  const void *sched_bottom; /* the scheduler's stack, for AddressSanitizer */
  size_t sched_size;
  void *sched_fake;
  kernel_fn fn;
  op2_cuda_params *params;
  char *shared;
  size_t shared_cap;
  /* counting */
  int counting;
  long ld, st, at, launches;
  uint16_t *occ; /* [thread][site] executions in this block */
  sector_entry *set;
  size_t set_cap, set_used;
  uint32_t gen;
  op2_ptr_list sectors; /* loop_sectors: traffic per loop name since op_init */
} emu;

/* The emulator's device is the CUDA backend's driver data: its entry points have libcuda's
 * signatures, without a context, and reach it through the library context. */
static emu *the_emu(void) {
  return op2_cuda_driver_data(op2_ctx());
}

static void to_scheduler(emu *E) {
  fiber *f = &E->fibers[E->cur];
  ASAN_START(&f->asan_fake, E->sched_bottom, E->sched_size);
#ifdef OP2_FAST_SWITCH
  op2_emu_switch(&f->sp, E->sched_sp);
#else
  swapcontext(&f->uc, &E->sched);
#endif
  ASAN_FINISH(f->asan_fake, &E->sched_bottom, &E->sched_size);
}

static void to_thread(emu *E, int t) {
  ASAN_START(&E->sched_fake, E->fibers[t].stack, STACK_BYTES);
#ifdef OP2_FAST_SWITCH
  op2_emu_switch(&E->sched_sp, E->fibers[t].sp);
#else
  swapcontext(&E->sched, &E->fibers[t].uc);
#endif
  ASAN_FINISH(E->sched_fake, NULL, NULL);
}

/* Every fiber runs this forever: one thread's kernel call per block it takes part in. A fiber
 * belongs to one emulator, for its whole life. */
static void fiber_main(void) {
  emu *E = the_emu();
  ASAN_FINISH(NULL, &E->sched_bottom, &E->sched_size);
  for (;;) {
    E->fn(*E->params);
    E->fibers[E->cur].state = T_DONE;
    to_scheduler(E);
  }
}

static int fiber_prepare(fiber *f, int index) {
  f->stack = malloc(STACK_BYTES);
  if (!f->stack) return -1;
#ifdef OP2_FAST_SWITCH
  /* Stack tops staggered by 64 bytes: equally aligned tops would all map to the same cache sets,
   * and a barrier round touches every thread's top frames. */
  uintptr_t top = (uintptr_t)f->stack + STACK_BYTES - (uintptr_t)(index % 64) * 64;
  void **sp = (void **)(top & ~(uintptr_t)15);
  *--sp = NULL;                             /* where fiber_main would return: it never does */
  *--sp = (void *)fiber_main;               /* op2_emu_switch's ret goes here */
  for (int i = 0; i < 6; i++) *--sp = NULL; /* rbp, rbx, r12..r15 */
  f->sp = sp;
#else
  if (getcontext(&f->uc) != 0) return free(f->stack), f->stack = NULL, -1;
  f->uc.uc_stack.ss_sp = f->stack;
  f->uc.uc_stack.ss_size = STACK_BYTES - (size_t)(index % 64) * 64;
  f->uc.uc_link = NULL;
  makecontext(&f->uc, fiber_main, 0);
#endif
  return 0;
}

static void emu_sync(void) {
  emu *E = the_emu();
  E->fibers[E->cur].state = T_WAITING;
  to_scheduler(E);
}

/* ---- sector counting ---- */
static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static int set_insert(emu *E, uint64_t sector, uint32_t tag) {
  if (2 * (E->set_used + 1) > E->set_cap) { /* grow: rehash the live entries */
    size_t cap = E->set_cap ? 2 * E->set_cap : 1 << 14;
    sector_entry *old = E->set, *n = calloc(cap, sizeof *n);
    if (!n) return 0;
    size_t old_cap = E->set_cap;
    E->set = n, E->set_cap = cap, E->set_used = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].gen == E->gen) set_insert(E, old[i].sector, old[i].tag);
    free(old);
  }
  size_t i = (size_t)mix(sector * 0x9e3779b97f4a7c15ULL ^ tag) & (E->set_cap - 1);
  for (;; i = (i + 1) & (E->set_cap - 1)) {
    sector_entry *s = &E->set[i];
    if (s->gen != E->gen) {
      *s = (sector_entry){sector, tag, E->gen};
      E->set_used++;
      return 1;
    }
    if (s->sector == sector && s->tag == tag) return 0;
  }
}

static void emu_touch(int site, int kind, const void *p, unsigned bytes) {
  if (!bytes) return;
  emu *E = the_emu();
  int t = E->cur;
  if (site < 0 || site >= NSITES) site = NSITES - 1;
  unsigned occ = E->occ[t * NSITES + site]++;
  uint64_t first = (uintptr_t)p >> 5, last = ((uintptr_t)p + bytes - 1) >> 5;
  for (int k = 1; k <= 4; k <<= 1) {
    if (!(kind & k)) continue;
    uint32_t tag = ((uint32_t)(t / 32) << 24) ^ ((uint32_t)site << 14) ^ ((occ & 0xfff) << 2) ^
                   (uint32_t)(k >> 1);
    for (uint64_t s = first; s <= last; s++)
      if (set_insert(E, s, tag)) *(k == 1 ? &E->ld : k == 2 ? &E->st : &E->at) += 1;
  }
}

/* ---- the driver table ---- */
static CUresult emu_init(unsigned int flags) {
  return flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}
static CUresult emu_count(int *count) {
  return *count = 1, CUDA_SUCCESS;
}
static CUresult emu_device(CUdevice *dev, int ordinal) {
  return ordinal ? CUDA_ERROR_INVALID_DEVICE : (*dev = 0, CUDA_SUCCESS);
}
/* An sm_90 device with the H100's shared memory limits. */
static CUresult emu_attribute(int *v, CUdevice_attribute a, CUdevice dev) {
  (void)dev;
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
      *v = 9;
      break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
      *v = 0;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
      *v = 48 * 1024;
      break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
      *v = 227 * 1024;
      break;
    default:
      return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
static CUresult emu_name(char *name, int len, CUdevice dev) {
  (void)dev;
  snprintf(name, (size_t)len, "op2jit CUDA emulator");
  return CUDA_SUCCESS;
}
static CUresult emu_retain(CUcontext *c, CUdevice dev) {
  (void)dev;
  *c = (CUcontext)the_emu();
  return *c ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED;
}
static CUresult emu_release(CUdevice dev) {
  return (void)dev, CUDA_SUCCESS;
}
static CUresult emu_set_current(CUcontext c) {
  return c && c == (CUcontext)the_emu() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}
static CUresult emu_synchronize(void) {
  return CUDA_SUCCESS;
}

static CUresult emu_module_load(CUmodule *mod, const void *image) {
  const op2_emu_image *img = image;
  emu *E = the_emu();
  if (!E) return CUDA_ERROR_NOT_INITIALIZED;
  if (!img || !img->entry) return CUDA_ERROR_INVALID_IMAGE;
  emu_module *m = calloc(1, sizeof *m);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  void *exchange[3] = {&E->env, &m->fn, &m->barriers};
  img->entry(exchange, NULL, 0, 0);
  m->smem_limit = 48 * 1024;
  *mod = (CUmodule)m;
  return m->fn ? CUDA_SUCCESS : (free(m), CUDA_ERROR_INVALID_IMAGE);
}
static CUresult emu_module_unload(CUmodule mod) {
  free(mod);
  return CUDA_SUCCESS;
}
static CUresult emu_get_function(CUfunction *fn, CUmodule mod, const char *name) {
  if (strcmp(name, "op2_cuda_kernel") != 0) return CUDA_ERROR_NOT_FOUND;
  *fn = (CUfunction)mod;
  return CUDA_SUCCESS;
}
static CUresult emu_func_attribute(CUfunction fn, CUfunction_attribute a, int value) {
  emu_module *m = (emu_module *)fn;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > 227 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  m->smem_limit = value;
  return CUDA_SUCCESS;
}
static CUresult emu_alloc(CUdeviceptr *p, size_t bytes) {
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  void *m = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  memset(m, 0xcd, bytes); /* device memory starts undefined: never zero by luck */
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}
static CUresult emu_free(CUdeviceptr p) {
  free((void *)(uintptr_t)p);
  return CUDA_SUCCESS;
}
static CUresult emu_htod(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}
static CUresult emu_dtoh(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

static void run_block(emu *E, emu_module *m, unsigned threads) {
  if (E->counting) memset(E->occ, 0, sizeof *E->occ * NSITES * threads);
  E->gen++;
  E->set_used = 0;
  if (!m->barriers) { /* no barriers: each thread runs to its end, no fibers needed */
    for (unsigned t = 0; t < threads; t++) {
      E->cur = (int)t;
      E->env.thread_idx.x = t;
      m->fn(*E->params);
    }
    return;
  }
  for (unsigned t = 0; t < threads; t++) E->fibers[t].state = T_READY;
  for (unsigned left = threads; left > 0;) { /* one round per barrier */
    for (unsigned t = 0; t < threads; t++) {
      if (E->fibers[t].state == T_DONE) continue;
      E->cur = (int)t;
      E->env.thread_idx.x = t;
      E->fibers[t].state = T_READY;
      to_thread(E, (int)t);
      if (E->fibers[t].state == T_DONE) left--;
    }
  }
}

static CUresult emu_launch(CUfunction fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                           unsigned by, unsigned bz, unsigned smem, CUstream stream, void **params,
                           void **extra) {
  emu_module *m = (emu_module *)fn;
  emu *E = the_emu();
  if (!E) return CUDA_ERROR_NOT_INITIALIZED;
  if (!m || !params || !params[0] || extra || stream) return CUDA_ERROR_INVALID_VALUE;
  if (gy != 1 || gz != 1 || by != 1 || bz != 1 || bx < 1 || bx > MAX_THREADS || gx < 1)
    return CUDA_ERROR_INVALID_VALUE;
  if ((int)smem > m->smem_limit) return CUDA_ERROR_INVALID_VALUE;
  for (; m->barriers && E->nfibers < (int)bx; E->nfibers++)
    if (fiber_prepare(&E->fibers[E->nfibers], E->nfibers) != 0) return CUDA_ERROR_OUT_OF_MEMORY;
  if (smem > E->shared_cap) {
    free(E->shared);
    E->shared = malloc(smem);
    E->shared_cap = E->shared ? smem : 0;
    if (!E->shared) return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (E->counting && !E->occ && !(E->occ = calloc((size_t)MAX_THREADS * NSITES, sizeof *E->occ)))
    return CUDA_ERROR_OUT_OF_MEMORY;
  E->fn = m->fn;
  E->params = params[0];
  E->env.shared = E->shared;
  E->env.block_dim = (op2_uint3){bx, 1, 1};
  E->env.grid_dim = (op2_uint3){gx, 1, 1};
  E->env.counting = E->counting;
  for (unsigned b = 0; b < gx; b++) {
    E->env.block_idx = (op2_uint3){b, 0, 0};
    /* shared memory starts undefined too */
    if (smem) memset(E->shared, 0xa5, smem);
    run_block(E, m, bx);
  }
  E->launches++;
  return CUDA_SUCCESS;
}

static CUresult emu_error_string(CUresult err, const char **text) {
  switch (err) {
    case CUDA_SUCCESS:
      *text = "no error";
      break;
    case CUDA_ERROR_INVALID_VALUE:
      *text = "invalid argument";
      break;
    case CUDA_ERROR_OUT_OF_MEMORY:
      *text = "out of memory";
      break;
    case CUDA_ERROR_INVALID_IMAGE:
      *text = "invalid kernel image";
      break;
    case CUDA_ERROR_NOT_FOUND:
      *text = "named symbol not found";
      break;
    default:
      *text = "emulator error";
      break;
  }
  return CUDA_SUCCESS;
}

static const op2_cu_api emu_api = {
    .name = "emulator",
    .cuInit = emu_init,
    .cuDeviceGetCount = emu_count,
    .cuDeviceGet = emu_device,
    .cuDeviceGetAttribute = emu_attribute,
    .cuDeviceGetName = emu_name,
    .cuDevicePrimaryCtxRetain = emu_retain,
    .cuDevicePrimaryCtxRelease = emu_release,
    .cuCtxSetCurrent = emu_set_current,
    .cuCtxSynchronize = emu_synchronize,
    .cuModuleLoadData = emu_module_load,
    .cuModuleUnload = emu_module_unload,
    .cuModuleGetFunction = emu_get_function,
    .cuFuncSetAttribute = emu_func_attribute,
    .cuMemAlloc = emu_alloc,
    .cuMemFree = emu_free,
    .cuMemcpyHtoD = emu_htod,
    .cuMemcpyDtoH = emu_dtoh,
    .cuLaunchKernel = emu_launch,
    .cuGetErrorString = emu_error_string,
};

const op2_cu_api *op2_cuda_emu_api(void) {
  return &emu_api;
}

/* ---- the backend: the CUDA host code, plus traffic per loop name ---- */
typedef struct loop_sectors {
  char *name;
  op2_cuda_sectors s;
} loop_sectors;

static loop_sectors *sectors_for(emu *E, const char *name, int create) {
  for (int i = 0; i < E->sectors.count; i++) {
    loop_sectors *l = E->sectors.items[i];
    if (!strcmp(l->name, name)) return l;
  }
  if (!create) return NULL;
  loop_sectors *l = calloc(1, sizeof *l);
  if (!l || !(l->name = strdup(name)) || op2_list_push(&E->sectors, l) != OP2_OK) {
    if (l) free(l->name);
    free(l);
    return NULL;
  }
  return l;
}

static void emu_destroy(emu *E) {
  for (int i = 0; i < E->sectors.count; i++) {
    loop_sectors *l = E->sectors.items[i];
    free(l->name);
    free(l);
  }
  free(E->sectors.items);
  for (int i = 0; i < E->nfibers; i++) free(E->fibers[i].stack);
  free(E->shared), free(E->occ), free(E->set);
  free(E);
}

static int init_emu(op2_context *ctx) {
  emu *E = calloc(1, sizeof *E);
  if (!E) return op2_error(OP2_ERR_MEM, "cuda-emu backend: out of memory");
  E->env.sync = emu_sync;
  E->env.touch = emu_touch;
  E->counting = ctx->opt.cuda_emu_sectors;
  int rc = op2_cuda_init(ctx, &emu_api, E, 1);
  if (rc != OP2_OK) emu_destroy(E);
  return rc;
}

static int run_emu(op2_context *ctx, const op2_exec *exec) {
  emu *E = op2_cuda_driver_data(ctx);
  E->ld = E->st = E->at = E->launches = 0;
  int rc = op2_cuda_run(ctx, exec);
  loop_sectors *l = rc == OP2_OK ? sectors_for(E, exec->loop->name, 1) : NULL;
  if (l) {
    l->s.calls++;
    l->s.launches += E->launches;
    l->s.elements += exec->end - exec->begin;
    l->s.load_sectors += E->ld;
    l->s.store_sectors += E->st;
    l->s.atomic_sectors += E->at;
  }
  return rc;
}

static void finalize_emu(op2_context *ctx) {
  emu *E = op2_cuda_driver_data(ctx);
  if (E && E->counting && ctx->opt.diags >= 1 && E->sectors.count) {
    printf(
        "  cuda-emu global memory traffic (32-byte sectors per element)\n"
        "  %-16s %8s %10s %8s %8s %8s %8s\n",
        "loop", "calls", "elements", "load", "store", "atomic", "total");
    for (int i = 0; i < E->sectors.count; i++) {
      const loop_sectors *l = E->sectors.items[i];
      double n = l->s.elements ? (double)l->s.elements : 1;
      printf("  %-16s %8ld %10ld %8.3f %8.3f %8.3f %8.3f\n", l->name, l->s.calls, l->s.elements,
             l->s.load_sectors / n, l->s.store_sectors / n, l->s.atomic_sectors / n,
             (l->s.load_sectors + l->s.store_sectors + l->s.atomic_sectors) / n);
    }
  }
  op2_cuda_finalize(ctx); /* unloads modules and frees device memory through the emulator */
  if (E) emu_destroy(E);
}

const op2_backend op2_backend_cuda_emu = {
    .name = "cuda-emu",
    .target = "cuda",
    .kernel = OP2_KERNEL_CUDA,
    .init = init_emu,
    .run = run_emu,
    .finalize = finalize_emu,
    .sync_host = op2_cuda_sync_host,
    .prepare = op2_cuda_prepare,
    .complete = op2_cuda_complete,
    .halo_pack = op2_cuda_halo_pack,
    .halo_unpack = op2_cuda_halo_unpack,
};

int op2_cuda_emu_sectors(const char *loop_name, op2_cuda_sectors *out) {
  op2_context *ctx = op2_ctx();
  emu *E = ctx->initialised && ctx->backend == &op2_backend_cuda_emu ? the_emu() : NULL;
  loop_sectors *l = E ? sectors_for(E, loop_name, 0) : NULL;
  if (!l) return -1;
  *out = l->s;
  return 0;
}
