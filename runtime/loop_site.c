/* SPDX-License-Identifier: BSD-3-Clause */
/* Call sites: a repeated op_par_loop call finds its loop from its pointers and its arguments'
 * identities, without hashing or comparing the kernel text.
 *
 * A site is (kernel pointer, name pointer, set, argument identities). Its strings are trusted
 * by pointer only when they lie in a read-only segment of an object loaded before the sites were
 * first used (string literals of the program and its libraries): such bytes cannot change while
 * the object stays loaded (a program that unloads it, or makes it writable, and keeps passing the
 * pointer is not followed). Any other string (a buffer the program may rewrite, a heap copy) is
 * compared with the loop's own copy on every call, so a new text in the same buffer is a new loop
 * (unless the library holds the text itself, unchanged until op_exit: a kernel header's).
 * Sites point at loops: every free of a loop forgets them all (a new epoch).
 *
 * Lazy execution looks a call up when it is queued (chain.c): the program's pointers are the
 * ones its site knows, and the queued call carries the loop they lead to, so that its replay
 * neither looks it up again nor compares the text of the copy it ran from. A call whose site
 * has no loop yet is checked when it is queued (its errors come at the call, as eagerly), and
 * its site is remembered as checked, without a loop, until its first replay gives it one: a
 * site called again and again before the chain first runs is checked once. */
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/loop.h"
#include "runtime/options.h"

static uint64_t mix(uint64_t h, uint64_t v) {
  h = (h ^ v) * 0x9E3779B97F4A7C15ull;
  return h ^ (h >> 29);
}

static uint64_t site_key(const op2_loop_call *call) {
  const op_arg *args = call->args;
  uint64_t h = mix(mix(mix((uintptr_t)call->kernel, (uintptr_t)call->name), (uintptr_t)call->set),
                   (unsigned)call->nargs);
  for (int i = 0; i < call->nargs; i++)
    h = mix(mix(h, (uintptr_t)args[i].dat ^ (uintptr_t)args[i].map),
            (uint64_t)args[i].acc << 32 ^ (uint32_t)args[i].idx);
  return h ? h : 1; /* 0 marks an empty slot */
}

/* The fields of an argument that make a loop's shape (as loop.c's key), the type apart. */
static bool same_arg(const op_arg *a, const op_arg *b) {
  return a->tag == OP2_ARG_TAG && a->kind == b->kind && a->opt == b->opt && a->idx == b->idx &&
         a->dim == b->dim && a->acc == b->acc && (a->data != NULL) == (b->data != NULL) &&
         a->dat == b->dat && a->map == b->map;
}

/* A site checked when queued: its strings are read-only, so pointers decide. */
static bool checked_matches(const op2_loop_site *s, const op2_loop_call *call) {
  const op_arg *args = call->args;
  if (s->kernel != call->kernel || s->name != call->name || s->set != call->set ||
      s->nargs != call->nargs)
    return false;
  for (int i = 0; i < call->nargs; i++)
    if (!same_arg(&args[i], &s->checked[i]) || args[i].type != s->checked[i].type) return false;
  return true;
}

static bool site_matches(op2_context *ctx, const op2_loop_site *s, const op2_loop_call *call) {
  const op2_loop *l = s->loop;
  if (!l) return checked_matches(s, call);
  int nargs = call->nargs;
  if (s->kernel != call->kernel || s->name != call->name || s->set != call->set ||
      l->nargs != nargs || l->const_generation != ctx->const_generation)
    return false;
  for (int i = 0; i < nargs; i++) {
    const op_arg *a = &call->args[i], *mine = &l->args[i];
    if (!same_arg(a, mine)) return false;
    if (!(s->types_fixed && a->type == mine->type) && !op2_loop_same_type(l, i, a->type))
      return false;
  }
  if (s->text_fixed) return true;
  ctx->loop_sites.compares++;
  return op2_loop_same_text(l, call->kernel, call->name);
}

const op2_loop_site *op2_loop_site_lookup(op2_context *ctx, const op2_loop_call *call) {
  op2_loop_sites *t = &ctx->loop_sites;
  if (!t->cap || !call->kernel || !call->name || call->nargs < 1 || !call->args) return NULL;
  uint64_t key = site_key(call);
  for (size_t i = key & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    const op2_loop_site *s = &t->slots[i];
    if (!s->key) break;
    if (s->key == key && site_matches(ctx, s, call)) {
      if (s->loop)
        t->hits++;
      else
        t->misses++; /* checked, but no loop to find yet */
      return s;
    }
  }
  t->misses++;
  return NULL;
}

op2_loop *op2_loop_site_find(op2_context *ctx, const op2_loop_call *call) {
  const op2_loop_site *s = op2_loop_site_lookup(ctx, call);
  return s ? s->loop : NULL;
}

/* ---- read-only strings ---- */

typedef struct span_query {
  uintptr_t begin, end; /* end: of the read-only segment holding begin */
  int objects_left;     /* the objects loaded when the sites were first used: a bounded walk */
  bool read_only;
} span_query;

static int find_span(struct dl_phdr_info *info, size_t size, void *data) {
  (void)size;
  span_query *q = data;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
    if (ph->p_type != PT_LOAD || q->begin < lo || q->begin >= hi) continue;
    q->read_only = !(ph->p_flags & PF_W);
    q->end = hi;
    return 1;
  }
  return --q->objects_left <= 0;
}

static int count_object(struct dl_phdr_info *info, size_t size, void *data) {
  (void)info, (void)size;
  ++*(int *)data;
  return 0;
}

/* Read only where it starts (the pointer may be a loop's copy of a buffer freed since: nothing
 * is read from it unless it lies in a loaded object) and through its terminating zero. */
static bool read_only_text(const op2_loop_sites *t, const char *s) {
  if (!s) return true;
  span_query q = {.begin = (uintptr_t)s, .objects_left = t->objects};
  dl_iterate_phdr(find_span, &q);
  return q.read_only && strnlen(s, q.end - q.begin) < q.end - q.begin;
}

bool op2_loop_text_fixed(op2_context *ctx, const char *s) {
  op2_loop_sites *t = &ctx->loop_sites;
  if (!t->objects) dl_iterate_phdr(count_object, &t->objects);
  return read_only_text(t, s);
}

/* ---- the table ---- */

static bool grow(op2_context *ctx) {
  op2_loop_sites *t = &ctx->loop_sites;
  /* Sites are bounded by the loops they lead to: a program that passes a new buffer on every
   * call starts over rather than growing without end. */
  if (t->cap >= 4 * ((size_t)ctx->loops.count + 16)) {
    op2_loop_sites_clear(ctx);
    return true;
  }
  size_t cap = t->cap ? 2 * t->cap : 64;
  op2_loop_site *slots = calloc(cap, sizeof *slots);
  if (!slots) return false;
  for (size_t i = 0; i < t->cap; i++) {
    const op2_loop_site *s = &t->slots[i];
    if (!s->key) continue;
    size_t j = s->key & (cap - 1);
    while (slots[j].key) j = (j + 1) & (cap - 1);
    slots[j] = *s;
  }
  free(t->slots);
  t->slots = slots, t->cap = cap;
  return true;
}

/* The slot of the site (key, the call's kernel, name, set): its own, or a free one (counted as
 * used), its arguments copy of a checked site released; NULL when the table cannot grow. */
static op2_loop_site *slot_for(op2_context *ctx, uint64_t key, const op2_loop_call *call) {
  const char *kernel = call->kernel, *name = call->name;
  op_set set = call->set;
  op2_loop_sites *t = &ctx->loop_sites;
  if (2 * (t->used + 1) > t->cap && !grow(ctx)) return NULL; /* out of memory */
  if (!t->objects) dl_iterate_phdr(count_object, &t->objects);
  size_t i = key & (t->cap - 1);
  while (t->slots[i].key && !(t->slots[i].key == key && t->slots[i].kernel == kernel &&
                              t->slots[i].name == name && t->slots[i].set == set))
    i = (i + 1) & (t->cap - 1);
  if (!t->slots[i].key) t->used++;
  free(t->slots[i].checked);
  t->slots[i].checked = NULL;
  return &t->slots[i];
}

void op2_loop_site_remember(op2_context *ctx, const op2_loop_call *call, op2_loop *loop) {
  op2_loop_sites *t = &ctx->loop_sites;
  if (!call->kernel || !call->name || call->nargs < 1 || !call->args) return;
  uint64_t key = site_key(call);
  op2_loop_site *s = slot_for(ctx, key, call);
  if (!s) return; /* out of memory: calls take the search */
  bool types_fixed = true;
  for (int a = 0; a < call->nargs && types_fixed; a++)
    types_fixed = read_only_text(t, loop->args[a].type);
  *s = (op2_loop_site){
      .key = key,
      .kernel = call->kernel,
      .name = call->name,
      .set = call->set,
      .loop = loop,
      .text_fixed =
          (call->kernel_kept || read_only_text(t, call->kernel)) && read_only_text(t, call->name),
      .types_fixed = types_fixed,
  };
}

void op2_loop_site_remember_checked(op2_context *ctx, const op2_loop_call *call, bool text_fixed) {
  op2_loop_sites *t = &ctx->loop_sites;
  int nargs = call->nargs;
  const op_arg *args = call->args;
  if (!text_fixed || !call->kernel || !call->name || nargs < 1 || !args) return;
  if (!t->objects) dl_iterate_phdr(count_object, &t->objects);
  for (int a = 0; a < nargs; a++) /* a buffer's type may change: such calls are checked again */
    if (!read_only_text(t, args[a].type)) return;
  op_arg *checked = malloc((size_t)nargs * sizeof *checked);
  if (!checked) return; /* out of memory: the next call is checked again */
  memcpy(checked, args, (size_t)nargs * sizeof *checked);
  uint64_t key = site_key(call);
  op2_loop_site *s = slot_for(ctx, key, call);
  if (!s) {
    free(checked);
    return;
  }
  *s = (op2_loop_site){.key = key,
                       .kernel = call->kernel,
                       .name = call->name,
                       .set = call->set,
                       .checked = checked,
                       .nargs = nargs,
                       .text_fixed = true,
                       .types_fixed = true};
}

static void release_checked(op2_loop_sites *t) {
  for (size_t i = 0; t->used && i < t->cap; i++) free(t->slots[i].checked);
}

void op2_loop_sites_clear(op2_context *ctx) {
  op2_loop_sites *t = &ctx->loop_sites;
  release_checked(t);
  if (t->used) memset(t->slots, 0, t->cap * sizeof *t->slots);
  t->used = 0;
  t->epoch++;
}

/* Whether a site's call passes `dat` (its loop's arguments, or those it was checked with). */
static bool site_uses(const op2_loop_site *s, op_dat dat) {
  const op_arg *a = s->loop ? s->loop->args : s->checked;
  int n = s->loop ? s->loop->nargs : s->nargs;
  for (int i = 0; i < n; i++)
    if (a[i].kind == OP2_ARG_DAT && a[i].dat == dat) return true;
  return false;
}

void op2_loop_sites_forget_dat(op2_context *ctx, op_dat dat) {
  op2_loop_sites *t = &ctx->loop_sites;
  t->epoch++; /* the dat's loops are freed: a queued call may carry one */
  if (!t->used) return;
  op2_loop_site *slots = calloc(t->cap, sizeof *slots);
  if (!slots) { /* out of memory: all forgotten, found again by their text */
    op2_loop_sites_clear(ctx);
    return;
  }
  size_t used = 0;
  for (size_t i = 0; i < t->cap; i++) {
    op2_loop_site *s = &t->slots[i];
    if (!s->key) continue;
    if (site_uses(s, dat)) {
      free(s->checked);
      continue;
    }
    size_t j = s->key & (t->cap - 1);
    while (slots[j].key) j = (j + 1) & (t->cap - 1);
    slots[j] = *s;
    used++;
  }
  free(t->slots);
  t->slots = slots, t->used = used;
}

void op2_loop_sites_free(op2_context *ctx) {
  release_checked(&ctx->loop_sites);
  free(ctx->loop_sites.slots);
  ctx->loop_sites = (op2_loop_sites){.epoch = ctx->loop_sites.epoch + 1};
}
