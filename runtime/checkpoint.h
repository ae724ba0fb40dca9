/* SPDX-License-Identifier: BSD-3-Clause */
/* Checkpoint and restart (checkpoint*.c, hdf5/hdf5_checkpoint.c). A run logs every loop call
 * (name and argument shape) and the values its global reductions returned, since those are the
 * only data that flow from the library back to the program. A checkpoint holds every dat and
 * constant in OP2's HDF5 layout plus that log. A restarted run replays the program: loop calls
 * before the checkpoint do not execute, reductions return their logged values, and at the
 * checkpoint's position the dats and constants are restored and the run goes on normally. */
#ifndef OP2_CHECKPOINT_H
#define OP2_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/context.h"
#include "runtime/mesh.h"
#include "runtime/backend.h"
#include "runtime/loop_call.h"

/* ---- the log of loop calls (checkpoint_log.c) ---- */
typedef struct op2_ckpt_log {
  long count, capacity; /* loop calls recorded */
  uint64_t *hash;       /* per call: loop name, set and argument shape */
  int *name_id;         /* per call: index into names */
  size_t *red_end;      /* per call: end of its reduction values in red */
  char *red;            /* every reduction result, call after call, argument after argument */
  size_t red_len, red_cap;
  char **names; /* distinct loop names */
  int nnames;
} op2_ckpt_log;

/* The identity of a loop call: name, set, and each argument's kind, dat, map, index, dim, type
 * and access (never data pointers). */
uint64_t op2_ckpt_loop_hash(const char *name, op_set set, int nargs, const op_arg *args);
/* Records a finished call and the values its reductions hold now. */
int op2_ckpt_log_append(op2_ckpt_log *log, const char *name, uint64_t hash, int nargs,
                        const op_arg *args);
/* Call `pos` of a restarted run: it must be the logged call (same name and hash; the error names
 * both and the checkpoint `file`); its reductions receive the logged values. */
int op2_ckpt_log_replay(const op2_ckpt_log *log, long pos, const char *file, const char *name,
                        uint64_t hash, int nargs, const op_arg *args);
void op2_ckpt_log_free(op2_ckpt_log *log);

/* What a checkpoint says about the run that wrote it, beside the log. */
typedef struct op2_ckpt_meta {
  long ranks;    /* MPI ranks that wrote it */
  long position; /* loop calls before it */
  long number;   /* checkpoints the run had written, this one included */
  char *mesh;    /* op2_ckpt_mesh_summary when it was written; NULL in an older checkpoint */
} op2_ckpt_meta;

/* The log and meta as one byte string (stored in the checkpoint's "op2_checkpoint" dataset) and
 * back. Parsing checks every length; a malformed string is an error naming `file`. */
int op2_ckpt_log_serialise(const op2_ckpt_log *log, const op2_ckpt_meta *meta, char **out,
                           size_t *len);
int op2_ckpt_log_parse(const char *bytes, size_t len, const char *file, op2_ckpt_log *log,
                       op2_ckpt_meta *meta);

/* ---- the mesh it belongs to (checkpoint_mesh.c) ---- */
/* Every set, map (its values hashed in the user's numbering) and dat declared now, as text
 * (malloc'ed; NULL when out of memory, reported). */
char *op2_ckpt_mesh_summary(op2_context *ctx);
/* The mesh a checkpoint was written for against this run's: an error naming `file` and the
 * first set, map or dat that differs. */
int op2_ckpt_mesh_check(const char *file, const char *saved, const char *now);
/* Before the host reads a dat (fetch, print, dump): refused while a restart has not reached its
 * checkpoint yet, whose data is not restored (a run stopping short of it, or another program). */
int op2_checkpoint_before_read(op2_context *ctx, op_dat dat);

/* ---- durable files (checkpoint_file.c) ---- */
/* Checkpoints start with a user block of this many bytes that HDF5 skips: a header with the
 * file's length and the xxHash of everything after the block. */
enum { OP2_CKPT_HEADER_BYTES = 512 };
/* Rank 0: writes the header block and then `image` (the HDF5 file built in memory with a user
 * block of OP2_CKPT_HEADER_BYTES, which HDF5 leaves out of its image) through `out`
 * (op2_output_open_regular of `file`: a temporary file beside the target), flushes it to disk,
 * renames it over the target and flushes the directory; removes dead runs' temporary files
 * there. An error names `file`. */
struct op2_output;
int op2_ckpt_write(const char *file, struct op2_output *out, const char *image, size_t len);
/* Reads `file` whole and checks its header, length and checksum; a file that fails any check is
 * an error naming it. *exists is 0 (and OP2_OK returned) when there is no file at all. */
int op2_ckpt_load_verified(const char *file, char **image, size_t *len, int *exists);
/* The cheap part of that check (header and length, not the checksum), for OP2_RESTART at
 * op_init: OP2_OK, or a code with the problem in *why. */
int op2_ckpt_header_check(const char *file, op2_jit_error *why);

/* ---- contents in HDF5 (hdf5/hdf5_checkpoint.c); collective under MPI ---- */
/* Writes every set, map, dat and constant in OP2's layout plus `blob` (dataset "op2_checkpoint"):
 * rank 0 builds the file in memory from the gathered rows, seals it and writes it whole over the
 * file `file`'s links lead to (op2_ckpt_write; a device or FIFO is refused). */
int op2_h5_checkpoint_save(const char *file, const char *blob, size_t blob_len);
/* Every rank reads and verifies `file` and takes its log blob; *exists 0: there is none. */
int op2_h5_checkpoint_load(const char *file, char **image, size_t *len, char **blob,
                           size_t *blob_len, int *exists);
/* Distributes the mesh if no loop has yet, then gives every dat (owned and halo elements) and
 * every declared constant its value in the verified image of `file`. */
int op2_h5_checkpoint_restore(const char *file, const char *image, size_t len);
/* MPI ranks taking part (1 without MPI), and rank 0's value of *v on every rank. */
int op2_h5_checkpoint_ranks(void);
void op2_h5_checkpoint_bcast_int(int *v);

/* ---- the run's checkpointing state (checkpoint.c) ---- */
typedef enum { OP2_CKPT_MANUAL, OP2_CKPT_TIME } op2_ckpt_policy;

typedef struct op2_checkpoint {
  char *file; /* where checkpoints go; NULL when only restarting (OP2_RESTART) */
  op2_ckpt_policy policy;
  double interval, last; /* OP2_CKPT_TIME: seconds, and when the last one was taken */
  long position;         /* loop calls so far */
  long written;          /* checkpoints taken, counting those of the runs restarted from */
  op2_ckpt_log log;      /* every call so far */
  /* Restarting: calls before restore_at replay `saved`; at restore_at the image is loaded. */
  bool restart_read; /* OP2_RESTART has been looked at */
  bool restoring;
  long restore_at;
  char *restore_file;
  char *image;
  size_t image_len;
  op2_ckpt_log saved;
  char *saved_mesh; /* the mesh the checkpoint restored from was written for (NULL: not told) */
} op2_checkpoint;

/* par_loop.c: before a loop call (*skip = 1: do not run it, its reductions hold their logged
 * values) and after a call that ran. Cheap when checkpointing is off. */
int op2_checkpoint_before_loop(op2_context *ctx, const op2_loop_call *call, int *skip);
int op2_checkpoint_after_loop(op2_context *ctx, const op2_loop_call *call);
void op2_checkpoint_free(op2_context *ctx); /* op_exit */

#endif
