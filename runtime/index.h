/* SPDX-License-Identifier: BSD-3-Clause */
/* A hash index from 64-bit keys to pointers (several pointers may share a key), so that what a
 * loop's first call looks up (its shape, its statistics, loops of its name) costs the same with
 * 3,000 loops as with 3. Open addressing, linear probing, deletion by backward shift. */
#ifndef OP2_INDEX_H
#define OP2_INDEX_H

#include <stddef.h>
#include <stdint.h>

typedef struct op2_index_slot {
  uint64_t key;
  void *item; /* NULL: empty */
} op2_index_slot;
typedef struct op2_index {
  op2_index_slot *slots;
  size_t cap; /* a power of two, or 0 */
  size_t count;
} op2_index;

/* 0, or -1 when memory is short (the index is then unchanged). */
int op2_index_add(op2_index *ix, uint64_t key, void *item);
void op2_index_remove(op2_index *ix, uint64_t key, const void *item);
void op2_index_free(op2_index *ix);
/* Walks the items under `key`: start with *pos = 0; NULL when there are no more. */
void *op2_index_next(const op2_index *ix, uint64_t key, size_t *pos);
/* A string's key (with an optional pointer mixed in). */
uint64_t op2_index_key(const char *s, const void *p);

#endif /* OP2_INDEX_H */
