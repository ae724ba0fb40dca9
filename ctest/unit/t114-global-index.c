/* SPDX-License-Identifier: BSD-3-Clause */
/* The halo build's global -> local index (runtime/mpi/global_index.c): both representations (a
 * dense array over a narrow span, a hash table over a wide one) find every element held, the first
 * local index of a global listed twice, and nothing for the globals not held around them; the
 * same with global indices past 2^31 and 2^32 (MPI meshes larger than an int can number), where a
 * global 2^32 away from a held one must not be taken for it. */
#include "test.h"
#include "runtime/mpi/op2_mpi.h"

static void check_index(const idx_g_t *globals, long n, int want_dense) {
  op2_global_index ix;
  CHECK(op2_global_index_build(&ix, globals, n) == OP2_OK);
  CHECK((ix.dense != NULL) == want_dense);
  for (long e = 0; e < n; e++) {
    long first = 0;
    while (globals[first] != globals[e]) first++;
    if (first != e) continue;
    CHECK_EQ_INT(op2_global_index_find(&ix, globals[e]), (int)e);
  }
  for (long e = 0; e < n; e++)
    for (idx_g_t d = -2; d <= 2; d += 4) { /* neighbours not held (the test data never has them) */
      idx_g_t g = globals[e] + d;
      int held = 0;
      for (long k = 0; k < n; k++) held |= globals[k] == g;
      if (!held) CHECK_EQ_INT(op2_global_index_find(&ix, g), -1);
    }
  CHECK_EQ_INT(op2_global_index_find(&ix, -1), -1);
  for (long e = 0; e < n; e++) { /* 2^32 away: the same low 32 bits, never held here */
    CHECK_EQ_INT(op2_global_index_find(&ix, globals[e] + (1LL << 32)), -1);
    if (globals[e] >= (1LL << 32))
      CHECK_EQ_INT(op2_global_index_find(&ix, globals[e] - (1LL << 32)), -1);
  }
  op2_global_index_free(&ix);
}

int main(void) {
  /* narrow: every other global of a range, one listed twice */
  enum { N = 500 };
  static const idx_g_t bases[] = {0, (1LL << 31) + 12345, (1LL << 32) - 300, 5LL << 32};
  for (int b = 0; b < 4; b++) {
    idx_g_t narrow[N + 1];
    for (int e = 0; e < N; e++) narrow[e] = bases[b] + 7000 + 2 * ((e * 37) % N);
    narrow[N] = narrow[3];
    check_index(narrow, N + 1, 1);
    /* wide: spread over a range far larger than the count, one listed twice */
    idx_g_t wide[N + 1];
    for (int e = 0; e < N; e++) wide[e] = bases[b] + 4 * ((e * 7919LL) % 100003) * 17 + 10;
    wide[N] = wide[10];
    check_index(wide, N + 1, 0);
  }
  /* nothing held */
  check_index(NULL, 0, 1);
  printf("t114: global -> local index, dense and hashed, below and past 2^31 and 2^32\n");
  return 0;
}
