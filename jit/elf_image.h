/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader's image of one object while it is checked and loaded, shared by elf_load.c
 * (headers, mapping, relocation, initialisers) and elf_check.c (the tables: sections, symbols,
 * hashes, versions, notes, entry points). jit/ only. */
#ifndef OP2_ELF_IMAGE_H
#define OP2_ELF_IMAGE_H

#include <elf.h>
#include <stdint.h>

#include "jit/elf_load.h"

enum {
  OP2_ELF_MAX_PHDRS = 32,
  OP2_ELF_MAX_SEGS = 8,
  OP2_ELF_MAX_NEEDED = 16,
  OP2_ELF_MAX_VERSIONS = 64,
  OP2_ELF_MAX_SECTIONS = 4096,
};
/* Far larger than any kernel object; keeps every sum of two checked values from overflowing. */
#define OP2_ELF_MAX_SPAN ((uint64_t)1 << 40)

typedef struct op2_elf_segment {
  uint64_t vaddr, memsz, filesz, offset;
  uint32_t flags;
} op2_elf_segment;

/* What the dynamic section says (addresses are the object's, not yet biased). */
typedef struct op2_elf_dynamic {
  uint64_t strtab, strsz, symtab, syment, hash, gnu_hash;
  uint64_t rela, relasz, relaent, relacount, jmprel, pltrelsz, pltrel, pltgot;
  uint64_t init, init_array, init_arraysz, fini, fini_array, fini_arraysz;
  uint64_t versym, verneed, verneednum, verdef, verdefnum;
  uint64_t needed[OP2_ELF_MAX_NEEDED];
  int nneeded;
  int has_init, has_fini; /* the tags appear (glibc calls them whatever their value) */
  int has_versym, has_verneed, has_verdef; /* likewise: glibc reads them whatever their value */
} op2_elf_dynamic;

struct op2_elf_image {
  unsigned char *map; /* the reserved span */
  size_t map_len;
  uintptr_t base; /* the object's address 0 */
  op2_elf_segment segs[OP2_ELF_MAX_SEGS];
  int nsegs;
  const Elf64_Sym *syms;
  size_t nsyms;
  const char *str;
  size_t strsz;
  uint64_t fini, fini_array, fini_count;
  /* while it is checked */
  int fd;
  uint64_t file_size;
  Elf64_Shdr *sections; /* read from the file: what each symbol's section index must agree with */
  size_t nsections;
  Elf64_Sym *symtab; /* .symtab (functions' starts, what .dynsym must agree with), or NULL */
  size_t nsymtab;
  char *symstr; /* its string table */
  size_t symstrsz;
  int symtab_read;
  uint64_t dyn_vaddr, dyn_size;  /* PT_DYNAMIC: glibc reads it again after relocating */
  uint64_t tls_vaddr, tls_memsz; /* PT_TLS, when has_tls */
  int has_tls;
  op2_elf_verdict *verdict;
};

/* Malformed: OP2_ERR_JIT, with what and where in *why. */
#define op2_elf_refuse(why, ...) op2_jit_error_set((why), OP2_ERR_JIT, __VA_ARGS__)

/* Notes that the object is sound but needs glibc's loader; the first reason is kept. */
void op2_elf_needs_glibc(op2_elf_image *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The segment holding [v, v+len), or NULL. */
const op2_elf_segment *op2_elf_segment_of(const op2_elf_image *m, uint64_t v, uint64_t len);
/* Whether v is an address of the object: inside a segment or just past its end (a C pointer
 * one past an array). */
int op2_elf_in_object(const op2_elf_image *m, uint64_t v);
/* The NUL-terminated string at `off` of the dynamic string table, or NULL. */
const char *op2_elf_string_at(const op2_elf_image *m, uint64_t off);
static inline void *op2_elf_at(const op2_elf_image *m, uint64_t v) {
  return (void *)(m->base + (uintptr_t)v);
}

/* elf_check.c: the tables, each checked against the file, the sections and the segments. */
int op2_elf_read_sections(op2_elf_image *m, const Elf64_Ehdr *eh, op2_jit_error *why);
/* Every loaded section lies in a segment that maps its file bytes at its address: a segment
 * moved to other bytes of the file (data mapped as code) disagrees with them. */
int op2_elf_check_sections(const op2_elf_image *m, op2_jit_error *why);
int op2_elf_check_notes(const op2_elf_image *m, const Elf64_Phdr *p, op2_jit_error *why);
int op2_elf_read_symbols(op2_elf_image *m, const op2_elf_dynamic *d, op2_jit_error *why);
/* Names of the versions the object's undefined symbols ask for (DT_VERNEED), by index, and the
 * version table's indices checked against the versions defined or needed. */
int op2_elf_read_versions(const op2_elf_image *m, const op2_elf_dynamic *d, const char **names,
                          op2_jit_error *why);
/* Every defined dynamic symbol agrees with the same symbol in .symtab, when the object has one:
 * the linker wrote both, so a value moved inside its section shows. */
int op2_elf_check_symtab(op2_elf_image *m, op2_jit_error *why);
/* Whether object address v starts a function of its code: a defined STT_FUNC symbol's value in
 * .dynsym or .symtab (a section's start is not enough: .plt starts with the lazy binder). */
int op2_elf_function_start(op2_elf_image *m, uint64_t v);

#endif /* OP2_ELF_IMAGE_H */
