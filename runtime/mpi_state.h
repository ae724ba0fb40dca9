/* SPDX-License-Identifier: BSD-3-Clause */
/* The context's distributed-memory state (ctx->mpi), without MPI types: what runtime/mpi/ keeps
 * between calls. The calls themselves are runtime/distributed.h's; the communicators and requests
 * are runtime/mpi/op2_mpi.h's. */
#ifndef OP2_RUNTIME_MPI_STATE_H
#define OP2_RUNTIME_MPI_STATE_H

typedef struct op2_mpi {
  /* The communicators and requests, defined in runtime/mpi/op2_mpi.h so that no file outside
   * runtime/mpi/ and runtime/hdf5/ sees <mpi.h>; NULL while MPI is not started. */
  struct op2_mpi_comms *comms;
  int rank, size;
  int node_rank, node_size; /* ranks sharing this machine (one optimised compile per node) */
  int we_initialised;       /* op_init called MPI_Init, so op_exit finalises */
  int has_comms;            /* comms holds communicators that are ours to free */
  /* Ranks on this machine allowed to run on any of this rank's cores (its CPU affinity), itself
   * included: node_size under --bind-to none, 1 for a rank bound to cores of its own. The openmp
   * backend's default thread count is this rank's cores divided among them. */
  int core_sharers;
  /* Collective steps in progress (op2_mpi_step): the default error handler defers its exit to
   * the step's agreement, so every rank learns of a failure before any rank exits. */
  int step_depth;
  char step_name[256]; /* the outermost step, named in messages */
  int failure_agreed;  /* a failure is agreed in this step: later agreements are silent */
  int exit_pending;
  int exit_agreed; /* that exit follows an agreement: every rank leaves, nobody is left waiting */
  /* Every agreement carries a tag of the public call it belongs to (its name and its number
   * among this rank's collective calls), so ranks in different calls fail instead of pairing up
   * (agree.c); once they have, the ranks are out of step for good and every later collective
   * call fails on every rank without communicating. */
  unsigned long long call_seq, call_tag;
  int out_of_step;
  char out_of_step_why[512];
  /* the call whose mismatch a lazy chain's agreement reported (op2_mpi_agree_chain): its own
   * agreement adds no "not run" (0: none) */
  unsigned long long out_of_step_call;
  int fault_fired;           /* OP2_FAULT fails its step once */
  long fetch_bytes_received; /* by op2_mpi_fetch: a range fetch moves only the range */
  /* One optimised build per machine (node_build.c): words on kernels still to be sent (the
   * builder) or received (a follower), the builder's sends, the next kernel's tag. */
  struct op2_node_msg *node_msgs;
  int node_count, node_cap;
  int node_nsends, node_kernels; /* the sends are in comms */
  /* Start-up phases on this rank (op2_wall_seconds), reported by op_timing_output as the slowest
   * rank's: MPI_Init's duration, when op_init's MPI start ended, and the distribution's steps'
   * ends (declarations and reads are what lies between op_init and the distribution). */
  double mpi_init_seconds, t_started, t_dist_start, t_owned, t_moved, t_halos;
} op2_mpi;

#endif /* OP2_RUNTIME_MPI_STATE_H */
