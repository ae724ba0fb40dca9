/* SPDX-License-Identifier: BSD-3-Clause */
/* A set with more elements in all than an int holds (every rank declares 1.2e9, no data: nothing
 * is held per element): its global size is kept whole, and op_get_size, whose int cannot hold it,
 * fails naming the set instead of returning a wrapped count. A set that fits still answers. */
#include "mpi_test.h"
#include "runtime/op2_impl.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  op_init(argc, argv, 0);
  test_catch_errors();
  op_set big = op_decl_set(1200000000, "big");
  op_set small = op_decl_set(10, "small");
  CHECK(big && small);
  CHECK(big->size == 1200000000);
  if (mt_size() > 1) {
    EXPECT_ERROR(CHECK_EQ_INT(op_get_size(big), 0), "set 'big' has");
    CHECK_CONTAINS(op_last_error(), "more than its int holds");
  }
  CHECK_EQ_INT(op_get_size(small), 10 * mt_size());
  if (mt_rank() == 0)
    printf("t418 on %d ranks: a global size past 2^31 is refused by name\n", mt_size());
  op_exit();
  MPI_Finalize();
  return 0;
}
