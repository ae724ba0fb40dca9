/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op2.h
 * @brief op2jit public API: OP2's unstructured-mesh model with kernels compiled at run time.
 *
 * A program declares sets, maps between sets and data on sets, then applies kernels given as C
 * source strings with op_par_loop(). Handles are opaque; the library keeps its own copies of all
 * map and dat arrays. Names and argument order follow OP2 so OP2 programs port easily.
 */
#ifndef OP2_H
#define OP2_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Handles. What a program may read of a set, map or dat is the public prefix below, with OP2's
 * field names (`set->size`, `dat->name`, `dat->dim`, `map->to`...). A program writes two of them,
 * as OP2 programs do: `dat->name` (a dat renamed before it is written to a file) and `map->map`
 * (a map reordered before the loops use it, in place or into a new array); every other field is
 * const.
 * The rest of the object is the library's. The library's own files see the same objects through
 * their private structs, which begin with these fields (OP2_INTERNAL_HANDLES, defined only when
 * the library is built).
 */
#ifdef OP2_INTERNAL_HANDLES
typedef struct op2_set *op_set;
typedef struct op2_map *op_map;
typedef struct op2_dat *op_dat;
#else
/** @brief A set of mesh elements (nodes, edges, cells, ...). */
typedef struct op_set_core *op_set;
/** @brief A fixed-arity mapping from each element of one set to elements of another. */
typedef struct op_map_core *op_map;
/** @brief Data attached to every element of a set: `dim` values of one type per element. */
typedef struct op_dat_core *op_dat;
#endif

/** @brief What a program may read of a set. Under MPI the sizes are this rank's: `size` owned
 * elements, of which `core_size` reach no halo element, then `exec_size` and `nonexec_size`
 * halo elements. */
typedef struct op_set_core {
  const int index; /* declaration order */
  const int size;
  const char *const name;
  const int core_size;
  const int exec_size;
  const int nonexec_size;
} op_set_core;

/** @brief What a program may read of a map: `map` holds `from->size * dim` local indices of `to`
 * (element-major), in the library's local order (which differs from the declared order under
 * MPI or after op_renumber). A program may write the values, or point `map` at a malloc'd array
 * of its own holding as many, before the map's first use (the first loop that names it,
 * op_partition, op_renumber, or the first loop when the mesh is distributed or renumbered then):
 * they are checked then and everything built afterwards (plans, halos, device copies) follows
 * them. As in OP2, the array `map` points at is the library's: op_exit frees it, and the one a
 * program replaced is the program's to free (free() will do). A change after the first use is an
 * error at the next loop or plan the library builds from the map, and a warning at op_exit
 * (docs/API.md, Handles). */
typedef struct op_map_core {
  const int index;
  const op_set from;
  const op_set to;
  const int dim;
  int *map;
  const char *const name;
} op_map_core;

/** @brief What a program may read of a dat: `size` is the bytes of one element (dim values),
 * `type` the type as declared ("double", "double:soa"...), `data` the host copy in local order
 * (current after op_fetch_data, or any loop on a CPU backend). `name` may be pointed at another
 * string, which must stay valid while it is there: the next output (HDF5 datasets, prints,
 * messages) uses the name it points to then; the library never frees it. */
typedef struct op_dat_core {
  const int index;
  const op_set set;
  const int dim;
  const int size;
  char *const data;
  const char *const type;
  const char *name;
} op_dat_core;

/** @brief How a loop argument is accessed by the kernel. */
typedef enum { OP_READ, OP_WRITE, OP_RW, OP_INC, OP_MIN, OP_MAX } op_access;

/** @brief The identity map: pass as `map` (with idx -1) for directly accessed dats. */
#define OP_ID ((op_map)0)

/**
 * @brief One argument of op_par_loop. Built by op_arg_dat(), op_opt_arg_dat(), op_arg_gbl(),
 * op_arg_idx(); its fields are private to the library and may change.
 */
typedef struct op_arg {
  int kind;         /* private: dat, gbl or idx */
  int opt;          /* private: 0 when an optional argument is switched off */
  op_dat dat;       /* private */
  op_map map;       /* private */
  int idx;          /* private */
  int dim;          /* private */
  const char *type; /* private */
  op_access acc;    /* private */
  void *data;       /* private: global argument data */
  unsigned tag;     /* private: set by the op_arg_* calls, so other bytes are refused */
} op_arg;

/**
 * @brief Starts the library. Reads options from the environment (OP2_BACKEND, OP2_CACHE_DIR,
 * OP2_CACHE, OP2_PART_SIZE, OP2_DIAGS, ...) and from `argv` entries of the form `OP2_NAME=value`.
 * @param diags diagnostics level; OP2_DIAGS overrides it when set.
 */
void op_init(int argc, char **argv, int diags);
/**
 * @brief op_init, saying whether the program calls MPI itself. When it does (non-zero) and no
 * MPI launcher started it, MPI is initialised anyway, so the program runs as one process of
 * MPI_COMM_WORLD with or without mpirun; with 0 a program run without a launcher never touches
 * MPI. The op_init() macro below passes 1 when <mpi.h> was included before the call.
 */
void op_init_mpi(int argc, char **argv, int diags, int program_uses_mpi);

/* op_init(argc, argv, diags): MPI_VERSION, defined by every <mpi.h>, is looked up where op_init is
 * called, so including <mpi.h> anywhere before that call is what counts. */
#define OP2_MPI_SEEN_(version) OP2_MPI_SEEN_##version
#define OP2_MPI_SEEN(version) OP2_MPI_SEEN_(version)
#define OP2_MPI_SEEN_MPI_VERSION 0 /* MPI_VERSION was not defined: no <mpi.h> */
#define OP2_MPI_SEEN_1 1
#define OP2_MPI_SEEN_2 1
#define OP2_MPI_SEEN_3 1
#define OP2_MPI_SEEN_4 1
#define OP2_MPI_SEEN_5 1
#define op_init(argc, argv, diags) op_init_mpi((argc), (argv), (diags), OP2_MPI_SEEN(MPI_VERSION))
/** @brief Releases everything the library holds. Handles become invalid. */
void op_exit(void);

/** @brief Declares a set of `size` elements. */
op_set op_decl_set(int size, const char *name);
/**
 * @brief Declares a map from every element of `from` to `dim` elements of `to`.
 * @param data `from->size * dim` indices, element-major; copied. Every value is range-checked.
 */
op_map op_decl_map(op_set from, op_set to, int dim, const int *data, const char *name);
/**
 * @brief Declares data on a set: `dim` values of `type` ("double", "float", "int", "long long")
 * per element, element-major. `data` is copied; NULL gives zeros.
 */
op_dat op_decl_dat(op_set set, int dim, const char *type, const void *data, const char *name);
/**
 * @brief Declares (or updates) a global constant that kernels may read by `name`. Its value is
 * compiled into every kernel that uses it, so changing it recompiles those kernels.
 */
void op_decl_const(int dim, const char *type, const void *data, const char *name);
/**
 * @brief OP2's three-argument form, op_decl_const(dim, type, &var) (or `var` for an array): the
 * constant is named after the variable, as OP2's translator names it. The op_decl_const() macro
 * below calls this for three arguments, with the argument's spelling.
 */
void op_decl_const_spelled(int dim, const char *type, const void *data, const char *spelling);
#define OP2_DECL_CONST_PICK(a, b, c, d, which, ...) which
#define OP2_DECL_CONST3(dim, type, var) op_decl_const_spelled((dim), (type), (var), #var)
/** @brief op_decl_const(dim, type, data, "name") or op_decl_const(dim, type, &var). */
#define op_decl_const(...) \
  OP2_DECL_CONST_PICK(__VA_ARGS__, op_decl_const, OP2_DECL_CONST3, ~, ~)(__VA_ARGS__)

/* A dat's type may carry OP2's ":soa" suffix ("double:soa"); its values stay element by element,
 * so OP2_STRIDE(arr, i), with which OP2's kernels index such dats, is arr[i] in kernels and in
 * programs that include the kernel headers themselves. */
#ifndef OP2_STRIDE
#define OP2_STRIDE(arr, idx) ((arr)[idx])
#endif

/**
 * @brief OP2's temporary dat: like op_decl_dat with zeros (`data` is ignored: OP2 programs pass a
 * typed NULL there), and op_free_dat_temp() may release it again. Declared, like every dat,
 * before the mesh is distributed when running on several MPI ranks.
 */
op_dat op_decl_dat_temp(op_set set, int dim, const char *type, const void *data, const char *name);
/** @brief Releases a dat from op_decl_dat_temp(); the handle becomes invalid. 0 on success, -1
 * (after the error handler) otherwise. */
int op_free_dat_temp(op_dat dat);

/**
 * @brief OP2's global element index, 64 bits wide (OP2's idx_g_t). A rank's own sizes and its
 * maps' local values (map->map once distributed) stay int.
 */
typedef long long idx_g_t;
/** @brief op_decl_map() with 64-bit values, global indices of `to` in [0, to's global size) (in
 * [1, size] with OP_MAPS_BASE_INDEX=1; from OP2_TEST_ID_BASE's base under that testing aid).
 * Under MPI they stay 64-bit through partitioning and migration, so `to` may have 2^31 elements
 * or more in all, and become local ints in the halo build (map->map is NULL until then); in one
 * process each must lie in the set. A value outside is refused, naming the map, row and value. */
op_map op_decl_map_long(op_set from, op_set to, int dim, const idx_g_t *data, const char *name);
/** @brief OP2's op_decl_dat_temp_char: a temporary of `dim` values of `type`. OP2 reserves
 * `dim * type_size` bytes per element and its loops use `type`; op2jit's dat holds `dim` values of
 * `type` per element (dat->size is their bytes) whatever positive `type_size` is given (one below
 * the type's size is warned about at OP2_DIAGS=1). */
op_dat op_decl_dat_temp_char(op_set set, int dim, const char *type, int type_size,
                             const char *name);
/** @brief OP2 creates its MPI halos here; op2jit builds them with the distribution (op_partition
 * or the first loop), so this call does nothing. */
void op_halo_create(void);
/** @brief OP2's allocation calls: 64-byte aligned (op_malloc, op_calloc); release with op_free. */
void *op_malloc(size_t size);
void *op_calloc(size_t number, size_t size);
void *op_realloc(void *ptr, size_t size);
void op_free(void *ptr);

/**
 * @brief A dat argument. `map` OP_ID with idx -1: direct access. `idx` >= 0: the dat element
 * reached through column `idx` of `map`. `idx` = -k (2 <= k <= map arity): the kernel receives an
 * array of k pointers, one per map column (OP2's vector argument).
 */
op_arg op_arg_dat(op_dat dat, int idx, op_map map, int dim, const char *type, op_access acc);
/** @brief Like op_arg_gbl(), but with `opt` 0 the kernel receives NULL and nothing is reduced. */
op_arg op_opt_arg_gbl(int opt, void *data, int dim, const char *type, op_access acc);
/** @brief Like op_arg_dat(), but when `opt` is 0 the kernel receives NULL for this argument. */
op_arg op_opt_arg_dat(int opt, op_dat dat, int idx, op_map map, int dim, const char *type,
                      op_access acc);
/**
 * @brief A global argument: `dim` values of `type` at `data`. OP_READ passes them to every
 * element; OP_INC, OP_MIN, OP_MAX reduce over the loop into `data`.
 */
op_arg op_arg_gbl(void *data, int dim, const char *type, op_access acc);
/**
 * @brief The kernel receives a pointer to the element's index (map OP_ID, idx -1) or to the
 * index that column `idx` of `map` gives for the element.
 */
op_arg op_arg_idx(int idx, op_map map);

/**
 * @brief OP2's op_arg_info: `dim` values of `type` at `data` that the kernel writes beside the
 * OP_MIN or OP_MAX global of argument number `ref`, of the same dim (Airfoil: the element where
 * the maximum error is). Each part of the loop (SIMD lane, thread, GPU block, rank) keeps its own
 * copy; `data` gets the copy of the part whose partial of `ref` wins, component by component:
 * what the kernel wrote for the element holding the extreme, as OP2's sequential build returns
 * (a tie between parts keeps the earlier part's). Unchanged when no element beats the value
 * `ref` starts from.
 */
op_arg op_arg_info(void *data, int dim, const char *type, int ref);

/**
 * @brief Applies the kernel `name`, defined in C source `kernel`, to every element of `set`.
 * Prefer the op_par_loop() macro, which counts the arguments.
 */
void op_par_loop_args(const char *kernel, const char *name, op_set set, int nargs,
                      const op_arg *args);

/**
 * @brief op_par_loop as OP2 programs call it, with the kernel function as first argument
 * (`op_par_loop(res, "res", edges, ...)`): the kernel's source is the header `<name>.h`, looked
 * for in each directory of OP2_KERNEL_PATH, then the current directory, then the directory of
 * `caller_file` (the calling source file, __FILE__). It is read once per loop name and kept until
 * op_exit. The op_par_loop() macro calls this when its first argument is not a string.
 */
void op_par_loop_header(const char *caller_file, const char *name, op_set set, int nargs,
                        const op_arg *args);

/**
 * @brief op_par_loop(kernel_source, "name", set, op_arg_dat(...), ...), or OP2's
 * op_par_loop(kernel_function, "name", set, ...), whose source is read from "name.h" (see
 * op_par_loop_header()).
 */
#ifndef __cplusplus
/* clang-format 14 knows neither _Generic nor a compound literal in a macro and would break these
 * aligned lists apart: they are laid out by hand. */
/* clang-format off */
#define OP2_LOOP_ARGS(...)                                                                  \
  (int)(sizeof((op_arg[]){__VA_ARGS__}) / sizeof(op_arg)), (op_arg[]) { __VA_ARGS__ }
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
/* A string (array or pointer, NULL included; `unsigned char` too, as `xxd -i` writes it) is the
 * kernel's source; anything else is the kernel function, whose source is its header. Both
 * selections take the same parameters. */
#define OP2_KERNEL_STRING_OR(kernel, other)                                               \
  _Generic((kernel), char *: (kernel), const char *: (kernel), unsigned char *: (kernel), \
           const unsigned char *: (kernel), void *: (kernel), default: (other))
#define op_par_loop(kernel, name, set, ...)                                              \
  _Generic((kernel), char *: op_par_loop_args, const char *: op_par_loop_args,           \
           unsigned char *: op_par_loop_args, const unsigned char *: op_par_loop_args,   \
           void *: op_par_loop_args, default: op_par_loop_header)(                       \
      OP2_KERNEL_STRING_OR(kernel, __FILE__), (name), (set), OP2_LOOP_ARGS(__VA_ARGS__))
/* clang-format on */
#else
#define op_par_loop(kernel, name, set, ...) \
  op_par_loop_args((kernel), (name), (set), OP2_LOOP_ARGS(__VA_ARGS__))
#endif
#else
/* C++ has no compound literals (g++ refuses the address of a temporary array): the arguments
 * travel as an initializer list, which lives until the end of the full expression. Overloads on
 * the first argument pick the kernel string or the kernel function. */
#define op_par_loop(kernel, name, set, ...) \
  op2_par_loop_list((kernel), (name), (set), __FILE__, {__VA_ARGS__})
#endif

/**
 * @brief A kernel read from its own file (OP2's `res_calc.h`), for op_par_loop's first argument.
 * A name without '/' is looked for in each directory of OP2_KERNEL_PATH (':'-separated), then in
 * the current directory. The text is the file byte for byte after `#line 1 "<file_name>"`, so
 * compiler messages name the file and its own lines, except that each `#include "x.h"` is
 * replaced by that file's text (under its own #line), resolved against the directory of the
 * file that includes it; the library keeps it until op_exit. NULL
 * (after the error handler) when no file is found or readable. The build-time counterpart is
 * the op2-embed tool.
 */
const char *op_kernel_file(const char *file_name);

/**
 * @brief Reorders every set reachable through maps for cache locality: reverse Cuthill-McKee on
 * the graph `base` induces on its to-set, other sets following. Everything the user sees keeps
 * the declared order (fetches, prints, op_arg_idx). OP2_RENUMBER=on does this automatically
 * before the first loop. Call it after the declarations, before the loops.
 */
void op_renumber(op_map base);

/**
 * @brief OP2's explicit distribution under MPI: "PTSCOTCH" partitions the graph `prime_map` induces
 * on `prime_set` (elements sharing a target, or a source, are neighbours) and the other sets follow
 * through the maps; "BLOCK" keeps the declared blocks. `routine` and `coords` are accepted for OP2
 * compatibility. Without a call the first loop distributes by BLOCK. No effect on one process.
 */
void op_partition(const char *lib, const char *routine, op_set prime_set, op_map prime_map,
                  op_dat coords);
/** @brief 1 on the rank that should print (rank 0, or the only process). */
int op_is_root(void);

/** @brief Number of elements of a set (over all MPI ranks, as OP2 counts them). */
int op_get_size(op_set set);
/** @brief Copies a dat's values (size * dim of its type) into `out`, in declaration order. */
void op_fetch_data(op_dat dat, void *out);
/** @brief Copies the values of elements [low, high] (inclusive) of a dat into `out`. */
void op_fetch_data_idx(op_dat dat, void *out, int low, int high);
/** @brief Writes a dat as text in OP2's format: a line `size dim`, then one line per element, each
 * value signed after a space (doubles `%+2.15E`, floats `%+f`), so files diff against OP2's. */
void op_print_dat_to_txtfile(op_dat dat, const char *file_name);
/** @brief Writes a dat in OP2's binary layout: int size, int dim, then the values of every element
 * in declaration order (native byte order). Under MPI, rank 0 writes the whole dat. */
void op_print_dat_to_binfile(op_dat dat, const char *file_name);
/** @brief printf on the rank that prints (rank 0, or the only process); flushed at once. */
void op_printf(const char *format, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/*
 * HDF5 mesh files in OP2-Common's layout: one 1-element int dataset per set (its size), one
 * [size, dim] dataset per map and dat with attributes dim, size and type, one [dim] dataset per
 * constant. Files written by OP2 load unchanged. Under MPI every rank calls these together; each
 * reads its block of every set (rank r of P: rows [G*r/P, G*(r+1)/P)) and map values are global.
 */
/** @brief Declares a set whose size is stored in dataset `name` of HDF5 file `file`. */
op_set op_decl_set_hdf5(const char *file, const char *name);
/** @brief Declares set `name` whose size is the row count of dataset `set_dataset_name` (a map or
 * dat stored on the set) in `file`. */
op_set op_decl_set_hdf5_infer_size(const char *file, const char *name,
                                   const char *set_dataset_name);
/**
 * @brief Declares a map from dataset `name` ([from's global size, dim] ints, values indexing
 * `to`). The file's dim and row count must match the call. A dataset of 64-bit integers (OP2's
 * "long long" maps) is declared as op_decl_map_long() declares (its values the user's indices).
 */
op_map op_decl_map_hdf5(op_set from, op_set to, int dim, const char *file, const char *name);
/**
 * @brief Declares a dat from dataset `name` ([set's global size, dim]). The dataset's type must
 * be `type` exactly: a double dataset is read as "double" only.
 */
op_dat op_decl_dat_hdf5(op_set set, int dim, const char *type, const char *file, const char *name);
/** @brief Reads constant `name` (`dim` values of `type`) from `file_name` into `const_data`. */
void op_get_const_hdf5(const char *name, int dim, const char *type, char *const_data,
                       const char *file_name);
/** @brief Writes `dim` values of `type` at `const_data` as constant `name` (OP2's layout: a [dim]
 * dataset with attributes dim and type) into `file_name`, creating it or replacing the dataset. */
void op_write_const_hdf5(const char *name, int dim, const char *type, char *const_data,
                         const char *file_name);
/**
 * @brief Writes every set, map, dat and constant to `file_name` in the user's original order,
 * atomically (a failed dump leaves no partial file), plus `file_name`.xdmf describing the mesh
 * for ParaView when a map of arity 3 or 4 leads to 2-D or 3-D double coordinates.
 */
void op_dump_to_hdf5(const char *file_name);
/** @brief Writes one dat to `file_name` as dataset named after it, creating the file or adding
 * to (replacing the dat's dataset in) an existing one. */
void op_fetch_data_hdf5_file(op_dat dat, const char *file_name);
/** @brief As op_fetch_data_hdf5_file(), into group `path_name` (created when missing): the dataset
 * is `path_name/<dat name>`. */
void op_fetch_data_hdf5_file_path(op_dat dat, const char *file_name, const char *path_name);

/** @brief Prints the declared sets, maps, dats and constants to stdout. */
void op_diagnostic_output(void);
/** @brief Prints per-loop timing: calls, time, GB/s, JIT compile time and its source. */
void op_timing_output(void);
/** @brief op_timing_output()'s table written to `file_name` instead of stdout (rank 0 writes). */
void op_timing_output_2_file(const char *file_name);
/**
 * @brief Per-loop timings as CSV in OP2's columns (`rank,thread,nranks,nthreads,count,total time,
 * plan time,mpi time,GB used,GB total,kernel name`), one row per loop and rank; rank 0 writes.
 * Threads are not timed apart (thread 0 of 1) and MPI time is not measured apart (0).
 */
void op_timings_to_csv(const char *file_name);

/*
 * OP2's application profiling: named sections the program opens and closes around its own
 * phases. op_profile_output() prints, per section, calls and total/mean/min/max seconds (the
 * slowest rank's under MPI).
 */
/** @brief Starts profiling; `name` names the whole run (the outermost section). */
void op_profile_start(const char *name);
/** @brief Opens a section inside the current one. */
void op_profile_enter(const char *name);
/** @brief Closes the current section. */
void op_profile_exit(void);
/** @brief Closes the current section and opens `name` beside it. */
void op_profile_next(const char *name);
/** @brief Closes every open section, the outermost included. */
void op_profile_end(void);
/** @brief Prints the sections on rank 0 (collective under MPI). */
void op_profile_output(void);

/** @brief CPU time and wall-clock time in seconds. */
void op_timers(double *cpu, double *wall);

/**
 * @brief Receives every error message. The default prints `op2: error: ...` to stderr and
 * exits with status 1. A handler that returns makes the failing call return (handles NULL).
 */
typedef void (*op_error_handler)(const char *message, void *user_data);
/** @brief Installs an error handler (NULL restores the default). May be called before op_init;
 * the handler and op_last_error() outlive op_exit. */
void op_set_error_handler(op_error_handler handler, void *user_data);
/** @brief The message of the most recent error, or "" when none happened. */
const char *op_last_error(void);

/*
 * Checkpoint and restart. A checkpoint saves every dat and constant (OP2's HDF5 layout) and the
 * log of loop calls with the values their global reductions returned. A restarted run executes
 * the program from the start, but loop calls before the checkpoint do not run: their reductions
 * return the logged values; at the checkpoint the data are restored and the run goes on.
 */
/**
 * @brief Starts checkpointing to `file`. Call it after the declarations, before the first
 * op_par_loop. `policy`: "manual" (or NULL): a checkpoint at every op_checkpoint() call;
 * "time:SECONDS": at the first op_checkpoint() call or loop call once SECONDS have passed since
 * the last checkpoint. When `file` holds a checkpoint (or OP2_RESTART names one) the run
 * restarts from it.
 * @return 1 when this run restarts from a checkpoint, 0 otherwise.
 */
int op_checkpointing_init(const char *file, const char *policy);
/** @brief A point where a checkpoint may be written (and where a restarted run resumes). */
void op_checkpoint(void);

#ifdef __cplusplus
}

#include <initializer_list>

/* The C++ faces of op_par_loop (see the macro above): the kernel as a source string... */
inline void op2_par_loop_list(const char *kernel, const char *name, op_set set, const char *,
                              std::initializer_list<op_arg> args) {
  op_par_loop_args(kernel, name, set, (int)args.size(), args.begin());
}

/* ... or as OP2 passes it, the kernel function itself, whose source is its header name.h. */
template <typename R, typename... P>
inline void op2_par_loop_list(R (*)(P...), const char *name, op_set set, const char *caller_file,
                              std::initializer_list<op_arg> args) {
  op_par_loop_header(caller_file, name, set, (int)args.size(), args.begin());
}

/* OP2's C++ API takes typed pointers and accepts const data for read-only globals. */
inline op_arg op_arg_gbl(const void *data, int dim, const char *type, op_access acc) {
  return op_arg_gbl(const_cast<void *>(data), dim, type, acc);
}
#endif

#endif /* OP2_H */
