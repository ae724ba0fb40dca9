/* SPDX-License-Identifier: BSD-3-Clause */
/* The hash index behind loop lookups (runtime/index.c): many items, many sharing a key, removed
 * in a scattered order; after every step each item present is found under its key exactly once
 * and no removed one is. Deletion by backward shift must keep every probe run intact. */
#include "runtime/index.h"
#include "test.h"

enum { N = 5000, KEYS = 700 };

static uint64_t key_of(int i) {
  /* a few keys share home slots in any table size: multiples of 4096 */
  return (uint64_t)(i % KEYS) * 4096u;
}

static void check_all(const op2_index *ix, const char *present, int *items) {
  size_t found = 0;
  for (int k = 0; k < KEYS; k++) {
    size_t pos = 0;
    for (int *p; (p = op2_index_next(ix, key_of(k), &pos));) {
      int i = (int)(p - items);
      CHECK(i >= 0 && i < N);
      CHECK_EQ_INT(key_of(i), key_of(k));
      CHECK(present[i]);
      found++;
    }
  }
  size_t want = 0;
  for (int i = 0; i < N; i++) want += present[i] != 0;
  CHECK_EQ_INT(found, want);
  CHECK_EQ_INT(ix->count, want);
}

int main(void) {
  static int items[N];
  static char present[N];
  op2_index ix = {0};
  CHECK(op2_index_next(&ix, 1, &(size_t){0}) == NULL); /* empty: nothing, no crash */
  for (int i = 0; i < N; i++) {
    CHECK_EQ_INT(op2_index_add(&ix, key_of(i), &items[i]), 0);
    present[i] = 1;
  }
  check_all(&ix, present, items);
  for (int step = 0; step < N; step++) {
    int i = (int)(((long)step * 3001) % N); /* every item once (3001 is prime to N), scattered */
    op2_index_remove(&ix, key_of(i), &items[i]);
    present[i] = 0;
    op2_index_remove(&ix, key_of(i), &items[i]); /* twice: no effect */
    if (step % 97 == 0) check_all(&ix, present, items);
  }
  check_all(&ix, present, items);
  CHECK_EQ_INT(ix.count, 0);
  CHECK(op2_index_key("res_calc", NULL) == op2_index_key("res_calc", NULL));
  CHECK(op2_index_key("res_calc", &ix) != op2_index_key("res_calc", NULL));
  op2_index_free(&ix);
  return 0;
}
