/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding things in a kernel object's bytes, for tests that damage them on purpose: sections by
 * name, dynamic symbols by name, program headers by type, relocations by the word they write.
 * Each finder CHECKs that what it found lies inside the buffer. */
#ifndef OP2_TEST_ELF_EDIT_H
#define OP2_TEST_ELF_EDIT_H

#include <elf.h>
#include <string.h>

#include "test.h"

/* The headers as they lie in an object's bytes: TinyCC places its section headers (and may
 * place tables) at offsets that are not multiples of 8, so they are read through types of
 * alignment 1 (GCC lowers a typedef's alignment), not through misaligned pointers. */
typedef Elf64_Shdr ee_shdr __attribute__((aligned(1)));
typedef Elf64_Sym ee_sym __attribute__((aligned(1)));
typedef Elf64_Phdr ee_phdr_t __attribute__((aligned(1)));
typedef Elf64_Rela ee_rela __attribute__((aligned(1)));

static inline Elf64_Ehdr *ee_header(char *data, size_t len) {
  CHECK(len >= sizeof(Elf64_Ehdr) && memcmp(data, ELFMAG, SELFMAG) == 0);
  return (Elf64_Ehdr *)data;
}

static inline ee_shdr *ee_sections(char *data, size_t len) {
  Elf64_Ehdr *eh = ee_header(data, len);
  CHECK(eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) <= len);
  return (ee_shdr *)(data + eh->e_shoff);
}

/* The section called `name`, or NULL; *index its index. */
static inline ee_shdr *ee_section(char *data, size_t len, const char *name, int *index) {
  Elf64_Ehdr *eh = ee_header(data, len);
  ee_shdr *sh = ee_sections(data, len);
  const char *names = data + sh[eh->e_shstrndx].sh_offset;
  for (int i = 0; i < eh->e_shnum; i++)
    if (strcmp(names + sh[i].sh_name, name) == 0) {
      CHECK(sh[i].sh_type == SHT_NOBITS || sh[i].sh_offset + sh[i].sh_size <= len);
      if (index) *index = i;
      return &sh[i];
    }
  return NULL;
}

/* The dynamic symbol called `name` (CHECKed to exist). */
static inline ee_sym *ee_dynsym(char *data, size_t len, const char *name) {
  ee_shdr *syms = ee_section(data, len, ".dynsym", NULL);
  CHECK(syms != NULL);
  const char *str = data + ee_sections(data, len)[syms->sh_link].sh_offset;
  ee_sym *s = (ee_sym *)(data + syms->sh_offset);
  for (size_t i = 0; i < syms->sh_size / sizeof *s; i++)
    if (strcmp(str + s[i].st_name, name) == 0) return &s[i];
  fprintf(stderr, "no dynamic symbol %s\n", name);
  CHECK(0);
  return NULL;
}

/* The first program header of `type`, or NULL. */
static inline ee_phdr_t *ee_phdr(char *data, size_t len, uint32_t type, uint32_t flags) {
  Elf64_Ehdr *eh = ee_header(data, len);
  CHECK(eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) <= len);
  ee_phdr_t *ph = (ee_phdr_t *)(data + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++)
    if (ph[i].p_type == type && (!flags || (ph[i].p_flags & flags) == flags)) return &ph[i];
  return NULL;
}

/* The RELA relocation that writes the word at object address `where`, or NULL. */
static inline ee_rela *ee_rela_at(char *data, size_t len, uint64_t where) {
  Elf64_Ehdr *eh = ee_header(data, len);
  ee_shdr *sh = ee_sections(data, len);
  for (int i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_RELA) continue;
    ee_rela *r = (ee_rela *)(data + sh[i].sh_offset);
    for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++)
      if (r[k].r_offset == where) return &r[k];
  }
  return NULL;
}

#endif /* OP2_TEST_ELF_EDIT_H */
