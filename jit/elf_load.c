/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader (elf_load.h). What a kernel object needs, and all this file does: its
 * PT_LOAD segments mapped from the file at one base, .bss zeroed, the x86-64 relocations a
 * position-independent object carries (RELATIVE, 64, GLOB_DAT, JUMP_SLOT, NONE) applied with
 * symbols resolved as glibc would (the global scope, then the object itself, then its own
 * DT_NEEDED libraries; versioned references through dlvsym), page protections set (RELRO
 * included; no page is ever writable and executable once loaded), DT_INIT and DT_INIT_ARRAY run.
 * Every offset, size, index and address read from the file is checked against the file, the
 * sections or the segments before use; every address a relocation writes and every entry point
 * is checked against the segments (elf_check.c checks the tables). What only glibc's loader does
 * (thread-local storage, IFUNC, the C++ runtime, search paths) is checked as far as it goes and
 * left to dlopen; text relocations and anything else are refused. */
#include "jit/elf_image.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define refuse op2_elf_refuse

static int read_exact(int fd, void *buf, size_t len, uint64_t off) {
  return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The ELF header and program headers: the segments (none writable and executable), the
 * dynamic section, RELRO, thread-local storage, the stack's protection. */
static int read_headers(op2_elf_image *m, Elf64_Ehdr *eh, Elf64_Phdr *ph, op2_jit_error *why) {
  uint64_t size = m->file_size;
  if (size < sizeof *eh || read_exact(m->fd, eh, sizeof *eh, 0) != 0)
    return refuse(why, "shorter than an ELF header");
  if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0) return refuse(why, "not an ELF file");
  if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
      eh->e_ident[EI_VERSION] != EV_CURRENT || eh->e_machine != EM_X86_64 ||
      eh->e_version != EV_CURRENT)
    return refuse(why, "not a 64-bit little-endian x86-64 object");
  if ((eh->e_ident[EI_OSABI] != ELFOSABI_SYSV && eh->e_ident[EI_OSABI] != ELFOSABI_GNU) ||
      eh->e_ident[EI_ABIVERSION] != 0)
    return refuse(why, "an ABI other than System V's");
  if (eh->e_type != ET_DYN) return refuse(why, "not a shared object");
  if (eh->e_phentsize != sizeof(Elf64_Phdr) || eh->e_phnum == 0 ||
      eh->e_phnum > OP2_ELF_MAX_PHDRS || eh->e_phoff >= size ||
      size - eh->e_phoff < (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr))
    return refuse(why, "its program headers are out of bounds");
  if (read_exact(m->fd, ph, eh->e_phnum * sizeof *ph, eh->e_phoff) != 0)
    return refuse(why, "its program headers cannot be read");
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  int stack_note = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *p = &ph[i];
    if (p->p_type == PT_LOAD) {
      if (m->nsegs == OP2_ELF_MAX_SEGS)
        return refuse(why, "more than %d segments", OP2_ELF_MAX_SEGS);
      if (p->p_filesz > p->p_memsz || p->p_memsz == 0 || p->p_vaddr >= OP2_ELF_MAX_SPAN ||
          p->p_memsz >= OP2_ELF_MAX_SPAN || p->p_offset > size || size - p->p_offset < p->p_filesz)
        return refuse(why, "segment %d is out of bounds", i);
      if ((p->p_flags & PF_W) && (p->p_flags & PF_X)) /* W^X: never both */
        return refuse(why, "segment %d is writable and executable", i);
      if (!(p->p_flags & PF_R)) /* the library's objects read every segment */
        return refuse(why, "segment %d is not readable", i);
      if (p->p_memsz > p->p_filesz && !(p->p_flags & PF_W)) /* zeroes in code: a cut file */
        return refuse(why, "read-only segment %d is longer than its file part", i);
      if (p->p_vaddr % page != p->p_offset % page ||
          (p->p_align > 1 &&
           ((p->p_align & (p->p_align - 1)) != 0 || (p->p_vaddr - p->p_offset) % p->p_align != 0)))
        return refuse(why, "segment %d is not aligned with its file offset", i);
      if (m->nsegs > 0) {
        const op2_elf_segment *prev = &m->segs[m->nsegs - 1];
        uint64_t prev_end = (prev->vaddr + prev->memsz + page - 1) & ~(page - 1);
        if ((p->p_vaddr & ~(page - 1)) < prev_end)
          return refuse(why, "segment %d shares a page with the one before it", i);
      }
      m->segs[m->nsegs++] =
          (op2_elf_segment){p->p_vaddr, p->p_memsz, p->p_filesz, p->p_offset, p->p_flags};
    } else if (p->p_type == PT_TLS) {
      if (m->has_tls || p->p_filesz > p->p_memsz || p->p_memsz > ((uint64_t)1 << 24) ||
          (p->p_align > 1 && (p->p_align & (p->p_align - 1)) != 0) || p->p_align > page)
        return refuse(why, "its thread-local storage header is not understood");
      m->has_tls = 1, m->tls_vaddr = p->p_vaddr, m->tls_memsz = p->p_memsz;
      op2_elf_needs_glibc(m, "it has thread-local storage");
    } else if (p->p_type == PT_INTERP) {
      return refuse(why, "it is a program, not a library");
    } else if (p->p_type == PT_GNU_STACK) {
      if (p->p_flags & PF_X) return refuse(why, "it asks for an executable stack");
      stack_note = 1;
    }
  }
  if (m->nsegs == 0) return refuse(why, "it has no segments");
  m->verdict->no_stack_note = !stack_note;
  return 0;
}

/* The headers that point into the segments, checked once they are mapped: the dynamic section,
 * RELRO, the notes glibc walks, the program headers' own copy, the unwinding table's header, the
 * thread-local initial image. Returns the dynamic section's place. */
static int check_pointing_headers(const op2_elf_image *m, const Elf64_Ehdr *eh,
                                  const Elf64_Phdr *ph, uint64_t *dyn, uint64_t *dynsz,
                                  uint64_t *relro, uint64_t *relrosz, op2_jit_error *why) {
  *dyn = *dynsz = *relro = *relrosz = 0;
  int ndyn = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    const Elf64_Phdr *p = &ph[i];
    switch (p->p_type) {
      case PT_DYNAMIC:
        *dyn = p->p_vaddr, *dynsz = p->p_memsz, ndyn++;
        break;
      case PT_GNU_RELRO:
        *relro = p->p_vaddr, *relrosz = p->p_memsz;
        if (!op2_elf_segment_of(m, p->p_vaddr, p->p_memsz))
          return refuse(why, "its RELRO range is out of bounds");
        break;
      case PT_NOTE:
      case PT_GNU_PROPERTY:
        if (op2_elf_check_notes(m, p, why) != 0) return OP2_ERR_JIT;
        break;
      case PT_GNU_EH_FRAME:
        if (!op2_elf_segment_of(m, p->p_vaddr, p->p_memsz))
          return refuse(why, "its unwinding table header is out of bounds");
        break;
      case PT_PHDR: { /* glibc reads the program headers there (dl_iterate_phdr) */
        const op2_elf_segment *s = op2_elf_segment_of(m, p->p_vaddr, p->p_memsz);
        if (!s || p->p_offset != eh->e_phoff ||
            p->p_memsz < (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) ||
            s->offset + (p->p_vaddr - s->vaddr) != p->p_offset ||
            p->p_vaddr - s->vaddr + p->p_memsz > s->filesz)
          return refuse(why, "its program headers' own header is out of bounds");
        break;
      }
      case PT_TLS:
        if (p->p_filesz && !op2_elf_segment_of(m, p->p_vaddr, p->p_filesz))
          return refuse(why, "its thread-local initial image is out of bounds");
        break;
      default:
        break;
    }
  }
  if (ndyn != 1 || *dynsz == 0) return refuse(why, "not one dynamic section");
  return 0;
}

/* Reserves the whole span, then maps each segment's file part over it and zeroes the rest. All
 * writable and none executable for now: relocations are applied before the final protections. */
static int map_segments(op2_elf_image *m, op2_jit_error *why) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uint64_t lo = m->segs[0].vaddr & ~(uint64_t)(page - 1);
  const op2_elf_segment *last = &m->segs[m->nsegs - 1];
  uint64_t hi = (last->vaddr + last->memsz + page - 1) & ~(uint64_t)(page - 1);
  void *span = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (span == MAP_FAILED)
    return refuse(why, "cannot reserve %llu bytes", (unsigned long long)(hi - lo));
  m->map = span, m->map_len = hi - lo;
  m->base = (uintptr_t)span - (uintptr_t)lo;
  for (int i = 0; i < m->nsegs; i++) {
    const op2_elf_segment *s = &m->segs[i];
    uintptr_t start = m->base + (uintptr_t)(s->vaddr & ~(uint64_t)(page - 1));
    uintptr_t file_end = m->base + (uintptr_t)(s->vaddr + s->filesz);
    uintptr_t mem_end = m->base + (uintptr_t)(s->vaddr + s->memsz);
    uintptr_t zero_from = start; /* where anonymous pages begin */
    if (s->filesz > 0) {
      void *p = mmap((void *)start, file_end - start, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_FIXED, m->fd, (off_t)(s->offset & ~(uint64_t)(page - 1)));
      if (p == MAP_FAILED) return refuse(why, "cannot map segment %d", i);
      zero_from = (file_end + page - 1) & ~(page - 1);
      /* the file's bytes after the segment, in its last page, are .bss here */
      uintptr_t tail = zero_from < mem_end ? zero_from : mem_end;
      if (tail > file_end) memset((void *)file_end, 0, tail - file_end);
    }
    if (mem_end > zero_from) {
      size_t len = ((mem_end + page - 1) & ~(page - 1)) - zero_from;
      void *p = mmap((void *)zero_from, len, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) return refuse(why, "cannot map segment %d's zeroes", i);
    }
  }
  return 0;
}

/* A string-valued tag (a library name, a search path) whose string glibc reads unchecked. */
static int string_tag(const op2_elf_dynamic *d, uint64_t off, const char *what,
                      op2_jit_error *why) {
  return off < d->strsz ? 0 : refuse(why, "its %s lies outside its string table", what);
}

/* Where a dynamic tag's value goes: the field, and the flag saying the tag appeared (glibc uses
 * the value whatever it is), or -1. */
typedef struct stored_tag {
  int64_t tag;
  size_t at;
  ptrdiff_t seen_at;
} stored_tag;
#define TAG(t, f) \
  { t, offsetof(op2_elf_dynamic, f), -1 }
#define TAG_SEEN(t, f, s) \
  { t, offsetof(op2_elf_dynamic, f), offsetof(op2_elf_dynamic, s) }
static const stored_tag stored_tags[] = {TAG(DT_STRTAB, strtab),
                                         TAG(DT_STRSZ, strsz),
                                         TAG(DT_SYMTAB, symtab),
                                         TAG(DT_SYMENT, syment),
                                         TAG(DT_HASH, hash),
                                         TAG(DT_GNU_HASH, gnu_hash),
                                         TAG(DT_RELA, rela),
                                         TAG(DT_RELASZ, relasz),
                                         TAG(DT_RELAENT, relaent),
                                         TAG(DT_RELACOUNT, relacount),
                                         TAG(DT_JMPREL, jmprel),
                                         TAG(DT_PLTRELSZ, pltrelsz),
                                         TAG(DT_PLTREL, pltrel),
                                         TAG(DT_PLTGOT, pltgot),
                                         TAG_SEEN(DT_INIT, init, has_init),
                                         TAG_SEEN(DT_FINI, fini, has_fini),
                                         TAG(DT_INIT_ARRAY, init_array),
                                         TAG(DT_INIT_ARRAYSZ, init_arraysz),
                                         TAG(DT_FINI_ARRAY, fini_array),
                                         TAG(DT_FINI_ARRAYSZ, fini_arraysz),
                                         TAG_SEEN(DT_VERSYM, versym, has_versym),
                                         TAG_SEEN(DT_VERNEED, verneed, has_verneed),
                                         TAG(DT_VERNEEDNUM, verneednum),
                                         TAG_SEEN(DT_VERDEF, verdef, has_verdef),
                                         TAG(DT_VERDEFNUM, verdefnum)};
#undef TAG
#undef TAG_SEEN

/* The tags read apart from the stored ones: the object's flags, its name, its search paths. */
typedef struct other_tags {
  uint64_t seen; /* which of the tags below 64 appear */
  uint64_t flags, soname, paths[2];
  int has_soname, npaths;
} other_tags;

/* One dynamic tag that is not simply stored: 0, or refused. */
static int other_tag(op2_elf_image *m, const Elf64_Dyn *e, op2_elf_dynamic *d, other_tags *o,
                     op2_jit_error *why) {
  uint64_t v = e->d_un.d_val;
  switch (e->d_tag) {
    case DT_NEEDED:
      if (d->nneeded == OP2_ELF_MAX_NEEDED)
        return refuse(why, "more than %d needed libraries", OP2_ELF_MAX_NEEDED);
      d->needed[d->nneeded++] = v;
      return 0;
    case DT_FLAGS:
      o->flags = v;
      return 0;
    case DT_SONAME:
      o->soname = v, o->has_soname = 1;
      return 0;
    case DT_RPATH:
    case DT_RUNPATH: /* how glibc finds the needed libraries; the direct loader has its own way */
      if (o->npaths < 2) o->paths[o->npaths++] = v;
      op2_elf_needs_glibc(m, "it has a library search path");
      return 0;
    case DT_SYMBOLIC:
      op2_elf_needs_glibc(m, "it binds its symbols to itself first (DT_SYMBOLIC)");
      return 0;
    case DT_TEXTREL: /* code made writable while it is relocated: never */
      return refuse(why, "it has text relocations");
    /* what needs nothing done, or what ld.so does only for others' benefit */
    case DT_DEBUG:
    case DT_BIND_NOW:
    case DT_FLAGS_1:
    case DT_GNU_PRELINKED:
      return 0;
    default:
      return refuse(why, "dynamic tag 0x%llx is not understood", (unsigned long long)e->d_tag);
  }
}

/* The tables' sizes, kinds and places, as glibc would read them. */
static int check_tables(op2_elf_image *m, uint64_t dyn, const op2_elf_dynamic *d,
                        const other_tags *o, op2_jit_error *why) {
  /* glibc reads a table's size and entry size through pointers that are NULL when absent */
  static const int pairs[][3] = {{DT_RELA, DT_RELASZ, DT_RELAENT},
                                 {DT_JMPREL, DT_PLTRELSZ, DT_PLTREL},
                                 {DT_INIT_ARRAY, DT_INIT_ARRAYSZ, DT_INIT_ARRAYSZ},
                                 {DT_FINI_ARRAY, DT_FINI_ARRAYSZ, DT_FINI_ARRAYSZ}};
  uint64_t seen = o->seen;
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
    if ((seen >> pairs[i][0] & 1) && (!(seen >> pairs[i][1] & 1) || !(seen >> pairs[i][2] & 1)))
      return refuse(why, "dynamic tag %d comes without its size", pairs[i][0]);
  if ((d->has_verneed || d->has_verdef) && !d->has_versym) /* glibc reads it, unchecked */
    return refuse(why, "versions without a version table");
  if (o->flags & DF_TEXTREL) return refuse(why, "it has text relocations");
  if (o->flags & DF_STATIC_TLS) op2_elf_needs_glibc(m, "it has static thread-local storage");
  if (o->flags & DF_SYMBOLIC)
    op2_elf_needs_glibc(m, "it binds its symbols to itself first (DF_SYMBOLIC)");
  if (!d->strtab || !d->symtab || (!d->hash && !d->gnu_hash))
    return refuse(why, "no symbol, string or hash table");
  /* tables read in place: aligned as the ABI lays them out */
  if (dyn % 8 || d->symtab % 8 || d->rela % 8 || d->jmprel % 8 || d->hash % 4 || d->gnu_hash % 8 ||
      d->versym % 2 || d->verneed % 4 || d->verdef % 4 || d->init_array % 8 || d->fini_array % 8 ||
      d->pltgot % 8)
    return refuse(why, "a misaligned table");
  if (d->syment && d->syment != sizeof(Elf64_Sym))
    return refuse(why, "symbol entries of %llu bytes", (unsigned long long)d->syment);
  /* glibc asserts these whenever the tags appear */
  if (((seen >> DT_RELA & 1) && d->relaent != sizeof(Elf64_Rela)) ||
      ((seen >> DT_PLTREL & 1) && d->pltrel != DT_RELA))
    return refuse(why, "relocation tables that are not x86-64 RELA");
  if ((d->relasz && d->relaent != sizeof(Elf64_Rela)) || d->relasz % sizeof(Elf64_Rela) ||
      d->pltrelsz % sizeof(Elf64_Rela) || (d->pltrelsz && d->pltrel != DT_RELA) ||
      (d->relasz && !d->rela) || (d->pltrelsz && !d->jmprel))
    return refuse(why, "relocation tables that are not x86-64 RELA");
  if (d->relacount > d->relasz / sizeof(Elf64_Rela))
    return refuse(why, "more relative relocations than relocations");
  if (d->pltgot) { /* glibc writes its lazy-binding words there */
    const op2_elf_segment *s = op2_elf_segment_of(m, d->pltgot, 24);
    if (!s || !(s->flags & PF_W)) return refuse(why, "its PLT's GOT is outside the writable data");
    /* one call slot per call relocation: a slot without one keeps an address no one fixes */
    for (size_t i = 0; i < m->nsections; i++)
      if (m->sections[i].sh_addr == d->pltgot && m->sections[i].sh_type == SHT_PROGBITS &&
          m->sections[i].sh_size != 24 + d->pltrelsz / 3)
        return refuse(why, "its PLT's GOT has %llu bytes for %llu call relocations",
                      (unsigned long long)m->sections[i].sh_size,
                      (unsigned long long)(d->pltrelsz / sizeof(Elf64_Rela)));
  }
  if (d->strsz == 0 || d->strsz >= OP2_ELF_MAX_SPAN)
    return refuse(why, "its string table is out of bounds");
  return 0;
}

static int read_dynamic(op2_elf_image *m, uint64_t dyn, uint64_t dynsz, op2_elf_dynamic *d,
                        op2_jit_error *why) {
  if (!op2_elf_segment_of(m, dyn, dynsz) || dynsz % sizeof(Elf64_Dyn) != 0)
    return refuse(why, "its dynamic section is out of bounds");
  memset(d, 0, sizeof *d);
  const Elf64_Dyn *e = op2_elf_at(m, dyn);
  size_t n = dynsz / sizeof *e;
  other_tags o = {0};
  for (size_t i = 0; i < n && e[i].d_tag != DT_NULL; i++) {
    if (e[i].d_tag >= 0 && e[i].d_tag < 64) o.seen |= (uint64_t)1 << e[i].d_tag;
    size_t k = 0;
    while (k < sizeof stored_tags / sizeof *stored_tags && stored_tags[k].tag != e[i].d_tag) k++;
    if (k == sizeof stored_tags / sizeof *stored_tags) {
      if (other_tag(m, &e[i], d, &o, why) != 0) return OP2_ERR_JIT;
      continue;
    }
    memcpy((char *)d + stored_tags[k].at, &e[i].d_un.d_val, sizeof(uint64_t));
    if (stored_tags[k].seen_at >= 0) *(int *)(void *)((char *)d + stored_tags[k].seen_at) = 1;
  }
  if (check_tables(m, dyn, d, &o, why) != 0) return OP2_ERR_JIT;
  if (o.has_soname && string_tag(d, o.soname, "name", why) != 0) return OP2_ERR_JIT;
  for (int i = 0; i < o.npaths; i++)
    if (string_tag(d, o.paths[i], "library search path", why) != 0) return OP2_ERR_JIT;
  return 0;
}

typedef struct resolver {
  const op2_elf_image *m;
  const op2_elf_dynamic *d;
  const char *const *versions;
  void *needed[OP2_ELF_MAX_NEEDED];
} resolver;

/* A symbol's address the way glibc binds it for an object loaded RTLD_LOCAL: the global scope
 * first (it may interpose), then the object's own definition (checked to lie in its section,
 * elf_check.c), then its needed libraries. 0 with *found = 0 when nowhere; *own when the object's
 * own definition. */
static uintptr_t resolve(const resolver *r, size_t index, int *found, int *own) {
  const op2_elf_image *m = r->m;
  const Elf64_Sym *s = &m->syms[index];
  const char *name = m->str + s->st_name;
  *found = 1, *own = 0;
  int defined = s->st_shndx != SHN_UNDEF;
  if (defined && (ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
                  ELF64_ST_VISIBILITY(s->st_other) != STV_DEFAULT)) /* binds to itself */
    return *own = 1, m->base + s->st_value;
  const uint16_t *versym = r->d->has_versym ? op2_elf_at(m, r->d->versym) : NULL;
  unsigned ver = versym ? versym[index] & 0x7fff : 0;
  const char *version =
      !defined && ver >= 2 && ver < OP2_ELF_MAX_VERSIONS ? r->versions[ver] : NULL;
  void *p = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
  if (p) return (uintptr_t)p;
  if (defined) return *own = 1, m->base + s->st_value;
  for (int i = 0; i < r->d->nneeded; i++) {
    if (!r->needed[i]) continue;
    p = version ? dlvsym(r->needed[i], name, version) : dlsym(r->needed[i], name);
    if (p) return (uintptr_t)p;
  }
  *found = ELF64_ST_BIND(s->st_info) == STB_WEAK; /* a weak reference to nothing is 0 */
  return 0;
}

/* Thread-local and IFUNC relocations: glibc's to apply; checked as far as they can be. */
static int glibc_relocation(const resolver *r, const Elf64_Rela *rel, uint32_t type,
                            op2_jit_error *why) {
  op2_elf_image *m = (op2_elf_image *)r->m;
  uint64_t sym = ELF64_R_SYM(rel->r_info);
  if (sym >= m->nsyms)
    return refuse(why, "a relocation names symbol %llu of %zu", (unsigned long long)sym, m->nsyms);
  if (type == R_X86_64_IRELATIVE) {
    if (!op2_elf_function_start(m, (uint64_t)rel->r_addend))
      return refuse(why, "an IFUNC resolver is not a function of the object");
    op2_elf_needs_glibc(m, "it has IFUNC relocations");
    return 0;
  }
  if (!m->has_tls) return refuse(why, "a thread-local relocation without thread-local storage");
  const Elf64_Sym *s = &m->syms[sym];
  if (sym && s->st_shndx != SHN_UNDEF && ELF64_ST_TYPE(s->st_info) != STT_TLS)
    return refuse(why, "a thread-local relocation of symbol '%s', which is not thread-local",
                  m->str + s->st_name);
  op2_elf_needs_glibc(m, "it has thread-local storage");
  return 0;
}

/* A call slot of DT_JMPREL lies in the PLT's GOT, after its three reserved words, one slot per
 * relocation: moved elsewhere, the slot it leaves keeps a lazy-binding address no one fixes. */
static int in_plt_got(const op2_elf_dynamic *d, uint64_t off) {
  return !d->pltgot || (off >= d->pltgot + 24 && off - d->pltgot - 24 < d->pltrelsz / 3);
}

static int relocate(const resolver *r, uint64_t table, uint64_t size, uint64_t relative,
                    op2_jit_error *why) {
  const op2_elf_image *m = r->m;
  if (size == 0) return 0;
  if (size >= OP2_ELF_MAX_SPAN || !op2_elf_segment_of(m, table, size))
    return refuse(why, "relocations out of bounds");
  const Elf64_Rela *rel = op2_elf_at(m, table);
  for (uint64_t i = 0; i < size / sizeof *rel; i++) {
    uint32_t type = (uint32_t)ELF64_R_TYPE(rel[i].r_info);
    uint64_t sym = ELF64_R_SYM(rel[i].r_info);
    if (i < relative && type != R_X86_64_RELATIVE) /* glibc applies these as RELATIVE, asserting */
      return refuse(why, "relocation %llu is counted as relative and is not",
                    (unsigned long long)i);
    if (sym >= m->nsyms) /* glibc reads its symbol and version whatever the type */
      return refuse(why, "relocation %llu names symbol %llu of %zu", (unsigned long long)i,
                    (unsigned long long)sym, m->nsyms);
    if (type == R_X86_64_NONE) continue;
    const op2_elf_segment *s = op2_elf_segment_of(m, rel[i].r_offset, 8);
    if (!s || !(s->flags & PF_W))
      return refuse(why, "relocation %llu is outside the writable segments", (unsigned long long)i);
    if (rel[i].r_offset < m->dyn_vaddr + m->dyn_size && rel[i].r_offset + 8 > m->dyn_vaddr)
      return refuse(why, "relocation %llu writes into the dynamic section", (unsigned long long)i);
    void *where = op2_elf_at(m, rel[i].r_offset); /* maybe unaligned (a packed structure) */
    if (type == R_X86_64_RELATIVE) {
      if (!op2_elf_in_object(m, (uint64_t)rel[i].r_addend))
        return refuse(why, "relative relocation %llu points outside the object",
                      (unsigned long long)i);
      uint64_t v = m->base + (uint64_t)rel[i].r_addend;
      memcpy(where, &v, sizeof v);
      continue;
    }
    if (type == R_X86_64_IRELATIVE || type == R_X86_64_DTPMOD64 || type == R_X86_64_DTPOFF64 ||
        type == R_X86_64_TPOFF64 || type == R_X86_64_TLSDESC) {
      if (glibc_relocation(r, &rel[i], type, why) != 0) return OP2_ERR_JIT;
      continue;
    }
    if (type != R_X86_64_64 && type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT)
      return refuse(why, "relocation type %u is not one a library's loader applies", type);
    if (sym == 0 || sym >= m->nsyms)
      return refuse(why, "relocation %llu names no symbol", (unsigned long long)i);
    if (type != R_X86_64_64 && rel[i].r_addend != 0)
      return refuse(why, "a GOT relocation with an addend");
    if (type == R_X86_64_JUMP_SLOT && table == r->d->jmprel && !in_plt_got(r->d, rel[i].r_offset))
      return refuse(why, "call slot %llu is outside the PLT's GOT", (unsigned long long)i);
    const Elf64_Sym *target = &m->syms[sym];
    int ttype = ELF64_ST_TYPE(target->st_info);
    if (type == R_X86_64_JUMP_SLOT && ttype != STT_FUNC && ttype != STT_NOTYPE &&
        ttype != STT_GNU_IFUNC)
      return refuse(why, "call slot %llu names '%s', which is not a function",
                    (unsigned long long)i, m->str + target->st_name);
    if (ttype == STT_TLS)
      return refuse(why, "relocation %llu takes the address of a thread-local symbol",
                    (unsigned long long)i);
    if (ttype == STT_GNU_IFUNC) continue; /* glibc's: its resolver is called to bind it */
    int found, own;
    uintptr_t v = resolve(r, (size_t)sym, &found, &own);
    if (!found) return refuse(why, "undefined symbol: %s", m->str + target->st_name);
    /* the object's own definitions lie in their sections (elf_check.c); a call goes to code */
    if (own && type == R_X86_64_JUMP_SLOT) {
      const op2_elf_segment *code = op2_elf_segment_of(m, v - m->base, 1);
      if (!code || !(code->flags & PF_X))
        return refuse(why, "call slot %llu leads to '%s', which is not code", (unsigned long long)i,
                      m->str + target->st_name);
    }
    if (own && type == R_X86_64_64 &&
        !op2_elf_in_object(m, v - m->base + (uint64_t)rel[i].r_addend))
      return refuse(why, "relocation %llu points outside the object", (unsigned long long)i);
    uint64_t value = v + (type == R_X86_64_64 ? (uint64_t)rel[i].r_addend : 0);
    memcpy(where, &value, sizeof value);
  }
  return 0;
}

/* No two relocations write the same bytes, and a GOT slot is one aligned word: a relocation
 * moved onto another's slot, or half over it, leaves a call through that slot going astray
 * under any loader. */
static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int relocations_apart(const op2_elf_image *m, const op2_elf_dynamic *d, op2_jit_error *why) {
  size_t n = d->relasz / sizeof(Elf64_Rela) + d->pltrelsz / sizeof(Elf64_Rela);
  if (n == 0) return 0;
  uint64_t *ends = malloc(n * sizeof *ends); /* offset * 2 + (16-byte write) */
  if (!ends) return refuse(why, "out of memory");
  size_t k = 0;
  const uint64_t tables[2][2] = {{d->rela, d->relasz}, {d->jmprel, d->pltrelsz}};
  for (int t = 0; t < 2; t++) {
    const Elf64_Rela *rel = tables[t][1] ? op2_elf_at(m, tables[t][0]) : NULL;
    for (uint64_t i = 0; rel && i < tables[t][1] / sizeof *rel; i++) {
      uint32_t type = (uint32_t)ELF64_R_TYPE(rel[i].r_info);
      if (type == R_X86_64_NONE) continue;
      if ((type == R_X86_64_GLOB_DAT || type == R_X86_64_JUMP_SLOT) && rel[i].r_offset % 8) {
        free(ends);
        return refuse(why, "a GOT relocation at a misaligned offset");
      }
      ends[k++] = rel[i].r_offset * 2 + (type == R_X86_64_TLSDESC);
    }
  }
  qsort(ends, k, sizeof *ends, cmp_u64);
  for (size_t i = 1; i < k; i++)
    if (ends[i] / 2 - ends[i - 1] / 2 < (ends[i - 1] & 1 ? 16u : 8u)) {
      unsigned long long at = (unsigned long long)(ends[i] / 2);
      free(ends);
      return refuse(why, "two relocations write the same bytes (at 0x%llx)", at);
    }
  free(ends);
  return 0;
}

static int protect(const op2_elf_image *m, uint64_t relro, uint64_t relrosz) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < m->nsegs; i++) {
    const op2_elf_segment *s = &m->segs[i];
    uintptr_t lo = (m->base + (uintptr_t)s->vaddr) & ~(page - 1);
    uintptr_t hi = (m->base + (uintptr_t)(s->vaddr + s->memsz) + page - 1) & ~(page - 1);
    /* read_headers refused a segment both writable and executable */
    int prot = (s->flags & PF_R ? PROT_READ : 0) | (s->flags & PF_W ? PROT_WRITE : 0) |
               (s->flags & PF_X ? PROT_EXEC : 0);
    if (mprotect((void *)lo, hi - lo, prot) != 0) return -1;
  }
  if (relrosz) { /* glibc's rounding: the last partial page stays writable */
    uintptr_t lo = (m->base + (uintptr_t)relro) & ~(page - 1);
    uintptr_t hi = (m->base + (uintptr_t)(relro + relrosz)) & ~(page - 1);
    if (hi > lo && mprotect((void *)lo, hi - lo, PROT_READ) != 0) return -1;
  }
  return 0;
}

/* The init and fini functions and arrays: each entry the start of a function of the object's
 * code (a flipped addend that moves an entry inside a function is refused, not called). */
static int check_init_fini(op2_elf_image *m, const op2_elf_dynamic *d, op2_jit_error *why) {
  if ((d->has_init && !op2_elf_function_start(m, d->init)) ||
      (d->has_fini && !op2_elf_function_start(m, d->fini)))
    return refuse(why, "DT_INIT or DT_FINI is not a function of its code");
  const uint64_t arrays[2][2] = {{d->init_array, d->init_arraysz},
                                 {d->fini_array, d->fini_arraysz}};
  for (int a = 0; a < 2; a++) {
    if (!arrays[a][1]) continue;
    if (arrays[a][1] % 8 || arrays[a][1] >= OP2_ELF_MAX_SPAN ||
        !op2_elf_segment_of(m, arrays[a][0], arrays[a][1]))
      return refuse(why, "an init or fini array is out of bounds");
    const uintptr_t *f = op2_elf_at(m, arrays[a][0]);
    for (uint64_t i = 0; i < arrays[a][1] / 8; i++) /* glibc calls 0 and -1 too */
      if (f[i] < m->base || !op2_elf_function_start(m, f[i] - m->base))
        return refuse(why, "an init or fini array entry is not a function of its code");
  }
  return 0;
}

typedef void (*init_fn)(int argc, char **argv, char **env);

static void run_init(const op2_elf_image *m, const op2_elf_dynamic *d) {
  char *argv[1] = {NULL};
  if (d->has_init) ((init_fn)op2_elf_at(m, d->init))(0, argv, environ);
  const uintptr_t *f = d->init_arraysz ? op2_elf_at(m, d->init_array) : NULL;
  for (uint64_t i = 0; f && i < d->init_arraysz / 8; i++) ((init_fn)f[i])(0, argv, environ);
}

/* Checks the object and, with `run` and nothing needing glibc, makes it ready: protections set,
 * initialisers run. */
static int load(op2_elf_image *m, op2_elf_needed_fn needed, void *ctx, int run,
                op2_jit_error *why) {
  struct stat st;
  if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode)) return refuse(why, "not a regular file");
  m->file_size = (uint64_t)st.st_size;
  Elf64_Ehdr eh;
  Elf64_Phdr ph[OP2_ELF_MAX_PHDRS];
  if (read_headers(m, &eh, ph, why) != 0 || op2_elf_read_sections(m, &eh, why) != 0 ||
      op2_elf_check_sections(m, why) != 0 || map_segments(m, why) != 0)
    return OP2_ERR_JIT;
  uint64_t dyn, dynsz, relro, relrosz;
  op2_elf_dynamic d;
  const char *versions[OP2_ELF_MAX_VERSIONS];
  if (check_pointing_headers(m, &eh, ph, &dyn, &dynsz, &relro, &relrosz, why) != 0 ||
      (m->dyn_vaddr = dyn, m->dyn_size = dynsz, read_dynamic(m, dyn, dynsz, &d, why)) != 0 ||
      op2_elf_read_symbols(m, &d, why) != 0 || op2_elf_read_versions(m, &d, versions, why) != 0 ||
      op2_elf_check_symtab(m, why) != 0)
    return OP2_ERR_JIT;
  resolver r = {.m = m, .d = &d, .versions = versions};
  for (int i = 0; i < d.nneeded; i++) {
    const char *name = op2_elf_string_at(m, d.needed[i]);
    if (!name) return refuse(why, "a needed library has no name");
    /* C++ objects: their exception tables are found through glibc's list of objects */
    if (strstr(name, "libstdc++") || strstr(name, "libgcc_s"))
      op2_elf_needs_glibc(m, "it needs the C++ runtime (%s)", name);
    if (!(r.needed[i] = needed(ctx, name)))
      return refuse(why, "its library %s cannot be loaded", name);
  }
  if (relocate(&r, d.rela, d.relasz, d.relacount, why) != 0 ||
      relocate(&r, d.jmprel, d.pltrelsz, 0, why) != 0 || /* both tables in bounds: */
      relocations_apart(m, &d, why) != 0 || check_init_fini(m, &d, why) != 0)
    return OP2_ERR_JIT;
  if (!run || m->verdict->glibc_only) return 0;
  if (protect(m, relro, relrosz) != 0) return refuse(why, "cannot set page protections");
  m->fini = d.has_fini ? d.fini : 0, m->fini_array = d.fini_array,
  m->fini_count = d.fini_arraysz / 8;
  run_init(m, &d);
  return 0;
}

int op2_elf_load(int fd, op2_elf_needed_fn needed, void *needed_ctx, op2_elf_image **out,
                 op2_elf_verdict *v, op2_jit_error *why) {
  if (out) *out = NULL;
  memset(v, 0, sizeof *v);
  op2_elf_image *m = calloc(1, sizeof *m);
  if (!m) return refuse(why, "out of memory");
  m->fd = fd;
  m->verdict = v;
  int rc = load(m, needed, needed_ctx, out != NULL, why);
  free(m->sections), free(m->symtab), free(m->symstr);
  m->sections = NULL, m->symtab = NULL, m->symstr = NULL, m->fd = -1, m->verdict = NULL;
  if (rc != OP2_OK || !out || v->glibc_only) {
    if (m->map) munmap(m->map, m->map_len);
    free(m);
    return rc;
  }
  *out = m;
  return OP2_OK;
}

void *op2_elf_symbol(const op2_elf_image *m, const char *name, size_t *bytes) {
  if (bytes) *bytes = 0;
  for (size_t i = 1; i < m->nsyms; i++) {
    const Elf64_Sym *s = &m->syms[i];
    if (s->st_shndx == SHN_UNDEF || ELF64_ST_BIND(s->st_info) == STB_LOCAL ||
        strcmp(m->str + s->st_name, name) != 0)
      continue;
    if (bytes) *bytes = (size_t)s->st_size;
    return op2_elf_at(m, s->st_value); /* in its section and a segment: elf_check.c */
  }
  return NULL;
}

void op2_elf_unload(op2_elf_image *m) {
  if (!m) return;
  const uintptr_t *f = m->fini_count ? op2_elf_at(m, m->fini_array) : NULL;
  for (uint64_t i = m->fini_count; f && i-- > 0;) ((void (*)(void))f[i])();
  if (m->fini) ((void (*)(void))op2_elf_at(m, m->fini))();
  munmap(m->map, m->map_len);
  free(m);
}
