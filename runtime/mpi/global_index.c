/* SPDX-License-Identifier: BSD-3-Clause */
/* Global index -> local index of the elements a rank holds of a set, for the halo build's
 * lookups (every map entry of every set, three times). Where the global indices held span at most
 * a few times their count (a few ranks, or a partition that follows the numbering) a dense array
 * over the span answers with one access that keeps the map's locality; otherwise an
 * open-addressing table with linear probing, O(1) where a binary search over a sorted table took
 * ~20 cache-missing steps. */
#include <stdint.h>
#include <stdlib.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/error.h"

enum { DENSE_SPAN_PER_ELEMENT = 4 };

static size_t slot_of(const op2_global_index *ix, idx_g_t g) {
  /* Fibonacci hashing of all 64 bits: the high bits are mixed, then folded down */
  uint64_t h = (uint64_t)g * 0x9E3779B97F4A7C15u;
  return (size_t)(h ^ (h >> 32)) & ix->mask;
}

int op2_global_index_build(op2_global_index *ix, const idx_g_t *globals, long n) {
  ix->slots = NULL;
  ix->dense = NULL;
  idx_g_t lo = 0, hi = -1;
  for (long e = 0; e < n; e++) {
    if (e == 0 || globals[e] < lo) lo = globals[e];
    if (e == 0 || globals[e] > hi) hi = globals[e];
  }
  long span = (long)(hi - lo + 1);
  ix->lo = lo;
  ix->span = span;
  if (span <= DENSE_SPAN_PER_ELEMENT * n + 1024) {
    ix->dense = malloc(sizeof(int) * ((size_t)span + 1));
    if (!ix->dense) return op2_error(OP2_ERR_MEM, "halo: out of memory");
    for (long k = 0; k < span; k++) ix->dense[k] = -1;
    for (long e = n - 1; e >= 0; e--) ix->dense[globals[e] - lo] = (int)e; /* first one wins */
    return OP2_OK;
  }
  size_t slots = 64;
  while (slots < 2 * (size_t)n) slots *= 2; /* load at most 1/2 */
  ix->mask = slots - 1;
  ix->slots = malloc(sizeof(*ix->slots) * slots);
  if (!ix->slots) return op2_error(OP2_ERR_MEM, "halo: out of memory");
  for (size_t s = 0; s < slots; s++) ix->slots[s].global = -1;
  for (long e = 0; e < n; e++) {
    size_t s = slot_of(ix, globals[e]);
    while (ix->slots[s].global >= 0 && ix->slots[s].global != globals[e]) s = (s + 1) & ix->mask;
    if (ix->slots[s].global < 0) ix->slots[s].global = globals[e], ix->slots[s].local = (int)e;
  }
  return OP2_OK;
}

int op2_global_index_find(const op2_global_index *ix, idx_g_t g) {
  if (ix->dense) return g >= ix->lo && g - ix->lo < ix->span ? ix->dense[g - ix->lo] : -1;
  if (g < 0) return -1; /* -1 marks an empty slot */
  for (size_t s = slot_of(ix, g);; s = (s + 1) & ix->mask) {
    if (ix->slots[s].global == g) return ix->slots[s].local;
    if (ix->slots[s].global < 0) return -1;
  }
}

void op2_global_index_free(op2_global_index *ix) {
  free(ix->slots), free(ix->dense);
  ix->slots = NULL, ix->dense = NULL;
}
