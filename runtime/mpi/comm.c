/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI start-up and shut-down for the library context. */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "runtime/mpi/op2_mpi.h"
#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/mpi_state.h"

static int launched_by_mpi(void) {
  /* Open MPI, PMIx and Hydra-style launchers each export the world size. */
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_SIZE");
}

/* MPI starts when a launcher started the program or the program uses MPI itself (op2.h tells
 * from whether <mpi.h> was included where op_init is called): then a program run without a
 * launcher is one process of MPI_COMM_WORLD, and its own MPI calls work. Otherwise the library
 * never touches MPI. */
/* MPI cannot start twice in a process, and a program that uses MPI may still call it after
 * op_exit: MPI started for such a program ends with the process, not with op_exit. */
static void finalize_at_exit(void) {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

/* A rank that leaves (exit(), a return from main, the default error handler outside a collective
 * step) while op_exit has not run would leave the other ranks waiting in their next collective
 * call: it ends the job instead, naming itself. After an agreed failure every rank exits, and
 * after op_exit (or the program's own MPI_Finalize) nobody waits. */
static void exit_without_op_exit(void) {
  op2_context *ctx = op2_ctx();
  op2_mpi *m = &ctx->mpi;
  int finalized = 1;
  if (!m->has_comms || m->size < 2 || m->exit_agreed) return;
  if (MPI_Finalized(&finalized) != MPI_SUCCESS || finalized) return;
  op2_error_final(
      "rank %d exited without op_exit; ending the job (the other ranks would wait for it)",
      m->rank);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* The ranks on this machine whose CPU affinity overlaps this rank's, itself included: the ranks
 * that compete for the cores this rank may run on. With --bind-to none that is every rank on the
 * machine; ranks bound to cores of their own compete with nobody. The openmp backend divides the
 * cores among them when the user did not choose a thread count. */
static int count_core_sharers(op2_context *ctx) {
  op2_mpi *m = &ctx->mpi;
  m->core_sharers = m->node_size;
  if (m->node_size < 2) return OP2_OK;
  cpu_set_t mine, *all = malloc(sizeof *all * (size_t)m->node_size);
  if (!all) return op2_error(OP2_ERR_MEM, "op_init: out of memory");
  CPU_ZERO(&mine);
  /* unknown affinity: every core, so it overlaps every other rank's */
  if (sched_getaffinity(0, sizeof mine, &mine) != 0)
    for (int c = 0; c < CPU_SETSIZE; c++) CPU_SET(c, &mine);
  int rc = OP2_MPI(MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE,
                                 m->comms->node_comm));
  if (rc == OP2_OK) {
    m->core_sharers = 0;
    for (int q = 0; q < m->node_size; q++) {
      cpu_set_t both;
      CPU_AND(&both, &mine, &all[q]);
      m->core_sharers += CPU_COUNT(&both) > 0;
    }
  }
  free(all);
  return rc;
}

int op2_mpi_init(op2_context *ctx, int *argc, char ***argv, int program_uses_mpi) {
  op2_mpi *m = &ctx->mpi;
  m->rank = m->node_rank = 0;
  m->size = m->node_size = m->core_sharers = 1;
  int initialised = 0;
  OP2_CALL(OP2_MPI(MPI_Initialized(&initialised)));
  int launched = launched_by_mpi();
  if (!initialised && !launched && !program_uses_mpi) return OP2_OK;
  int finalized = 0;
  OP2_CALL(OP2_MPI(MPI_Finalized(&finalized)));
  if (finalized)
    return op2_error(OP2_ERR_STATE,
                     "op_init: MPI was finalised by an earlier op_exit and cannot start again");
  /* kept when an earlier op_init failed without op_exit (its watch thread is stopped) */
  if (m->comms) op2_mpi_watchdog_stop(ctx);
  if (!m->comms && !(m->comms = malloc(sizeof *m->comms)))
    return op2_error(OP2_ERR_MEM, "op_init: out of memory");
  struct op2_mpi_comms *c = m->comms;
  *c = (struct op2_mpi_comms){.comm = MPI_COMM_NULL, .node_comm = MPI_COMM_NULL};
  if (!initialised) {
    int provided;
    double t0 = op2_wall_seconds();
    /* Only the calling thread talks to MPI (OpenMP workers and the compile thread never do). */
    if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
      return op2_error(OP2_ERR_STATE, "op_init: MPI_Init failed");
    m->mpi_init_seconds = op2_wall_seconds() - t0;
    if (launched)
      m->we_initialised = 1;
    else
      atexit(finalize_at_exit);
  } else {
    /* The program started MPI: OP2's op_exit ends it too, so OP2 programs (OP2's aero
     * converter) never call MPI_Finalize, which a launcher requires. It ends with the process
     * here, unless the program ends it first. */
    atexit(finalize_at_exit);
  }
  /* Errors come back as codes (checked by OP2_MPI) instead of aborting the job, so a failure
   * reaches the program's error handler and the other ranks (op2_mpi_agree). */
  OP2_CALL(OP2_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &c->comm)));
  m->has_comms = 1;
  OP2_CALL(OP2_MPI(MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN)));
  OP2_CALL(OP2_MPI(MPI_Comm_rank(c->comm, &m->rank)));
  OP2_CALL(OP2_MPI(MPI_Comm_size(c->comm, &m->size)));
  if (m->size > 1) atexit(exit_without_op_exit);
  OP2_CALL(op2_mpi_watchdog_start(ctx));
  OP2_CALL(OP2_MPI(
      MPI_Comm_split_type(c->comm, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &c->node_comm)));
  OP2_CALL(OP2_MPI(MPI_Comm_set_errhandler(c->node_comm, MPI_ERRORS_RETURN)));
  OP2_CALL(OP2_MPI(MPI_Comm_rank(c->node_comm, &m->node_rank)));
  OP2_CALL(OP2_MPI(MPI_Comm_size(c->node_comm, &m->node_size)));
  OP2_CALL(count_core_sharers(ctx));
  m->t_started = op2_wall_seconds();
  return OP2_OK;
}

void op2_mpi_finalize(op2_context *ctx) {
  op2_mpi *m = &ctx->mpi;
  op2_mpi_watchdog_stop(ctx);
  if (m->has_comms) op2_mpi_node_finish(ctx);
  if (m->has_comms) { /* nothing to do about a failure here but say so */
    if (m->comms->node_comm != MPI_COMM_NULL) OP2_MPI(MPI_Comm_free(&m->comms->node_comm));
    OP2_MPI(MPI_Comm_free(&m->comms->comm));
    m->has_comms = 0;
  }
  free(m->comms);
  m->comms = NULL;
  if (m->we_initialised) {
    int finalized = 0;
    if (OP2_MPI(MPI_Finalized(&finalized)) == OP2_OK && !finalized) OP2_MPI(MPI_Finalize());
  }
  m->we_initialised = 0;
}
