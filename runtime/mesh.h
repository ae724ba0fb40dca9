/* SPDX-License-Identifier: BSD-3-Clause */
/* The mesh as the library owns it: sets (with their halo lists under MPI), maps, dats, and the
 * names and constants a program declares. Users see only op2.h's read-only views (op_*_core);
 * what jit/ shares with runtime/ (types, constants) is in base/base.h. */
#ifndef OP2_RUNTIME_MESH_H
#define OP2_RUNTIME_MESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op2.h"
#include "base/base.h"

typedef struct op2_context op2_context;

/* ---- types (types.c) ---- */
int op2_type_parse(const char *name, op2_type *out); /* OP2_OK or OP2_ERR_ARG, no message */

/* ---- mesh objects ---- */
/* Halo lists of one set (OP2's design). Exports name owned elements, by local index, that a
 * neighbour needs; imports are contiguous ranges of the halo region, neighbour by neighbour. */
typedef struct op2_halo_list {
  int nranks;
  int *ranks;    /* neighbour ranks, ascending */
  int *offset;   /* nranks+1: exports: into elements; imports: relative to the region start */
  int *elements; /* exports only: local indices */
} op2_halo_list;

typedef struct op2_halo {
  op2_halo_list exp_exec, imp_exec, exp_nonexec, imp_nonexec;
  /* Every exported row in the order messages carry them (neighbour by neighbour, its exec rows
   * then its non-exec rows): built at the first exchange, so accelerators pack with one gather. */
  int *send_rows;
  int nsend_rows;
} op2_halo;

/* Each object begins with what a program may read of it (op2.h's op_*_core, const there): the
 * same bytes under the library's writable names, through an anonymous union. */
struct op2_set {
  union {
    op_set_core core; /* the program's view */
    struct {
      int index; /* position in the context's set list */
      int size;  /* elements this rank owns (all of them without MPI) */
      char *name;
      int core_size;    /* owned elements [0, core_size) reach no halo element through any map */
      int exec_size;    /* import exec halo [size, size + exec_size): run by indirect-write loops */
      int nonexec_size; /* import non-exec halo, read only */
    };
  };
  /* element -> the user's (global) index of it; NULL while in the user's order. 64 bits: under MPI
   * a global index may pass 2^31 while every rank's own sizes stay int. */
  idx_g_t *orig;
  int *orig_int; /* orig as ints, for op_arg_idx's kernels (op2_set_idx_table); NULL until then */
  int *rank;     /* the inverse of orig (single process only) */
  /* Distributed memory. Local element order: [core | owned non-core | import exec halo | import
   * non-exec halo]; without MPI core_size == size and the halos are empty. */
  long global_size;
  long decl_first; /* the block this rank declared: first global index and count */
  int decl_count;
  long *decl_firsts; /* every rank's decl_first, then global_size (MPI, once distributed) */
  op2_halo *halo;    /* NULL without MPI */
  /* Parallel input's bounds, for OP2_DIAGS=2 and the tests: the most rows of one of the set's
   * datasets this rank read from a file, and the most of the set's element rows it held in one
   * array while declaring and distributing (declared, leaving, received, owned, with halos). A
   * rank that read or assembled a whole set would show it here. */
  long rows_read_most, rows_held_most;
};

static inline void op2_set_held_rows(struct op2_set *set, long rows) {
  if (rows > set->rows_held_most) set->rows_held_most = rows;
}

struct op2_map {
  union {
    op_map_core core;
    struct {
      int index;
      op_set from, to;
      int dim;
      int *values; /* from->size * dim, element-major */
      char *name;
    };
  };
  /* Under MPI, a map declared with 64-bit values (op_decl_map_long, an HDF5 map of 64-bit
   * integers) keeps them here as global ids, values NULL, from its declaration until the halo
   * build makes them local ints: a set a map reaches may have 2^31 elements or more in all.
   * NULL otherwise (int maps keep the user's index in values until then). */
  idx_g_t *gvalues;
  /* The program may write `values`, or point them at an array of its own (map_values.c): the
   * hash of the values last checked (`seal`, when `sealed`) and the array they were in
   * (`sealed_values`: `values` pointing elsewhere is an array the program gave since), and
   * whether anything was built from them since (plans, halos, renumbering, device copies,
   * loops), after which a change is an error. `values` is freed with the map whichever array it
   * is, as OP2 frees map->map at op_exit. */
  uint64_t seal;
  int *sealed_values;
  bool sealed, built;
};

/* A map's rows while they move between ranks: the array (gvalues or values) and a row's bytes. */
static inline char **op2_map_rows(struct op2_map *m) {
  return m->gvalues ? (char **)&m->gvalues : (char **)&m->values;
}
static inline size_t op2_map_row_bytes(const struct op2_map *m) {
  return (m->gvalues ? sizeof(idx_g_t) : sizeof(int)) * (size_t)m->dim;
}

struct op2_dat {
  union {
    op_dat_core core;
    struct {
      int index;
      op_set set;
      int dim;
      int elem_size;    /* elem_bytes for the program (OP2's dat->size) */
      char *data;       /* (size + exec + non-exec halo) * elem_bytes, 64-byte aligned */
      char *type_name;  /* the type as declared, ":soa" included (written to HDF5 files) */
      const char *name; /* the declared name, or the one the program has pointed it at since */
    };
  };
  char *decl_name; /* the library's copy of the declared name, freed with the dat */
  op2_type type;
  size_t elem_bytes; /* dim * type size */
  bool halo_dirty;   /* written since its halo copies were last refreshed */
  void *device;      /* accelerator backends: their copy of the data (NULL until first use) */
  bool device_newer; /* the device copy has changes the host copy lacks */
  bool temp;         /* declared by op_decl_dat_temp: op_free_dat_temp may release it */
  /* MPI: its halo message buffers and requests, kept from one exchange to the next
   * (runtime/mpi/exchange.c; NULL until its first exchange) */
  struct op2_halo_buffers *halo_buffers;
};

/* ---- a map's values as the program may write them (map_values.c) ---- */
/* Records the values as they are now (after a declaration, or the library's own rewrite). */
void op2_map_seal(op_map m);
void op2_maps_seal_all(op2_context *ctx);
/* Before `use` builds anything from the values (`build`: plans, halos, renumbering, copies;
 * false: only reads them, as an output does): values the program changed are range-checked and
 * taken, unless something was built from the earlier ones (an error naming `use` and the map). */
int op2_map_check(op_map m, const char *use, bool build);
int op2_maps_check_all(op2_context *ctx, const char *use, bool build);
/* The maps of a loop's arguments, each once (`unbuilt_only`: those nothing was built from yet,
 * which costs a flag per argument for the others: a queued call takes its maps as they are). */
int op2_loop_maps_check(int nargs, const op_arg *args, const char *use, bool unbuilt_only);
/* op_exit: a warning for each map changed after something was built from it. */
void op2_maps_check_at_exit(op2_context *ctx);

/* op_decl_map_long for the user's indices (0-based, or 1-based with OP_MAPS_BASE_INDEX=1) rather
 * than global ids: an HDF5 map of 64-bit integers (map.c). */
op_map op2_decl_map_indices(op_set from, op_set to, int dim, const idx_g_t *data, const char *name);

/* op_decl_dat, and op_decl_dat_temp (`temp`: zeros, allowed after the mesh was distributed). */
op_dat op2_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name,
                    bool temp);

/* The program's view and the library's names must be the same bytes. */
#define OP2_SAME_FIELD(type, pub, priv)                                                        \
  _Static_assert(offsetof(struct type, core.pub) == offsetof(struct type, priv) &&             \
                     sizeof(((struct type *)0)->core.pub) == sizeof(((struct type *)0)->priv), \
                 #type "." #priv " is not the public " #pub)
OP2_SAME_FIELD(op2_set, index, index);
OP2_SAME_FIELD(op2_set, size, size);
OP2_SAME_FIELD(op2_set, name, name);
OP2_SAME_FIELD(op2_set, core_size, core_size);
OP2_SAME_FIELD(op2_set, exec_size, exec_size);
OP2_SAME_FIELD(op2_set, nonexec_size, nonexec_size);
OP2_SAME_FIELD(op2_map, index, index);
OP2_SAME_FIELD(op2_map, from, from);
OP2_SAME_FIELD(op2_map, to, to);
OP2_SAME_FIELD(op2_map, dim, dim);
OP2_SAME_FIELD(op2_map, map, values);
OP2_SAME_FIELD(op2_map, name, name);
OP2_SAME_FIELD(op2_dat, index, index);
OP2_SAME_FIELD(op2_dat, set, set);
OP2_SAME_FIELD(op2_dat, dim, dim);
OP2_SAME_FIELD(op2_dat, size, elem_size);
OP2_SAME_FIELD(op2_dat, data, data);
OP2_SAME_FIELD(op2_dat, type, type_name);
OP2_SAME_FIELD(op2_dat, name, name);

/* A constant is baked into kernels as a literal while it has taken at most OP2_CONST_BAKED_VALUES
 * distinct values (going back to one reuses its kernel); the next new value makes kernels (C and
 * CUDA) read it at run time, so a loop compiles at most OP2_CONST_BAKED_VALUES + 1 kernels per
 * constant whatever the number of values. */
#define OP2_CONST_BAKED_VALUES 2
op2_const *op2_const_find(const char *name); /* const.c */

/* Names of declarations (util.c). */
int op2_is_identifier(const char *s);
int op2_is_reserved_name(const char *s);

/* The set's original indices as ints, for op_arg_idx (OP2's kernels take int): NULL when the set
 * is in the user's order (the identity) or, after the error naming `loop`, when an index passes
 * INT_MAX (a global index past 2^31 under MPI); *failed tells the two apart (set.c). */
const int *op2_set_idx_table(op_set set, const char *loop, int *failed);

/* Every element this rank holds: owned, exec halo and non-exec halo. */
static inline size_t op2_set_local_count(op_set s) {
  return (size_t)s->size + (size_t)s->exec_size + (size_t)s->nonexec_size;
}

/* op_renumber / OP2_RENUMBER (renumber.c): reverse Cuthill-McKee locality ordering, or with
 * OP2_RENUMBER=blocks the partition-based one (renumber_blocks.c); OP2_RENUMBER=auto decides
 * first whether to (renumber_auto.c). */
int op2_renumber(op2_context *ctx, op_map base);
/* The ordering OP2_RENUMBER selects, in words for messages. */
const char *op2_renumber_method(const op2_context *ctx);
/* The same on the elements this process holds, under MPI after migration (renumber_owned.c):
 * targets[i] gives map i's targets as local indices (-1: owned elsewhere); map values (global
 * ids) stay, dats, map rows and orig follow the new order. */
int op2_renumber_local(op2_context *ctx, op_map base, int *const *targets);
op_map op2_renumber_pick_base(op2_context *ctx);

#endif /* OP2_RUNTIME_MESH_H */
