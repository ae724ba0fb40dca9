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

/* Block distribution of a global count over the ranks: rank r holds [begin(r), begin(r+1)). */
static inline long op2_block_begin(long global, int rank, int size) {
  return (long)((global * (long long)rank) / size);
}

/* Personalised all-to-all of fixed-size items (alltoall.c). */
int op2_alltoallv(MPI_Comm comm, const void *send, const int *send_counts, size_t item_bytes,
                  void **recv, int *recv_counts, long *nrecv);
int op2_group_by_rank(int p, long n, const void *items, const int *dest, size_t item_bytes,
                      void **grouped, int *counts);

/* Where each global element of a set lives (directory.c). */
typedef struct op2_directory {
  long global, first;
  int count;
  int *where; /* count pairs (rank, local index); -1 when nobody holds the element */
} op2_directory;
int op2_dir_build(const op2_context *ctx, long global, int n, const long *globals,
                  op2_directory *dir);
int op2_dir_query(const op2_context *ctx, const op2_directory *dir, long n, const long *globals,
                  int *rank_out, int *local_out);
void op2_dir_free(op2_directory *dir);

/* Element records (records.c). */
size_t op2_record_bytes(const op2_context *ctx, op_set set);
void op2_record_pack(const op2_context *ctx, op_set set, int e, long global, char *rec);
/* dat_data / map_values are indexed by the context's dat / map index (NULL for other sets). */
void op2_record_unpack(const op2_context *ctx, op_set set, const char *rec, int e, char **dat_data,
                       int **map_values);
long op2_record_global(const char *rec);
int op2_ship(const op2_context *ctx, op_set set, long n, const int *local, const long *global,
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
