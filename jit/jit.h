/* The JIT pipeline: loop descriptors -> generated source -> compiled (or cached) kernel. */
#ifndef OP2_JIT_H
#define OP2_JIT_H

#include <stddef.h>
#include <stdint.h>

#include "../runtime/op2_impl.h"

/* Gives the loop its kernel: from this process's table, the disk cache, or a fresh compile. */
int op2_jit_kernel(op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                   op2_kernel **out);
void op2_kernel_free(op2_kernel *k);

/* ---- a growable text buffer (strbuf.c) ---- */
typedef struct op2_buf {
  char *data;
  size_t len, cap;
  int failed; /* an allocation failed: the content is incomplete */
} op2_buf;
void op2_buf_printf(op2_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void op2_buf_append(op2_buf *b, const char *s, size_t len);
void op2_buf_free(op2_buf *b);

/* ---- templates embedded at build time (templates.c + generated table) ---- */
/* A malloc'ed copy of template `name` (e.g. "c/loop.c"), or NULL with an error raised. */
char *op2_template_load(const op2_context *ctx, const char *name);

/* ---- code generation (codegen.c, signature.c) ---- */
#define OP2_CODEGEN_VERSION 1

typedef struct op2_generated {
  op2_buf source;
  op2_buf signature; /* the signature in words, one line per item */
  int kernel_first_line; /* line of the generated file where the user's kernel begins */
} op2_generated;

int op2_signature_describe(const op2_loop *loop, const char *target, op2_buf *out);
/* Declared constants whose names occur as identifiers in the kernel text, in declaration order. */
int op2_constants_used(const op2_context *ctx, const char *kernel_src, op2_const ***out, int *n);
int op2_codegen_c(const op2_context *ctx, const op2_loop *loop, const char *kernel_src,
                  op2_generated *out);

/* ---- compilers (tcc.c) ---- */
const char *op2_tcc_identity(void);
const char *op2_tcc_flags(void);
void op2_tcc_release(void *tcc_state);
/* Compiles to a shared object at so_path, or in memory when so_path is NULL. The compiler's
 * messages go to *log (malloc'ed). */
int op2_tcc_compile(const char *source, const char *so_path, void **tcc_state,
                    op2_kernel_fn *fn, char **log);

/* ---- the on-disk cache (cache.c, manifest.c) ---- */
typedef struct op2_cache_key {
  uint64_t hi, lo;
  char hex[33];
} op2_cache_key;
void op2_cache_key_make(const char *source, size_t len, const char *compiler, const char *flags,
                        op2_cache_key *key);

typedef struct op2_manifest {
  char loop[256];
  char key[33];
  char target[16];
  char compiler[128];
  char flags[256];
  char source_file[300], binary_file[300];
  long long source_bytes, binary_bytes;
  char source_xxh3[17], binary_xxh3[17];
  char created[32];
  double compile_ms;
  const char *signature; /* for writing only */
} op2_manifest;

int op2_manifest_write(const char *path, const op2_manifest *m, char *err, size_t errlen);
int op2_manifest_read(const char *path, op2_manifest *m, char *err, size_t errlen);
void op2_hash_hex64(const void *data, size_t len, char out[17]);

/* Ensures the cache root exists (0700) and is safe to load code from. */
int op2_cache_root_usable(const char *root, int create, char *why, size_t whylen);
/* The entry directory of a kernel: ROOT/NAME-HASH16. */
void op2_cache_entry_dir(const char *root, const char *name, const op2_cache_key *key, char *out,
                         size_t len);
/* Verifies the entry against the exact source; fills so_path on success. */
int op2_cache_verify(const char *entry, const char *name, const op2_cache_key *key,
                     const char *source, size_t len, char *so_path, size_t so_len, char *why,
                     size_t whylen);
/* Writes a file atomically: temp file in the same directory, then rename. */
int op2_write_file_atomic(const char *path, const void *data, size_t len, char *why,
                          size_t whylen);
int op2_read_file(const char *path, char **data, size_t *len);

#endif /* OP2_JIT_H */
