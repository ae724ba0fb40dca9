/* Distributed memory: what the runtime needs to know about MPI. One communicator per context;
 * a run with one rank (or not started by an MPI launcher) has size 1 and never communicates. */
#ifndef OP2_MPI_H
#define OP2_MPI_H

#include "../op2_impl.h"

/* Starts MPI when the program did not and an MPI launcher started us (mpirun sets variables) or
 * the program uses MPI itself; otherwise a plain ./program run never touches MPI. */
int op2_mpi_init(op2_context *ctx, int *argc, char ***argv, int program_uses_mpi);
void op2_mpi_finalize(op2_context *ctx);

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

/* Agreement on success (agree.c). op2_mpi_agree(ctx, status, what) is collective and every rank
 * must reach it whatever happened on it: it returns OP2_OK when every rank succeeded; otherwise a
 * rank that did not fail reports "rank R failed in WHAT: <R's message>" and every rank returns an
 * error. Code between two collectives therefore never returns early on a local failure: it
 * carries the status to the next collective, which agrees first (op2_alltoallv does).
 * A rank that fails may also return early, provided every raw collective is preceded by an
 * agreement (op2_alltoallv and op2_allgatherv agree first): it meets the others at their next
 * agreement. A public call's collective work is one step, named in messages: op2_mpi_step(ctx,
 * what) ... op2_mpi_step_end(ctx, status), which is an agreement.
 * Inside a step the default error handler prints at once and defers its exit to the end of the
 * outermost step, so every rank says why before it stops. */
int op2_mpi_agree(op2_context *ctx, int status, const char *what);
/* The same, agreeing also on a key: when every rank succeeded but the keys differ, every rank
 * reports `mismatch` and returns an error. */
int op2_mpi_agree_on(op2_context *ctx, int status, const uint64_t key[2], const char *what,
                     const char *mismatch);
void op2_mpi_step(op2_context *ctx, const char *what);
int op2_mpi_step_end(op2_context *ctx, int status);

/* One optimised build per machine (node_build.c): op2_mpi_node_init after the JIT starts;
 * op2_mpi_node_kernel for every kernel the JIT creates (in creation order, on every rank);
 * op2_mpi_node_progress between loop calls (swaps in finished builds, the builder's or this
 * process's own); op2_mpi_node_finish at exit. */
void op2_mpi_node_init(op2_context *ctx);
int op2_mpi_node_kernel(op2_context *ctx, op2_kernel *k);
int op2_mpi_node_progress(op2_context *ctx);
void op2_mpi_node_finish(op2_context *ctx);

/* The rank agreement of a loop call (ranks.c): every rank has the loop (status) and the same
 * loop (its rank_key: generated source, set, dats and maps), before any data moves. */
int op2_mpi_agree_loop(op2_context *ctx, int status, const op2_loop *loop, const char *name);

/* Block distribution of a global count over the ranks: rank r holds [begin(r), begin(r+1)). */
static inline long op2_block_begin(long global, int rank, int size) {
  return (long)((global * (long long)rank) / size);
}

/* Personalised all-to-all of fixed-size items (alltoall.c). `status` is the caller's so far:
 * the ranks agree on it first, and nothing moves unless every rank succeeded. */
int op2_alltoallv(op2_context *ctx, int status, const void *send, const int *send_counts,
                  size_t item_bytes, void **recv, int *recv_counts, long *nrecv);
int op2_group_by_rank(int p, long n, const void *items, const int *dest, size_t item_bytes,
                      void **grouped, int *counts);

/* Where each global element of a set lives (directory.c). */
typedef struct op2_directory {
  long global, first;
  int count;
  int *where; /* count pairs (rank, local index); -1 when nobody holds the element */
} op2_directory;
int op2_dir_build(op2_context *ctx, long global, int n, const long *globals, op2_directory *dir);
int op2_dir_query(op2_context *ctx, const op2_directory *dir, long n, const long *globals,
                  int *rank_out, int *local_out);
void op2_dir_free(op2_directory *dir);

/* Element records (records.c). */
size_t op2_record_bytes(const op2_context *ctx, op_set set);
void op2_record_pack(const op2_context *ctx, op_set set, int e, long global, char *rec);
/* dat_data / map_values are indexed by the context's dat / map index (NULL for other sets). */
void op2_record_unpack(const op2_context *ctx, op_set set, const char *rec, int e, char **dat_data,
                       int **map_values);
long op2_record_global(const char *rec);
int op2_ship(op2_context *ctx, int status, op_set set, long n, const int *local, const long *global,
             const int *dest, char **recv, int *recv_counts, long *nrecv);

/* Distribution and halos (distribute.c, halo_build.c). */
int op2_mpi_prepare(op2_context *ctx);
int op2_mpi_distribute(op2_context *ctx, const char *lib, op_set prime, op_map prime_map);
void op2_halo_free(op2_halo *h);

/* Halo exchange of dirty dats (exchange.c). */
typedef struct op2_exchange op2_exchange;
int op2_exchange_begin(op2_context *ctx, const char *loop, op_dat *dats, int ndats,
                       op2_exchange **out, double *bytes, long *messages);
int op2_exchange_end(op2_context *ctx, op2_exchange *x);

/* Data out (gather.c): values of global indices [first, first+count) into out, from their
 * owners. OP2_FETCH_DECLARED: this rank's declared block; OP2_FETCH_BLOCK: its uniform block;
 * OP2_FETCH_ALL: any range, on every rank. Collective. */
enum { OP2_FETCH_DECLARED, OP2_FETCH_BLOCK, OP2_FETCH_ALL };
int op2_mpi_fetch(op2_context *ctx, op_dat dat, void *out, long first, long count, int mode);

/* This rank's uniform block [first, first+count) of the user's order, for parallel file writes:
 * dat values, or map rows with global target indices. malloc'ed; the caller frees. Collective;
 * distributes the mesh first if no loop has yet. */
#define OP2_HAVE_GATHER_BLOCK 1
int op2_dat_gather_block(op_dat dat, long *first, long *count, void **values);
int op2_map_gather_block(op_map map, long *first, long *count, int **values);

#endif
