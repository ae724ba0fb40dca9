/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA emulation backend (OP2_BACKEND=cuda-emu): the CUDA backend's host code, unchanged, over
 * a driver table that runs on the CPU. Modules are the generated .cu text compiled as C (see
 * jit/jit_cuda.c); a launch runs its blocks in order and a block's threads in order, as fibers
 * when the kernel has barriers: __syncthreads() parks the thread and resumes the next one, and a
 * barrier round ends when every thread of the block has arrived. Device memory is host memory.
 *
 * With OP2_CUDA_EMU_SECTORS=on it also counts global-memory traffic as a GPU moves it: for each
 * warp (32 consecutive threads of a block) and access site of the generated code, the distinct
 * 32-byte sectors its threads touch (the k-th execution of a site by each thread counts
 * together, as one warp instruction would). Loads, stores and atomics are counted apart.
 *
 * With OP2_CUDA_EMU_CHECK=races it reports data races the serialised run hides: per barrier
 * interval, which thread read and wrote each word of shared memory; per launch, the same for
 * global memory (atomics excepted). Two threads touching one word, one of them writing, is an
 * error naming both threads and the generated lines. A block's threads reaching different
 * barriers, or some exiting while others wait, is always an error. OP2_CUDA_EMU_ORDER runs the
 * blocks, and the threads of each barrier round, in ascending, reverse or shuffled order. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "runtime/backend.h"
#include "runtime/cuda/cuda.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"

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
 * (swapcontext saves the signal mask, a system call per switch, and a barrier-heavy kernel switches
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
  int barrier_line; /* the __syncthreads it waits at */
  void *asan_fake;  /* AddressSanitizer's fake stack while the fiber is parked */
} fiber;

typedef void (*kernel_fn)(op2_cuda_params);

typedef struct emu_module {
  const op2_emu_image *image; /* the cuda backend's, which outlives the module */
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

/* Who touched a 4-byte word in the current interval: one writer, up to two readers (with two, one
 * differs from any later writer). Threads are (block, thread); block -1: nobody. */
typedef struct word_access {
  uintptr_t word;
  uint32_t gen;
  int wblock, wthread, wline;
  int rblock[2], rthread[2], rline[2];
} word_access;

typedef struct access_table {
  word_access *e;
  size_t cap, used;
  uint32_t gen;
} access_table;

typedef struct shadow_region {
  uintptr_t first, words; /* the allocation's first word address and its length in words */
  word_access *w;
} shadow_region;

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
  /* race checking and schedules */
  int checking, order;
  uint64_t rng;
  access_table shared_acc, global_acc; /* generations; the hash for memory outside shadows */
  /* shadow memory: one word_access per 4-byte word of each allocation and of shared memory */
  shadow_region *regions;
  int nregions, regions_cap, last_region;
  word_access *shared_shadow;
  const char *loop_name; /* for messages */
  char error[768];       /* the first race or divergence of the launch, or "" */
  unsigned *thread_order, *block_order;
  size_t block_order_cap;
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

static void emu_sync(int line) {
  emu *E = the_emu();
  E->fibers[E->cur].state = T_WAITING;
  E->fibers[E->cur].barrier_line = line;
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

/* ---- race checking ---- */
static void report(emu *E, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(emu *E, const char *fmt, ...) {
  if (E->error[0]) return; /* the first is the one to fix */
  int n = snprintf(E->error, sizeof E->error, "cuda-emu: in the kernel of loop '%s': ",
                   E->loop_name ? E->loop_name : "(halo gather)");
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(E->error + n, sizeof E->error - (size_t)n, fmt, ap);
  va_end(ap);
}

static word_access *access_of(access_table *T, uintptr_t word) {
  if (2 * (T->used + 1) > T->cap) { /* grow: rehash the live entries */
    size_t old_cap = T->cap, cap = T->cap ? 2 * T->cap : 1 << 12;
    word_access *old = T->e, *n = calloc(cap, sizeof *n);
    if (!n) return NULL;
    T->e = n, T->cap = cap, T->used = 0;
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].gen == T->gen) *access_of(T, old[i].word) = old[i];
    free(old);
  }
  size_t i = (size_t)mix(word * 0x9e3779b97f4a7c15ULL) & (T->cap - 1);
  for (;; i = (i + 1) & (T->cap - 1)) {
    word_access *a = &T->e[i];
    if (a->gen != T->gen) {
      *a = (word_access){.word = word, .gen = T->gen, .wblock = -1, .rblock = {-1, -1}};
      T->used++;
      return a;
    }
    if (a->word == word) return a;
  }
}

static const char *kind_word(int write) {
  return write ? "writes" : "reads";
}

/* The record of a word: the allocation's shadow (in address order: one access after another
 * stays in cache), else the hash table. Stale records belong to an earlier interval. */
static word_access *record_of(emu *E, access_table *T, uintptr_t word) {
  word_access *a = NULL;
  if (T == &E->shared_acc) {
    a = E->shared_shadow ? &E->shared_shadow[word - ((uintptr_t)E->shared >> 2)] : NULL;
  } else {
    shadow_region *r = E->nregions ? &E->regions[E->last_region] : NULL;
    if (!r || word - r->first >= r->words) {
      r = NULL;
      for (int lo = 0, hi = E->nregions - 1; lo <= hi;) {
        int mid = (lo + hi) / 2;
        shadow_region *m = &E->regions[mid];
        if (word < m->first) {
          hi = mid - 1;
        } else if (word - m->first >= m->words) {
          lo = mid + 1;
        } else {
          r = m, E->last_region = mid;
          break;
        }
      }
    }
    if (r) a = &r->w[word - r->first];
  }
  if (!a) return access_of(T, word);
  if (a->gen != T->gen)
    *a = (word_access){.word = word, .gen = T->gen, .wblock = -1, .rblock = {-1, -1}};
  return a;
}

static void check_word(emu *E, access_table *T, const char *space, uintptr_t word, int write,
                       int line) {
  word_access *a = record_of(E, T, word);
  if (!a) return report(E, "out of memory for the race checker");
  int b = (int)E->env.block_idx.x, t = E->cur;
  const char *where = T == &E->shared_acc ? "in one barrier interval" : "in one launch";
  if (a->wblock >= 0 && (a->wblock != b || a->wthread != t))
    return report(E,
                  "data race on %s %p %s: thread %d of block %d writes at line %d of the "
                  "generated .cu, thread %d of block %d %s at line %d",
                  space, (void *)(word << 2), where, a->wthread, a->wblock, a->wline, t, b,
                  kind_word(write), line);
  if (write) {
    for (int r = 0; r < 2; r++)
      if (a->rblock[r] >= 0 && (a->rblock[r] != b || a->rthread[r] != t))
        return report(E,
                      "data race on %s %p %s: thread %d of block %d reads at line %d of the "
                      "generated .cu, thread %d of block %d writes at line %d",
                      space, (void *)(word << 2), where, a->rthread[r], a->rblock[r], a->rline[r],
                      t, b, line);
    a->wblock = b, a->wthread = t, a->wline = line;
    return;
  }
  for (int r = 0; r < 2; r++) {
    if (a->rblock[r] == b && a->rthread[r] == t) return;
    if (a->rblock[r] < 0) {
      a->rblock[r] = b, a->rthread[r] = t, a->rline[r] = line;
      return;
    }
  }
}

static int in_shared(const emu *E, const void *p) {
  const char *c = p;
  return E->shared && c >= E->shared && c < E->shared + E->shared_cap;
}

static void check_access(emu *E, int line, int kind, const void *p, unsigned bytes) {
  if (kind & OP2_ACCESS_ATOMIC) return; /* atomics may meet: that is what they are for */
  int shared = in_shared(E, p);
  access_table *T = shared ? &E->shared_acc : &E->global_acc;
  uintptr_t first = (uintptr_t)p >> 2, last = ((uintptr_t)p + bytes - 1) >> 2;
  for (uintptr_t w = first; w <= last; w++) {
    if (kind & OP2_ACCESS_LD)
      check_word(E, T, shared ? "shared memory" : "global memory", w, 0, line);
    if (kind & OP2_ACCESS_ST)
      check_word(E, T, shared ? "shared memory" : "global memory", w, 1, line);
  }
}

static void emu_touch(int site, int line, int kind, const void *p, unsigned bytes) {
  if (!bytes) return;
  emu *E = the_emu();
  if (E->checking) check_access(E, line, kind, p, bytes);
  if (!E->counting || in_shared(E, p)) return; /* shared memory is no global traffic */
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
  m->image = img;
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
/* A __constant__ variable is a global variable of the module's code: device memory is host
 * memory here. */
static CUresult emu_get_global(CUdeviceptr *ptr, size_t *bytes, CUmodule mod, const char *name) {
  const emu_module *m = (const emu_module *)mod;
  size_t size = 0;
  void *p = m && m->image->global ? m->image->global(m->image, name, &size) : NULL;
  if (!p) return CUDA_ERROR_NOT_FOUND;
  if (ptr) *ptr = (CUdeviceptr)(uintptr_t)p;
  if (bytes) *bytes = size;
  return CUDA_SUCCESS;
}
/* The emulated device runs any block a real one may launch. */
static CUresult emu_func_get_attribute(int *value, CUfunction_attribute a, CUfunction fn) {
  (void)fn;
  if (a != CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) return CUDA_ERROR_INVALID_VALUE;
  *value = 1024;
  return CUDA_SUCCESS;
}
static CUresult emu_func_attribute(CUfunction fn, CUfunction_attribute a, int value) {
  emu_module *m = (emu_module *)fn;
  if (a != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES || value < 0 || value > 227 * 1024)
    return CUDA_ERROR_INVALID_VALUE;
  m->smem_limit = value;
  return CUDA_SUCCESS;
}
/* With the checker, each allocation gets its shadow, kept in address order. */
static int shadow_add(emu *E, const void *base, size_t bytes) {
  if (E->nregions == E->regions_cap) {
    int cap = E->regions_cap ? 2 * E->regions_cap : 64;
    shadow_region *n = realloc(E->regions, sizeof *n * (size_t)cap);
    if (!n) return -1;
    E->regions = n, E->regions_cap = cap;
  }
  shadow_region r = {(uintptr_t)base >> 2, (bytes + 3) / 4,
                     calloc((bytes + 3) / 4, sizeof(word_access))};
  if (!r.w) return -1;
  int i = E->nregions;
  for (; i > 0 && E->regions[i - 1].first > r.first; i--) E->regions[i] = E->regions[i - 1];
  E->regions[i] = r;
  E->nregions++;
  E->last_region = 0;
  return 0;
}

static void shadow_remove(emu *E, const void *base) {
  for (int i = 0; i < E->nregions; i++) {
    if (E->regions[i].first != (uintptr_t)base >> 2) continue;
    free(E->regions[i].w);
    memmove(&E->regions[i], &E->regions[i + 1], sizeof *E->regions * (size_t)(E->nregions - i - 1));
    E->nregions--;
    E->last_region = 0;
    return;
  }
}

static CUresult emu_alloc(CUdeviceptr *p, size_t bytes) {
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  void *m = aligned_alloc(256, (bytes + 255) / 256 * 256);
  if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
  memset(m, 0xcd, bytes); /* device memory starts undefined: never zero by luck */
  emu *E = the_emu();
  if (E && E->checking && shadow_add(E, m, bytes) != 0) return free(m), CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}
static CUresult emu_free(CUdeviceptr p) {
  emu *E = the_emu();
  if (E && E->checking) shadow_remove(E, (void *)(uintptr_t)p);
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

/* Host memory is all the emulator has: "page-locked" memory is ordinary memory. */
static CUresult emu_host_alloc(void **p, size_t bytes, unsigned int flags) {
  if (!bytes || flags) return CUDA_ERROR_INVALID_VALUE;
  *p = aligned_alloc(256, (bytes + 255) / 256 * 256);
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
static CUresult emu_free_host(void *p) {
  free(p);
  return CUDA_SUCCESS;
}

/* xorshift64*: the shuffle's numbers, from the seed the option gives */
static unsigned next_random(emu *E, unsigned below) {
  E->rng ^= E->rng >> 12, E->rng ^= E->rng << 25, E->rng ^= E->rng >> 27;
  return (unsigned)((E->rng * 0x2545f4914f6cdd1dULL) >> 32) % below;
}

/* 0..n-1 in the schedule's order */
static void schedule(emu *E, unsigned *order, unsigned n) {
  for (unsigned i = 0; i < n; i++) order[i] = E->order == 1 ? n - 1 - i : i;
  if (E->order == 2)
    for (unsigned i = n; i > 1; i--) {
      unsigned j = next_random(E, i), x = order[i - 1];
      order[i - 1] = order[j], order[j] = x;
    }
}

static void new_interval(access_table *T) {
  T->gen++;
  T->used = 0;
}

/* After a barrier round: every thread still running must wait at the same barrier, and none may
 * have left while others wait. */
static void check_round(emu *E, unsigned threads, const unsigned *exited, unsigned nexited) {
  int waiting = -1;
  for (unsigned t = 0; t < threads; t++) {
    if (E->fibers[t].state != T_WAITING) continue;
    if (waiting < 0) {
      waiting = (int)t;
    } else if (E->fibers[t].barrier_line != E->fibers[waiting].barrier_line) {
      return report(E,
                    "barrier divergence in block %u: thread %d waits at the __syncthreads of "
                    "line %d of the generated .cu, thread %u at line %d",
                    E->env.block_idx.x, waiting, E->fibers[waiting].barrier_line, t,
                    E->fibers[t].barrier_line);
    }
  }
  if (waiting >= 0 && nexited)
    report(E,
           "barrier divergence in block %u: thread %u exits while thread %d waits at the "
           "__syncthreads of line %d of the generated .cu",
           E->env.block_idx.x, exited[0], waiting, E->fibers[waiting].barrier_line);
}

static void run_block(emu *E, emu_module *m, unsigned threads) {
  if (E->counting) memset(E->occ, 0, sizeof *E->occ * NSITES * threads);
  E->gen++;
  E->set_used = 0;
  unsigned *order = E->thread_order;
  new_interval(&E->shared_acc);
  if (!m->barriers) { /* no barriers: each thread runs to its end, no fibers needed */
    schedule(E, order, threads);
    for (unsigned i = 0; i < threads; i++) {
      E->cur = (int)order[i];
      E->env.thread_idx.x = order[i];
      m->fn(*E->params);
    }
    return;
  }
  for (unsigned t = 0; t < threads; t++) E->fibers[t].state = T_READY;
  unsigned exited[1] = {0};
  for (unsigned left = threads; left > 0;) { /* one round per barrier */
    unsigned nexited = 0;
    schedule(E, order, threads);
    for (unsigned i = 0; i < threads; i++) {
      unsigned t = order[i];
      if (E->fibers[t].state == T_DONE) continue;
      E->cur = (int)t;
      E->env.thread_idx.x = t;
      E->fibers[t].state = T_READY;
      to_thread(E, (int)t);
      if (E->fibers[t].state == T_DONE) left--, exited[0] = t, nexited++;
    }
    check_round(E, threads, exited, nexited);
    new_interval(&E->shared_acc);
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
    free(E->shared_shadow), E->shared_shadow = NULL;
    if (E->checking && !(E->shared_shadow = calloc((smem + 3) / 4, sizeof(word_access))))
      return CUDA_ERROR_OUT_OF_MEMORY;
  }
  if (E->counting && !E->occ && !(E->occ = calloc((size_t)MAX_THREADS * NSITES, sizeof *E->occ)))
    return CUDA_ERROR_OUT_OF_MEMORY;
  E->fn = m->fn;
  E->params = params[0];
  E->env.shared = E->shared;
  E->env.block_dim = (op2_uint3){bx, 1, 1};
  E->env.grid_dim = (op2_uint3){gx, 1, 1};
  E->env.tracing = E->counting || E->checking;
  if (gx > E->block_order_cap) {
    free(E->block_order);
    E->block_order = malloc(sizeof *E->block_order * gx);
    E->block_order_cap = E->block_order ? gx : 0;
    if (!E->block_order) return CUDA_ERROR_OUT_OF_MEMORY;
  }
  schedule(E, E->block_order, gx);
  new_interval(&E->global_acc);
  E->error[0] = 0;
  for (unsigned i = 0; i < gx; i++) {
    E->env.block_idx = (op2_uint3){E->block_order[i], 0, 0};
    /* shared memory starts undefined too */
    if (smem) memset(E->shared, 0xa5, smem);
    run_block(E, m, bx);
  }
  E->launches++;
  return E->error[0] ? CUDA_ERROR_LAUNCH_FAILED : CUDA_SUCCESS;
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
    case CUDA_ERROR_LAUNCH_FAILED: { /* the checker's report of the last launch */
      emu *E = the_emu();
      *text = E && E->error[0] ? E->error : "launch failed";
      break;
    }
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
    .cuFuncGetAttribute = emu_func_get_attribute,
    .cuMemHostAlloc = emu_host_alloc,
    .cuMemFreeHost = emu_free_host,
    .cuModuleGetGlobal = emu_get_global,
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
  free(E->shared_acc.e), free(E->global_acc.e), free(E->thread_order), free(E->block_order);
  for (int i = 0; i < E->nregions; i++) free(E->regions[i].w);
  free(E->regions), free(E->shared_shadow);
  free(E);
}

static int init_emu(op2_context *ctx) {
  emu *E = calloc(1, sizeof *E);
  if (!E) return op2_error(OP2_ERR_MEM, "cuda-emu backend: out of memory");
  E->env.sync = emu_sync;
  E->env.touch = emu_touch;
  const op2_cuda_options *opt = op2_cuda_options_of(ctx);
  E->counting = opt->emu_sectors;
  E->checking = opt->emu_check;
  E->order = opt->emu_order;
  E->rng = 0x9e3779b97f4a7c15ULL ^ opt->emu_seed;
  E->thread_order = malloc(sizeof *E->thread_order * MAX_THREADS);
  if (!E->thread_order) {
    emu_destroy(E);
    return op2_error(OP2_ERR_MEM, "cuda-emu backend: out of memory");
  }
  int rc = op2_cuda_init(ctx, &emu_api, E, 1);
  if (rc != OP2_OK) emu_destroy(E);
  return rc;
}

static int run_emu(op2_context *ctx, const op2_exec *exec) {
  emu *E = op2_cuda_driver_data(ctx);
  E->ld = E->st = E->at = E->launches = 0;
  E->loop_name = exec->loop->name;
  int rc = op2_cuda_run(ctx, exec);
  E->loop_name = NULL;
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
    .description = "the CUDA backend's kernels on the CPU, threads as fibers (no GPU)",
    .target = OP2_TARGET_CUDA_EMU,
    .init = init_emu,
    .run = run_emu,
    .finalize = finalize_emu,
    OP2_CUDA_BACKEND_SHARED_ENTRIES,
};

int op2_cuda_emu_sectors(const char *loop_name, op2_cuda_sectors *out) {
  op2_context *ctx = op2_ctx();
  emu *E = ctx->initialised && ctx->backend == &op2_backend_cuda_emu ? the_emu() : NULL;
  loop_sectors *l = E ? sectors_for(E, loop_name, 0) : NULL;
  if (!l) return -1;
  *out = l->s;
  return 0;
}
