/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_PROFILE_JSON under MPI: rank 0 alone writes the file (every rank writing the same path at
 * once leaves a mix of documents). The path is relative and each rank runs in its own directory:
 * rank 0's gets the file; on the other ranks the path names a directory, so a rank other than 0
 * that tried to write would fail (and its error would end the test). After op_exit (MPI
 * finalised) each rank checks its own directory. Usage: t493-profile, with
 * OP2_PROFILE_JSON=profile.json */
#include "mpi_test.h"

KERNEL_TEXT(
    bump, static void bump(double *x) { x[0] += 1.0; })

int main(int argc, char **argv) {
  op_init(argc, argv, 0);
  const int rank = mt_rank(), size = mt_size(); /* MPI ends at op_exit */
  CHECK(size >= 2);
  const char *path = getenv("OP2_PROFILE_JSON");
  CHECK(path && strcmp(path, "profile.json") == 0);
  char dir[4096], mine[4200], file[4300];
  mt_scratch_dir(dir, sizeof dir);
  snprintf(mine, sizeof mine, "%s/rank%d", dir, rank);
  CHECK(mkdir(mine, 0755) == 0);
  CHECK(chdir(mine) == 0);
  if (rank != 0) CHECK(mkdir(path, 0755) == 0);

  enum { N = 100 };
  mt_set nodes = mt_decl_set(MT_LOCAL, MT_SPLIT_SKEWED, N, "nodes");
  op_dat x = mt_decl_dat(&nodes, 1, "double", sizeof(double), NULL, "x");
  op_par_loop(bump_src, "bump", nodes.set, op_arg_dat(x, -1, OP_ID, 1, "double", OP_RW));
  op_exit();

  struct stat st;
  CHECK(stat(path, &st) == 0);
  if (rank == 0) {
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char text[8192];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = 0;
    char want[64];
    snprintf(want, sizeof want, "\"ranks\":\t%d", size);
    CHECK_CONTAINS(text, want);
    CHECK_CONTAINS(text, "\"name\":\t\"bump\"");
    CHECK_CONTAINS(text, "\"startup_rank0\":");
    CHECK_CONTAINS(text, "\"halo_build_s\":");
    CHECK_CONTAINS(text, "\"halo_messages\":");
    CHECK(remove(path) == 0);
  } else {
    CHECK(S_ISDIR(st.st_mode)); /* untouched */
    CHECK(rmdir(path) == 0);
  }
  snprintf(file, sizeof file, "%s", mine);
  CHECK(chdir("/") == 0);
  CHECK(rmdir(file) ==
        0); /* MPI ended at op_exit: the scratch directory stays, in the test's cache */
  if (rank == 0) printf("t493 on %d ranks: rank 0 wrote the profile\n", size);
  return 0;
}
