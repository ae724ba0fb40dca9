/* SPDX-License-Identifier: BSD-3-Clause */
/* Distributed memory: what the runtime needs to know about MPI. One communicator per context;
 * a run with one rank (or not started by an MPI launcher) has size 1 and never communicates. */
#ifndef OP2_MPI_H
#define OP2_MPI_H

#include <mpi.h>
#include <signal.h>
#include <stdatomic.h>

#include "runtime/context.h"
#include "runtime/mpi_state.h"
#include "runtime/mesh.h"
#include "runtime/distributed.h"

/* The context's MPI objects (ctx->mpi.comms): allocated by op2_mpi_init when MPI starts, so a
 * program that never touches MPI has none; freed by op2_mpi_finalize. */
struct op2_mpi_comms {
  MPI_Comm comm;           /* duplicate of MPI_COMM_WORLD */
  MPI_Comm node_comm;      /* ranks sharing this machine (one optimised compile per node) */
  MPI_Request *node_sends; /* the node builder's sends, ctx->mpi.node_nsends (node_build.c) */
  /* OP2_MPI_TIMEOUT (watchdog.c): when the agreement in progress began to wait (0: none), in
   * which call, and the thread that watches it. */
  _Atomic long long wait_since_ns;
  const char *_Atomic wait_what;
  int watching, watch_stop;
  pthread_t watch_thread;
  pthread_mutex_t watch_lock;
  pthread_cond_t watch_wake;
  /* When the launcher ends this rank (SIGTERM: another rank failed, timed out or exited), a
   * line saying so, written by the handler (watchdog.c); the handler it replaced. */
  char term_note[200];
  int term_note_len, term_installed;
  struct sigaction term_old;
};

/* The watch thread (watchdog.c): started by op2_mpi_init, stopped by op2_mpi_finalize. An
 * agreement waits between op2_mpi_wait_begin and op2_mpi_wait_end. */
int op2_mpi_watchdog_start(op2_context *ctx);
void op2_mpi_watchdog_stop(op2_context *ctx);
long long op2_mpi_now_ns(void);
static inline void op2_mpi_wait_begin(struct op2_mpi_comms *c, const char *what) {
  if (!c->watching) return;
  atomic_store_explicit(&c->wait_what, what, memory_order_relaxed);
  atomic_store_explicit(&c->wait_since_ns, op2_mpi_now_ns(), memory_order_relaxed);
}
static inline void op2_mpi_wait_end(struct op2_mpi_comms *c) {
  if (c->watching) atomic_store_explicit(&c->wait_since_ns, 0, memory_order_relaxed);
}

/* The library's communicator; only while MPI is started. */
static inline MPI_Comm op2_comm(const op2_context *ctx) {
  return ctx->mpi.comms->comm;
}

static inline int op2_mpi_active(const op2_context *ctx) {
  return ctx->mpi.size > 1;
}

/* Checked MPI calls (agree.c): OP2_MPI(MPI_Xxx(...)) is OP2_OK, or reports the MPI error with
 * the call and where it was made and returns an error code. The library's communicators return
 * errors (MPI_ERRORS_RETURN) instead of aborting. */
int op2_mpi_failed(int mpi_rc, const char *call, const char *file, int line);
static inline int op2_mpi_status(int mpi_rc, const char *call, const char *file, int line) {
  return mpi_rc == MPI_SUCCESS ? OP2_OK : op2_mpi_failed(mpi_rc, call, file, line);
}
#define OP2_MPI(call) op2_mpi_status((call), #call, __FILE__, __LINE__)

/* Personalised all-to-all of fixed-size items (alltoall.c). `status` is the caller's so far:
 * the ranks agree on it first, and nothing moves unless every rank succeeded. */
int op2_alltoallv(op2_context *ctx, int status, const void *send, const int *send_counts,
                  size_t item_bytes, void **recv, int *recv_counts, long *nrecv);
int op2_group_by_rank(int p, long n, const void *items, const int *dest, size_t item_bytes,
                      void **grouped, int *counts);

/* Global ids and counts travel between ranks as long (MPI_LONG, and 8-byte items of the
 * exchanges): 64 bits on every Linux target this builds for. */
_Static_assert(sizeof(long) == 8, "global ids travel as 64-bit long");

/* Where each global element of a set lives (directory.c). */
typedef struct op2_directory {
  long global, base, first; /* ids [base, base + global); this rank keeps [first, first + count) */
  long count;
  int *where; /* count pairs (rank, local index); -1 when nobody holds the element */
  /* Instead, when every rank holds one run of consecutive global indices in local order (kept
   * declared blocks): run_first[r], run_count[r] of rank r, and queries need no messages. */
  long *run_first, *run_count;
} op2_directory;
int op2_dir_build(op2_context *ctx, long global, int n, const long *globals, op2_directory *dir);
int op2_dir_query(op2_context *ctx, const op2_directory *dir, long n, const long *globals,
                  int *rank_out, int *local_out);
void op2_dir_free(op2_directory *dir);

/* How op_partition gives the primary set its owners (partition.c maps OP2's names onto these). */
typedef enum op2_part_method {
  OP2_PART_BLOCK,     /* the declared blocks */
  OP2_PART_PTSCOTCH,  /* PT-Scotch k-way on the graph of prime_map */
  OP2_PART_GEOMETRIC, /* recursive coordinate bisection of `data`, the coordinates */
  OP2_PART_EXTERNAL,  /* `data`, an int dat of dim 1, holds each element's rank */
} op2_part_method;

typedef struct op2_partition_spec {
  op2_part_method method;
  const char *asked; /* OP2's names as the program gave them ("PARMETIS GEOM"), for the reports */
  op_set prime;      /* the set partitioned; the others follow through the maps */
  op_map prime_map;  /* PTSCOTCH: the graph; otherwise the map whose cut edges are reported */
  op_dat data;       /* GEOMETRIC: coordinates on prime; EXTERNAL: parts on prime */
} op2_partition_spec;

/* op_partition's distribution (distribute.c): op2_mpi_distribute with a partitioner spec. */
int op2_mpi_partition(op2_context *ctx, const op2_partition_spec *spec);

/* op_partition with a graph partitioner: whether the declared blocks (first: p+1 first global
 * indices per set, by set index) already make halos as small as OP2_PARTITION_KEEP asks, so the
 * partitioner is not run (keep_blocks.c). Collective; *keep is the same on every rank. */
int op2_mpi_keep_blocks(op2_context *ctx, const long *first, const char *lib, int *keep);

/* OP2_DIAGS=2: rank 0 says how long the distribution step since *t took; *t becomes now. */
void op2_mpi_step_time(const op2_context *ctx, double *t, const char *step);

/* Global -> local index of the elements a rank holds of a set (global_index.c). A global index
 * listed twice keeps its first local index; find returns -1 for one not held. Global indices are
 * 64-bit (they may pass 2^31); the local ones, a rank's own, are int. */
typedef struct op2_global_index {
  int *dense; /* span entries from global lo, or NULL: then the hash table */
  idx_g_t lo;
  long span;
  struct {
    idx_g_t global;
    int local;
  } * slots;
  size_t mask;
} op2_global_index;
int op2_global_index_build(op2_global_index *ix, const idx_g_t *globals, long n);
int op2_global_index_find(const op2_global_index *ix, idx_g_t g);
void op2_global_index_free(op2_global_index *ix);

/* Element records (records.c). */
size_t op2_record_bytes(const op2_context *ctx, op_set set);
void op2_record_pack(const op2_context *ctx, op_set set, int e, long global, char *rec);
/* dat_data / map_rows are indexed by the context's dat / map index (NULL for other sets);
 * either may be NULL: those rows are not unpacked. A map's rows are op2_map_row_bytes wide. */
void op2_record_unpack(const op2_context *ctx, op_set set, const char *rec, int e, char **dat_data,
                       char **map_rows);
long op2_record_global(const char *rec);
int op2_ship(op2_context *ctx, int status, op_set set, long n, const int *local, const long *global,
             const int *dest, char **recv, int *recv_counts, long *nrecv);

/* This rank's uniform block [first, first+count) of the user's order, for parallel file writes:
 * dat values, or map rows with global target indices. malloc'ed; the caller frees. Collective;
 * distributes the mesh first if no loop has yet. */
#define OP2_HAVE_GATHER_BLOCK 1
int op2_dat_gather_block(op_dat dat, long *first, long *count, void **values);
int op2_map_gather_block(op_map map, long *first, long *count, int **values);

#endif
