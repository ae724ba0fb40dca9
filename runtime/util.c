/* SPDX-License-Identifier: BSD-3-Clause */
/* Small helpers every part of the runtime uses. */
#include <ctype.h>
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/chain.h"

int op2_list_push(op2_ptr_list *l, void *item) {
  if (l->count == l->capacity) {
    int cap = l->capacity ? 2 * l->capacity : 16;
    void **items = realloc(l->items, (size_t)cap * sizeof *items);
    if (!items) return op2_error(OP2_ERR_MEM, "out of memory");
    l->items = items;
    l->capacity = cap;
  }
  l->items[l->count++] = item;
  return OP2_OK;
}

int op2_is_identifier(const char *s) {
  if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
  for (; *s; s++)
    if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
  return 1;
}

/* Whole cache lines, never 0 bytes: op2_aligned_alloc zeroes up to the end of the last line. */
static size_t whole_lines(size_t bytes) {
  size_t rounded = (bytes + 63) / 64 * 64;
  return rounded ? rounded : 64;
}

/* Arrays of at least two huge pages (a large mesh's dats, maps and halo rows) start on a 2 MiB
 * boundary, and their whole huge pages are advised to the kernel as transparent huge pages
 * (OP2_HUGE_PAGES). An indirect loop reaches its dats through maps, Airfoil's edges at two fronts
 * of cells at a time, and with 4 KiB pages the TLB misses on most new rows: huge pages save
 * most of those misses, above all for loops that touch scattered rows (bres_calc's boundary
 * cells; docs/PERFORMANCE.md has the figures). The tail past the last whole huge page keeps small
 * pages, so no memory is added; the advice changes nothing where the system has transparent huge
 * pages off, and a refused madvise is no error. */
#define OP2_HUGE_PAGE ((size_t)2 << 20)

static void *alloc_aligned(size_t bytes, size_t room) {
  size_t n = whole_lines(bytes);
  int huge = n >= 2 * OP2_HUGE_PAGE && op2_ctx()->opt.huge_pages;
  void *p = NULL;
  if (posix_memalign(&p, huge ? OP2_HUGE_PAGE : 64, whole_lines(bytes + room)) != 0) return NULL;
  if (huge) (void)madvise(p, n / OP2_HUGE_PAGE * OP2_HUGE_PAGE, MADV_HUGEPAGE);
  return p;
}

void *op2_aligned_alloc_unzeroed(size_t bytes) {
  return alloc_aligned(bytes, 0);
}

void *op2_aligned_alloc_room(size_t bytes, size_t room) {
  void *p = alloc_aligned(bytes, room);
  if (p) memset(p, 0, whole_lines(bytes));
  return p;
}

void *op2_aligned_alloc(size_t bytes) {
  return op2_aligned_alloc_room(bytes, 0);
}

size_t op2_halo_room(const op2_context *ctx, size_t bytes) {
  return ctx->mpi.size > 1 ? bytes / 4 : 0;
}

void *op2_aligned_grow(void *p, size_t used, size_t bytes) {
  if (malloc_usable_size(p) >= whole_lines(bytes)) {
    memset((char *)p + bytes, 0, whole_lines(bytes) - bytes);
    return p;
  }
  char *q = op2_aligned_alloc_unzeroed(bytes);
  if (!q) return NULL;
  memcpy(q, p, used);
  memset(q + bytes, 0, whole_lines(bytes) - bytes);
  free(p);
  return q;
}

int op_is_root(void) {
  return op2_ctx()->mpi.rank == 0;
}

void op_timers(double *cpu, double *wall) {
  op2_chain_flush_local(op2_ctx(), "op_timers"); /* the program times the loops it called */
  if (cpu) *cpu = (double)clock() / CLOCKS_PER_SEC;
  if (wall) *wall = op2_wall_seconds();
}

/* Names a user may not give a constant or a loop: C keywords would break every kernel, and the
 * op2_ / OP2_ prefixes and the prelude's macros belong to the generated code. */
int op2_is_reserved_name(const char *s) {
  static const char *const words[] = {
      "auto",          "break",    "case",     "char",     "const",     "continue",
      "default",       "do",       "double",   "else",     "enum",      "extern",
      "float",         "for",      "goto",     "if",       "inline",    "int",
      "long",          "register", "restrict", "return",   "short",     "signed",
      "sizeof",        "static",   "struct",   "switch",   "typedef",   "union",
      "unsigned",      "void",     "volatile", "while",    "_Bool",     "_Complex",
      "_Alignas",      "_Alignof", "_Atomic",  "_Generic", "_Noreturn", "_Static_assert",
      "_Thread_local", "MIN",      "MAX",      "M_PI",     "NULL"};
  if (!s) return 0;
  /* OP2's own programs declare a constant op2_stride (the SoA stride of aero); no generated name
   * is op2_stride, so it stays the program's. */
  if (strcmp(s, "op2_stride") == 0) return 0;
  if (strncmp(s, "op2_", 4) == 0 || strncmp(s, "OP2_", 4) == 0) return 1;
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(s, words[i]) == 0) return 1;
  return 0;
}
