/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader: maps a kernel object the library built (TinyCC -shared, cc -shared -fPIC)
 * without glibc's dynamic loader, whose every dlopen walks the list of all objects loaded before
 * it, so a kernel's load grows with the kernels loaded (figures: docs/CACHE.md, "Loading"). It
 * understands exactly what such objects
 * contain and answers "not understood" for anything else, so that the caller loads that object
 * with dlopen instead: see docs/CACHE.md, "Loading". */
#ifndef OP2_ELF_LOAD_H
#define OP2_ELF_LOAD_H

#include <stddef.h>

#include "base/base.h"

typedef struct op2_elf_image op2_elf_image;

/* Opens a needed library (DT_NEEDED) once: the caller's handle for `name`, or NULL. */
typedef void *(*op2_elf_needed_fn)(void *ctx, const char *name);

/* Loads the object open at `fd` (read with pread and mmap; the descriptor may be closed
 * afterwards). OP2_OK loaded (*out set, its initialisers run), OP2_ERR_JIT not understood or
 * refused: nothing is left mapped and *why says what and where (load it with dlopen, which may
 * still refuse it). */
int op2_elf_load(int fd, op2_elf_needed_fn needed, void *needed_ctx, op2_elf_image **out,
                 op2_jit_error *why);
/* The address of the defined symbol `name` (global or weak), or NULL; *bytes (may be NULL) its
 * size from the symbol table. */
void *op2_elf_symbol(const op2_elf_image *img, const char *name, size_t *bytes);
/* Runs the object's finalisers and unmaps it. */
void op2_elf_unload(op2_elf_image *img);

#endif /* OP2_ELF_LOAD_H */
