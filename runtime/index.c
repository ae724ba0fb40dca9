/* SPDX-License-Identifier: BSD-3-Clause */
/* The hash index (index.h). */
#include "runtime/index.h"

#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

static size_t home(const op2_index *ix, uint64_t key) {
  return (size_t)(key ^ (key >> 29)) & (ix->cap - 1);
}

static void put(op2_index *ix, uint64_t key, void *item) {
  size_t i = home(ix, key);
  while (ix->slots[i].item) i = (i + 1) & (ix->cap - 1);
  ix->slots[i] = (op2_index_slot){key, item};
  ix->count++;
}

int op2_index_add(op2_index *ix, uint64_t key, void *item) {
  if (2 * (ix->count + 1) > ix->cap) { /* at most half full: probes stay short */
    size_t cap = ix->cap ? 2 * ix->cap : 64;
    op2_index grown = {calloc(cap, sizeof *grown.slots), cap, 0};
    if (!grown.slots) return -1;
    for (size_t i = 0; i < ix->cap; i++)
      if (ix->slots[i].item) put(&grown, ix->slots[i].key, ix->slots[i].item);
    free(ix->slots);
    *ix = grown;
  }
  put(ix, key, item);
  return 0;
}

void op2_index_remove(op2_index *ix, uint64_t key, const void *item) {
  if (!ix->cap) return;
  size_t mask = ix->cap - 1, i = home(ix, key);
  while (ix->slots[i].item && ix->slots[i].item != item) i = (i + 1) & mask;
  if (!ix->slots[i].item) return;
  ix->slots[i].item = NULL;
  ix->count--;
  /* Backward shift: each later entry of the run moves into the hole unless its home lies
   * cyclically after the hole (it would then be found no more). */
  for (size_t j = (i + 1) & mask; ix->slots[j].item; j = (j + 1) & mask) {
    size_t h = home(ix, ix->slots[j].key);
    if (((j - h) & mask) >= ((j - i) & mask)) {
      ix->slots[i] = ix->slots[j];
      ix->slots[j].item = NULL;
      i = j;
    }
  }
}

void op2_index_free(op2_index *ix) {
  free(ix->slots);
  *ix = (op2_index){0};
}

void *op2_index_next(const op2_index *ix, uint64_t key, size_t *pos) {
  if (!ix->cap) return NULL;
  size_t mask = ix->cap - 1;
  /* *pos counts the slots already walked from the key's home */
  for (size_t i = (home(ix, key) + *pos) & mask; ix->slots[i].item && *pos <= mask;
       i = (i + 1) & mask) {
    ++*pos;
    if (ix->slots[i].key == key) return ix->slots[i].item;
  }
  return NULL;
}

uint64_t op2_index_key(const char *s, const void *p) {
  return XXH3_64bits_withSeed(s, strlen(s), (uint64_t)(uintptr_t)p);
}
