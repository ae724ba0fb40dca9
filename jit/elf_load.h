/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader: maps a kernel object the library built (TinyCC -shared, cc -shared -fPIC)
 * without glibc's dynamic loader, whose every dlopen walks the list of all objects loaded before
 * it (figures: docs/CACHE.md, "Loading"). It is also the check every object passes
 * before anything loads it, dlopen included: a malformed object (a table, offset, index, address
 * or entry point that does not hold) is refused and never handed to glibc, which trusts what it
 * reads and crashes on it. A sound object that uses what only glibc's loader does (thread-local
 * storage, IFUNC, the C++ runtime) is said so, for the caller to load with dlopen: see
 * docs/CACHE.md, "Loading". */
#ifndef OP2_ELF_LOAD_H
#define OP2_ELF_LOAD_H

#include <stddef.h>

#include "base/base.h"

typedef struct op2_elf_image op2_elf_image;

/* Opens a needed library (DT_NEEDED) once: the caller's handle for `name`, or NULL. */
typedef void *(*op2_elf_needed_fn)(void *ctx, const char *name);

/* What a check found besides soundness. */
typedef struct op2_elf_verdict {
  int glibc_only;    /* sound, but it needs what only glibc's loader does: `reason` */
  int no_stack_note; /* no PT_GNU_STACK header: glibc would make every thread's stack executable */
  char reason[256];  /* why glibc_only */
} op2_elf_verdict;

/* Checks the object open at `fd` (read with pread and mmap; the descriptor may be closed
 * afterwards) and, when `out` is not NULL and nothing in it needs glibc, loads it: *out set, its
 * initialisers run. OP2_OK: sound (loaded, or not when out is NULL or v->glibc_only: nothing is
 * left mapped then). OP2_ERR_JIT: malformed, refused with what and where in *why, nothing left
 * mapped: no loader may load it. */
int op2_elf_load(int fd, op2_elf_needed_fn needed, void *needed_ctx, op2_elf_image **out,
                 op2_elf_verdict *v, op2_jit_error *why);
/* The address of the defined symbol `name` (global or weak), or NULL; *bytes (may be NULL) its
 * size from the symbol table. */
void *op2_elf_symbol(const op2_elf_image *img, const char *name, size_t *bytes);
/* Runs the object's finalisers and unmaps it. */
void op2_elf_unload(op2_elf_image *img);

#endif /* OP2_ELF_LOAD_H */
