/* SPDX-License-Identifier: BSD-3-Clause */
/* The openmp backend's thread count under MPI. With OMP_NUM_THREADS unset, ranks sharing a
 * machine (mpiexec --bind-to none) divide its cores: each uses max(1, cores it may use / ranks on
 * the machine), never one thread per core each (2 ranks on 2 cores ran 4 spinning threads). A
 * count the user set is kept, with a warning when the ranks' threads exceed the cores. Rank 0
 * also checks the OP2_DIAGS=1 line that reports the choice.
 * Ranks bound to cores of their own (mpiexec --bind-to core) share them with nobody: each uses
 * all of its own.
 * Usage: t485-omp-ranks unset|bound|N  (N: the OMP_NUM_THREADS the runner set; unset and bound:
 * the runner removed it, which the test checks, since the MPI tests' environment sets it to 1;
 * bound: the ranks were bound to one core each) */
#include <sched.h>

#include "mpi_test.h"
#include "runtime/op2_impl.h"

/* What op_init wrote to stderr (rank 0), captured through a temporary file. */
static char *init_capturing_stderr(int argc, char **argv, int capture) {
  static char text[1 << 16];
  FILE *f = capture ? tmpfile() : NULL;
  int saved = -1;
  if (capture) {
    CHECK(f != NULL);
    fflush(stderr);
    saved = dup(2);
    CHECK(saved >= 0 && dup2(fileno(f), 2) == 2);
  }
  op_init(argc, argv, 1);
  if (capture) {
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    fclose(f);
    fputs(text, stderr); /* in the test's log too */
  }
  return text;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(argc == 2);
  const char *env = getenv("OMP_NUM_THREADS");
  int bound = strcmp(argv[1], "bound") == 0, set = !bound && strcmp(argv[1], "unset") != 0;
  if (set)
    CHECK(env && strcmp(env, argv[1]) == 0);
  else
    CHECK(env == NULL); /* else this would test a count the user chose */
  CHECK(setenv("OP2_BACKEND", "openmp", 1) == 0);

  cpu_set_t mask;
  CHECK(sched_getaffinity(0, sizeof mask, &mask) == 0);
  int cores = CPU_COUNT(&mask), rank = mt_rank(), local = 0;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  CHECK(local >= 2);               /* the test is about ranks sharing a machine */
  int sharers = bound ? 1 : local; /* the ranks that may run on this rank's cores */
  int expected = set ? atoi(argv[1]) : (cores / sharers > 1 ? cores / sharers : 1);

  const char *said = init_capturing_stderr(argc, argv, rank == 0);
  op2_context *ctx = op2_ctx();
  CHECK(strcmp(ctx->backend->name, "openmp") == 0);
  CHECK(ctx->mpi.core_sharers == sharers);
  int threads = ctx->backend->threads(ctx);
  if (threads != expected)
    fprintf(stderr, "rank %d: %d threads, expected %d (%d cores, %d ranks on this node, %s)\n",
            rank, threads, expected, cores, local, set ? "OMP_NUM_THREADS set" : "unset");
  CHECK(threads == expected);

  if (rank == 0) {
    char line[256];
    if (bound)
      snprintf(line, sizeof line,
               "op2: openmp: %d thread%s per rank (%d core%s, no other rank on this node may use "
               "%s; OMP_NUM_THREADS unset)\n",
               expected, expected == 1 ? "" : "s", cores, cores == 1 ? "" : "s",
               cores == 1 ? "it" : "them");
    else
      snprintf(line, sizeof line,
               "op2: openmp: %d thread%s per rank (%d core%s, %d ranks on this node; %s)\n",
               expected, expected == 1 ? "" : "s", cores, cores == 1 ? "" : "s", local,
               set ? "OMP_NUM_THREADS kept" : "OMP_NUM_THREADS unset");
    CHECK(strstr(said, line) != NULL);
    /* the warning, once, exactly when the kept count oversubscribes the cores */
    const char *warning = strstr(said, "warning: openmp:");
    CHECK((warning != NULL) == (set && expected * local > cores));
    if (warning) {
      snprintf(line, sizeof line, "x %d ranks on this node = %d threads on %d core", local,
               expected * local, cores);
      CHECK(strstr(warning, line) != NULL);
      CHECK(strstr(warning + 1, "warning: openmp:") == NULL);
    }
  }
  op_exit();
  MPI_Finalize();
  return 0;
}
