/* SPDX-License-Identifier: BSD-3-Clause */
/* One cache entry, ROOT/NAME-HASH16/{source, binary, manifest.json}, checked and stored the same
 * way for C kernels, CUDA modules and the op2-cache tool. Everything works from directory
 * descriptors: an entry directory is opened once (O_NOFOLLOW), checked with fstat, and its files
 * are opened relative to it (O_NOFOLLOW | O_NONBLOCK) and checked on the descriptor that is then
 * read, hashed and loaded, so nothing can be swapped between the check and the use.
 * Knows nothing of the library context: the tool links it too. */
#ifndef OP2_CACHE_ENTRY_H
#define OP2_CACHE_ENTRY_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "base/base.h"
#include "base/file_io.h"

typedef struct op2_cache_key {
  uint64_t hi, lo;
  char hex[33];
} op2_cache_key;
/* The key of a build: the exact source, the compiler's identity and the flags it is given. */
void op2_cache_key_make(const char *source, size_t len, const char *compiler, const char *flags,
                        op2_cache_key *key);

typedef struct op2_manifest {
  char loop[256];
  char key[33];
  char target[16];
  char compiler[640];
  char flags[1024]; /* as the compiler received them: the key must have been made from these */
  char source_file[300], binary_file[300];
  long long source_bytes, binary_bytes;
  char source_xxh3[17], binary_xxh3[17];
  char created[32];
  double compile_ms;
  char resources[300];   /* CUDA: registers, spills, static shared memory (ptxas -v); optional */
  const char *signature; /* for writing only */
} op2_manifest;
/* The manifest as JSON text (malloc'ed, NULL when out of memory), and back. */
char *op2_manifest_format(const op2_manifest *m);
int op2_manifest_parse(const char *text, size_t len, op2_manifest *m, char *err, size_t errlen);
int op2_manifest_read(const char *path, op2_manifest *m, char *err, size_t errlen);
int op2_read_file(const char *path, char **data, size_t *len);
void op2_hash_hex64(const void *data, size_t len, char out[17]);
void op2_utc_now(char *out, size_t len); /* ISO 8601, for manifests */

/* ---- places ---- */
/* (The default cache root, op2_cache_default_root, is base/file_io.h's: the options ask too.) */
/* Where private build directories and the sources of failed kernels go: $TMPDIR or /tmp. */
const char *op2_temp_dir(void);
/* Writes a failed kernel's source to TMPDIR/op2-NAME-HASH16.EXT; the path (malloc'ed) or NULL. */
char *op2_keep_failed_source(const char *name, const op2_cache_key *key, const char *src,
                             size_t len, const char *ext);
/* Owned by this user and writable by nobody else: OP2_OK, else OP2_ERR_IO with `what` named in
 * *err. Every op2_entry_* and loader function below fails the same way: a status (OP2_OK or an
 * OP2_ERR_* code) with the message in *err (may be NULL), via op2_jit_error_set. */
int op2_cache_private(const struct stat *st, const char *what, op2_jit_error *err);
/* Ensures the cache root exists (0700 when created) and is a private directory of ours: OP2_OK,
 * else OP2_ERR_IO with the reason in *why. */
int op2_cache_root_usable(const char *root, int create, op2_jit_error *why);
/* ROOT/NAME-HASH16 */
void op2_cache_entry_dir(const char *root, const char *name, const op2_cache_key *key, char *out,
                         size_t len);
/* What a file of loop `loop`'s entry is: 0 not a cache file, 1 a cache file, 2 a temporary file
 * (a cache file's name followed by .tmp and random letters, written before the rename). */
int op2_cache_file_kind(const char *loop, const char *file);

/* The records kept beside the entries, ROOT/KIND/NAME-KEY16.txt (jit/kernel_records.c): the
 * warnings check's lines, optimised builds the compiler rejected, objects left to dlopen. The
 * first line of a failure record is "COMPILER: FIRST ERROR LINE", of a loader record the reason. */
#define OP2_RECORD_WARNINGS "warnings"
#define OP2_RECORD_FAILURES "failures"
#define OP2_RECORD_LOADER "loader"

/* ---- one entry ---- */
typedef struct op2_entry {
  int fd; /* the entry directory, -1 when closed */
  int at; /* what `path` is relative to */
  char path[OP2_PATH_BUF];
} op2_entry;
/* Opens directory `dir` (relative to atfd, or a path with AT_FDCWD), creating it (0700) when
 * `create`. OP2_OK opened and private, OP2_ENTRY_ABSENT missing (only without create), else
 * OP2_ERR_IO refused or failed (*err; errno is ENOENT when the directory was just removed). */
enum { OP2_ENTRY_ABSENT = -1 };
int op2_entry_open(int atfd, const char *dir, int create, op2_entry *e, op2_jit_error *err);
void op2_entry_close(op2_entry *e);
/* The build lock (flock on the directory), held by a writer from the first file to the manifest
 * and released by the kernel when the writer dies: an entry whose lock can be taken has no live
 * writer, so its temporary files and a missing manifest are leftovers. 0 taken, -1 busy. */
int op2_entry_try_lock(const op2_entry *e);
/* The build lock, waiting while another process holds it (it is building the entry), for at most
 * max_ms: 0 held, -1 still busy. */
int op2_entry_wait_lock(const op2_entry *e, int max_ms);
/* How long to wait for another process's build of an entry: the bound of the one compile it may
 * be running (OP2_COMPILE_TIMEOUT, compile_timeout_s) plus a margin to load and store it, since a
 * waiter would otherwise compile the same kernel again; OP2_ENTRY_WAIT_MS when compiles have no
 * limit (0). */
enum { OP2_ENTRY_WAIT_MS = 300000 };
int op2_entry_wait_ms(int compile_timeout_s);
/* Whether the entry's directory was removed (by a process that found it incomplete) after it
 * was opened: 1 removed, 0 still in place. */
int op2_entry_unlinked(const op2_entry *e);
/* 1 when the entry's directory holds nothing yet (a builder made it and has not written). */
int op2_entry_is_empty(const op2_entry *e);
/* Clears the group and other bits of a file the compiler just wrote into the entry (the
 * compiler honours the umask); refuses anything but a regular file of this user. */
int op2_entry_own_output(const op2_entry *e, const char *file, op2_jit_error *err);
/* Opens file `file` of the entry for reading; refuses anything but a private regular file. The
 * descriptor, or -1 with *err filled. */
int op2_entry_open_file(const op2_entry *e, const char *file, struct stat *st, op2_jit_error *err);
/* Reads all of an open descriptor; 0 or -1 with errno. */
int op2_read_fd(int fd, char **data, size_t *len);
int op2_entry_read(const op2_entry *e, const char *file, char **data, size_t *len,
                   op2_jit_error *err);
int op2_entry_write(const op2_entry *e, const char *file, const void *data, size_t len,
                    op2_jit_error *err);
/* Removes the entry's cache files (temporary ones only when `temps_only`) and, unless
 * temps_only, the directory. Anything that is not a cache file stops it (OP2_ERR_IO). Returns the
 * bytes removed through *freed when not NULL. */
int op2_entry_remove(const op2_entry *e, const char *loop, int temps_only, long long *freed,
                     op2_jit_error *err);

/* What an entry must hold. `source` NULL: whatever the manifest says (the tool); then the
 * binary may be a shared object or a CUBIN. */
typedef struct op2_entry_expect {
  const char *name;   /* the loop */
  const char *key;    /* 32 hex digits, or the directory's 16 */
  const char *target; /* NULL: any */
  const char *bin_ext, *src_ext;
  const char *source;
  size_t source_len;
} op2_entry_expect;
typedef struct op2_entry_verified {
  op2_manifest m;
  int manifest_ok;
  int bin_fd;   /* the verified binary, open: load from this descriptor only */
  char *binary; /* its bytes, exactly those hashed */
  size_t binary_len;
} op2_entry_verified;
/* The manifest, the source and the binary checked against each other and `ex`. OP2_OK sound (v
 * holds the open binary; release with op2_entry_verified_clear), OP2_ERR_IO refused (*err, relative
 * names). */
int op2_entry_verify(const op2_entry *e, const op2_entry_expect *ex, op2_entry_verified *v,
                     op2_jit_error *err);
void op2_entry_verified_clear(op2_entry_verified *v);
/* Stores the manifest last: an entry without one is never loaded. */
int op2_entry_write_manifest(const op2_entry *e, const op2_manifest *m, op2_jit_error *err);

/* The objects an engine loaded itself, with the device and inode each was loaded from, so that
 * loading the next one need not read /proc/self/maps to learn who holds a descriptor's name
 * (loaded_objects.c). Thread-safe: the background tier loads too. */
typedef struct op2_loaded_object {
  void *handle;
  uintptr_t addr, ld; /* the link map's base and dynamic section: a handle address reused by
                       * another object loaded elsewhere is not taken for ours */
  dev_t dev;
  ino_t ino;
} op2_loaded_object;
typedef struct op2_loaded_objects {
  pthread_mutex_t lock;
  op2_loaded_object *v;
  int n, cap;
  unsigned serial;  /* of the next load's name (op2_load_object_fd) */
  int loader;       /* OP2_LOADER: an op2_loader_mode (jit.h) */
  int direct_after; /* under OP2_LOADER=auto, the objects loaded with dlopen before the direct
                     * loader takes over (OP2_DIRECT_AFTER; tests lower it) */
  int loads;        /* objects loaded so far, by either loader */
  /* Says how an object was loaded when not as the mode implies (at OP2_DIAGS=2), or NULL. */
  void (*diag)(void *ctx, int level, const char *msg);
  void *diag_ctx;
  struct op2_needed_library {
    char *name;
    void *dl;
  } * needed; /* the libraries the direct loader's objects need, each opened once */
  int nneeded;
} op2_loaded_objects;
void op2_loaded_objects_init(op2_loaded_objects *t);
void op2_loaded_objects_destroy(op2_loaded_objects *t);
/* 1 when `handle` is an object of the table (*dev, *ino set), 0 when unknown. */
int op2_loaded_objects_find(op2_loaded_objects *t, void *handle, dev_t *dev, ino_t *ino);
/* Records a loaded object (replacing what the table said of its handle); no-op when t is NULL or
 * memory is short (the object is then merely unknown). */
void op2_loaded_objects_add(op2_loaded_objects *t, void *handle, dev_t dev, ino_t ino);
/* A new serial for the name of the next object loaded (0 when t is NULL). */
unsigned op2_loaded_objects_serial(op2_loaded_objects *t);
/* glibc's handle of the library `name` (a DT_NEEDED of a directly loaded object), opened with
 * dlopen on first use and kept for the process: objects may outlive the table. NULL if it
 * cannot be opened. `t` is an op2_loaded_objects. */
void *op2_loaded_objects_needed(void *t, const char *name);

/* A loaded kernel object (object.c): mapped by the direct loader, or by dlopen. The kernels'
 * `dl_handle` fields hold one of these. */
typedef struct op2_object op2_object;
struct op2_elf_image; /* elf_load.h */
/* The address of the object's symbol `name`, or NULL; *bytes (may be NULL) its size. */
void *op2_object_symbol(const op2_object *o, const char *name, size_t *bytes);
void op2_object_close(op2_object *o);
/* glibc's handle when the object was loaded with dlopen, NULL when loaded directly. */
void *op2_object_dl(const op2_object *o);
/* Wraps what either loader made (one of the two NULL); NULL when memory is short. */
op2_object *op2_object_wrap(void *dl, struct op2_elf_image *img);
/* Why the direct loader left the object to dlopen (its reason, kept by op2_load_object_fd), or
 * NULL when it loaded the object itself or was not tried (OP2_LOADER=dlopen). */
const char *op2_object_dlopen_why(const op2_object *o);
void op2_object_set_dlopen_why(op2_object *o, const char *why);

/* Loads the shared object open at `fd` and finds `symbol`; *handle gets an op2_object. `known`
 * (may be NULL: dlopen only) is the table of the caller's engine: with `direct` set the direct
 * loader is tried first and dlopen loads what it does not understand; dlopen's loads are looked
 * up in and added to it. */
int op2_load_object_fd(op2_loaded_objects *known, int fd, const char *what, const char *symbol,
                       void **handle, void **sym, op2_jit_error *err);

#endif /* OP2_CACHE_ENTRY_H */
