/* SPDX-License-Identifier: BSD-3-Clause */
/* What runtime/ calls of the distributed-memory layer (runtime/mpi/), with no MPI types, so
 * that runtime/ files never include runtime/mpi/op2_mpi.h. runtime/mpi/op2_mpi.h includes this
 * file and holds the rest. */
#ifndef OP2_DISTRIBUTED_H
#define OP2_DISTRIBUTED_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/context.h"
#include "runtime/mesh.h"
#include "runtime/loop.h"

/* Starts MPI when the program did not and an MPI launcher started us (mpirun sets variables) or
 * the program uses MPI itself; otherwise a plain ./program run never touches MPI. */
int op2_mpi_init(op2_context *ctx, int *argc, char ***argv, int program_uses_mpi);
void op2_mpi_finalize(op2_context *ctx);

/* OP2_FAULT, a testing aid (runtime/mpi/agree.c): parses "STEP:RANK" (0 when valid; step and
 * rank may be NULL); op2_fault says whether this rank must fail STEP now (once per run), so tests
 * can check that every rank stops, or goes on, instead of waiting. */
int op2_fault_parse(const char *value, char *step, int *rank);
int op2_fault(op2_context *ctx, const char *step);

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
/* The same, agreeing also on the key of loop `loop_name`'s generated code: when every rank
 * succeeded but the keys differ, every rank reports that the ranks generated different code. The
 * message is made only then: this runs on every loop call. */
int op2_mpi_agree_on(op2_context *ctx, int status, const uint64_t key[2], const char *what,
                     const char *loop_name);
/* The same agreement, but a rank that did not fail gets the failed rank's code without a report
 * (its caller says that another rank failed, in its own words). */
int op2_mpi_agree_quiet(op2_context *ctx, int status, const char *what);
/* An agreement that also gives every rank rank 0's *value (a decision all must share), in the
 * same collective: no extra message, and checked against the other ranks' calls. */
int op2_mpi_agree_rank0_int(op2_context *ctx, int *value, const char *what);
void op2_mpi_step(op2_context *ctx, const char *what);
/* A step whose name is made once (a loop's, when the loop is created) and begun on every call
 * with no formatting or hashing: op2_mpi_step_named gives the same name and tag as
 * op2_mpi_step(ctx, "CALL 'NAME'"). */
typedef struct op2_mpi_step_name {
  char text[256]; /* CALL 'NAME', NAME cut at 200 characters; fits op2_mpi's step_name */
  size_t len;
  uint64_t hash;
} op2_mpi_step_name;
void op2_mpi_step_name_make(op2_mpi_step_name *s, const char *call, const char *name);
void op2_mpi_step_named(op2_context *ctx, const op2_mpi_step_name *s);
/* A step of a call already counted among this rank's calls (a lazy chain's loop, run after the
 * ranks agreed on it when it was captured): named and tagged as the call, not counted again, so
 * calls are numbered in messages as when run eagerly. */
void op2_mpi_step_replay(op2_context *ctx, const op2_mpi_step_name *s);
int op2_mpi_step_end(op2_context *ctx, int status);
/* Leaves the step without an agreement: for a step whose ranks have just agreed that all
 * succeeded and that has nothing more to do (a lazy chain's loop captured to run later, in a
 * step of its own). */
void op2_mpi_step_leave(op2_context *ctx);
/* Declarations (op_decl_set, _map, _dat, _const) are collective under MPI, as in OP2: each is one
 * step named "CALL 'NAME'", begun before anything is checked (so the default handler waits for
 * the agreement) and ended with op2_mpi_decl_end(ctx, status), the agreement: when any rank
 * failed, every rank gets an error and the caller undoes what it declared. op_exit begins with
 * an agreement too (op2_mpi_agree_exit), so a rank leaving early is reported on every rank. */
void op2_mpi_decl_begin(op2_context *ctx, const char *call, const char *name);
int op2_mpi_decl_end(op2_context *ctx, int status);
int op2_mpi_agree_exit(op2_context *ctx);
/* A lazy chain's agreement on its exchange plan, after its calls were captured: part of the last
 * captured call, no call of its own. Ranks out of step here are in different calls: this rank is
 * at `next_call` (what comes after its queued calls: the call that ran the chain, e.g. "op_exit",
 * or the reduction ending the chain's part), named and numbered as it would be eagerly, and that
 * call's own agreement then adds no "not run". Silent when the ranks were already out of step
 * (the chain's calls said so). */
int op2_mpi_agree_chain(op2_context *ctx, int status, const char *next_call);

/* One optimised build per machine (node_build.c): op2_mpi_node_init after the JIT starts;
 * op2_mpi_node_kernel for every kernel the JIT creates (in creation order, on every rank);
 * op2_mpi_node_progress between loop calls (swaps in finished builds, the builder's or this
 * process's own); op2_mpi_node_finish at exit. */
void op2_mpi_node_init(op2_context *ctx);
int op2_mpi_node_kernel(op2_context *ctx, op2_kernel *k);
int op2_mpi_node_progress(op2_context *ctx);
void op2_mpi_node_finish(op2_context *ctx);
/* One build per machine of what every rank of the node needs (a backend's kernel module):
 * `build(ctx, arg)` runs on the node's first rank, which stores its result in the shared disk
 * cache; the node's other ranks wait for its outcome (told whether it built or not, so a failed
 * build never leaves them waiting) and then run `build` themselves, which finds the stored
 * result, or, after a failure, builds and so reports the same error. Every rank of the node calls
 * this for every build, in the same order. Returns build's status (or a failure to tell it). */
typedef int (*op2_node_build_fn)(op2_context *ctx, void *arg);
int op2_mpi_node_build(op2_context *ctx, op2_node_build_fn build, void *arg);

/* Data out (gather.c): values of global indices [first, first+count) into out, from their
 * owners. OP2_FETCH_DECLARED: this rank's declared block; OP2_FETCH_BLOCK: its uniform block;
 * OP2_FETCH_ALL: any range, on every rank. Collective. */
enum { OP2_FETCH_DECLARED, OP2_FETCH_BLOCK, OP2_FETCH_ALL };
int op2_mpi_fetch(op2_context *ctx, op_dat dat, void *out, long first, long count, int mode);

/* A hash of map's values in the user's numbering, the same on every rank and for every
 * distribution of one mesh over one rank count (fingerprint.c). Collective. */
int op2_mpi_map_fingerprint(op2_context *ctx, op_map map, uint64_t *out);

/* Distribution and halos (distribute.c, halo_build.c). */
int op2_mpi_prepare(op2_context *ctx);
int op2_mpi_distribute(op2_context *ctx, const char *lib, op_set prime, op_map prime_map);
/* Each rank's owned elements renumbered for locality (op_renumber, OP2_RENUMBER), between the
 * migration and the halo build (renumber_owned.c). Collective. */
int op2_mpi_renumber_owned(op2_context *ctx);
void op2_halo_free(op2_halo *h);
/* Whether a set's halo lists agree with its sizes (halo_build.c): imports fill the exec and
 * non-exec halo regions, neighbours ascending and other than this rank `me`, exported elements
 * owned (exec exports not core). false with the first disagreement in `why`. The sanitizer
 * build checks every halo it builds (OP2_ASSERT). */
bool op2_halo_valid(const struct op2_set *set, int me, int nranks, char *why, size_t len);

/* Where a set's global element ids start under MPI: 0, or OP2_TEST_ID_BASE (a testing aid that
 * pushes ids past 2^31 on a small mesh). Global id = base + the user's index; int map values keep
 * the user's index, 64-bit ones (gvalues) the global id, until the halo build makes them local
 * (op2_map_gid gives a value's global id either way). */
static inline idx_g_t op2_gid_base(const op2_context *ctx) {
  return ctx->mpi.size > 1 ? ctx->opt.test_id_base : 0;
}
static inline idx_g_t op2_map_gid(const op2_context *ctx, op_map m, size_t k) {
  return m->gvalues ? m->gvalues[k] : op2_gid_base(ctx) + m->values[k];
}

/* Block distribution of a global count over the ranks: rank r holds [begin(r), begin(r+1)). */
static inline long op2_block_begin(long global, int rank, int size) {
  return (long)((global * (long long)rank) / size);
}

/* Reductions over ranks (reduce.c). Collective, and raw: agree on success first (every rank must
 * come). op2_mpi_reduce_max_sum: the largest and the sum (unless `sum` is NULL) of n values, on
 * rank 0. op2_mpi_gather_doubles: every rank's n values, in rank order, on rank 0 (`all` holds
 * size * n there). With one process both copy. op2_mpi_block_of: the sum of `local` over ranks,
 * and this rank's first index when each rank holds `local` elements in rank order. */
int op2_mpi_reduce_max_sum(op2_context *ctx, const double *mine, double *max, double *sum, int n);
int op2_mpi_gather_doubles(op2_context *ctx, const double *mine, int n, double *all);
int op2_mpi_block_of(op2_context *ctx, long local, long *global, long *first);
/* A loop's reduction argument: this rank's partial `mine` reduced over ranks into `all` (as
 * large) and folded into the caller's data. */
int op2_mpi_reduce_arg(op2_context *ctx, const op2_arg_desc *d, void *caller, const void *mine,
                       void *all);
/* An op_arg_info argument: the value (from `mine`) of the lowest rank whose partial of its
 * reference (ref_mine) is the reference's result (ref_result, reduced already), into caller. */
int op2_mpi_reduce_info(op2_context *ctx, const op2_arg_desc *d, void *caller, void *mine,
                        const op2_arg_desc *ref, const void *ref_mine, const void *ref_result);

/* The rank agreement of a loop call (ranks.c): every rank has the loop (status) and the same
 * loop (its rank_key: generated source, set, dats and maps), before any data moves. */
int op2_mpi_agree_loop(op2_context *ctx, int status, const op2_loop *loop, const char *name);

/* Halo exchange of dirty dats (exchange.c): begin posts the messages of dats[0..ndats), end
 * (with the same dats) waits for them. Each dat keeps its message buffers between exchanges;
 * op2_exchange_release frees them (before the backend that allocated them finalises). */
int op2_exchange_begin(op2_context *ctx, const char *loop, op_dat *dats, int ndats, double *bytes,
                       long *messages);
int op2_exchange_end(op2_context *ctx, const char *loop, op_dat *dats, int ndats);
void op2_exchange_release(op2_context *ctx, op_dat dat);
/* A lazy chain's grouped exchange (exchange.c, planned by runtime/chain_mpi.c): the halos of
 * dats[0..ndats) (host data) in one message per neighbour, each dat's rows in turn. *group keeps
 * the buffers from one exchange to the next (created on first use, freed by
 * op2_exchange_group_free); end waits for the messages, unpacks them and marks the dats clean. */
typedef struct op2_exchange_group op2_exchange_group;
int op2_exchange_group_begin(op2_context *ctx, const char *loop, op2_exchange_group **group,
                             op_dat *dats, int ndats, double *bytes, long *messages);
int op2_exchange_group_end(op2_context *ctx, const char *loop, op2_exchange_group *group);
void op2_exchange_group_free(op2_context *ctx, op2_exchange_group *group);

#endif /* OP2_DISTRIBUTED_H */
