/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader (elf_load.h). What a kernel object needs, and all this file does: its
 * PT_LOAD segments mapped from the file at one base, .bss zeroed, the x86-64 relocations a
 * position-independent object carries (RELATIVE, 64, GLOB_DAT, JUMP_SLOT, NONE) applied with
 * symbols resolved as glibc would (the global scope, then the object itself, then its own
 * DT_NEEDED libraries; versioned references through dlvsym), page protections set (RELRO
 * included), DT_INIT and DT_INIT_ARRAY run. Every offset, size and address read from the file is
 * checked against the file or the segments before use. Anything else (thread-local storage,
 * IFUNC, text relocations, other relocation types or machines, the C++ runtime, whose exception
 * tables only glibc registers) is "not understood": the caller loads that object with dlopen. */
#include "elf_load.h"

#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

enum {
  MAX_PHDRS = 32,
  MAX_SEGS = 8,
  MAX_NEEDED = 16,
  MAX_VERSIONS = 64,
};
/* Far larger than any kernel object; keeps every sum of two checked values from overflowing. */
#define MAX_SPAN ((uint64_t)1 << 40)

typedef struct segment {
  uint64_t vaddr, memsz, filesz, offset;
  uint32_t flags;
} segment;

struct op2_elf_image {
  unsigned char *map; /* the reserved span */
  size_t map_len;
  uintptr_t base; /* the object's address 0 */
  segment segs[MAX_SEGS];
  int nsegs;
  const Elf64_Sym *syms;
  size_t nsyms;
  const char *str;
  size_t strsz;
  uint64_t fini, fini_array, fini_count;
};

/* What the dynamic section says (addresses are the object's, not yet biased). */
typedef struct dynamic {
  uint64_t strtab, strsz, symtab, syment, hash, gnu_hash;
  uint64_t rela, relasz, relaent, jmprel, pltrelsz, pltrel;
  uint64_t init, init_array, init_arraysz, fini, fini_array, fini_arraysz;
  uint64_t versym, verneed, verneednum;
  uint64_t needed[MAX_NEEDED];
  int nneeded;
} dynamic;

/* Not understood or refused: OP2_ERR_JIT, with what and where in *why. */
#define refuse(why, ...) op2_jit_error_set((why), OP2_ERR_JIT, __VA_ARGS__)

/* The segment holding [v, v+len), or NULL. */
static const segment *segment_of(const op2_elf_image *m, uint64_t v, uint64_t len) {
  for (int i = 0; i < m->nsegs; i++) {
    const segment *s = &m->segs[i];
    if (v >= s->vaddr && len <= s->memsz && v - s->vaddr <= s->memsz - len) return s;
  }
  return NULL;
}

static void *at(const op2_elf_image *m, uint64_t v) {
  return (void *)(m->base + (uintptr_t)v);
}

/* The NUL-terminated string at `off` of the string table, or NULL. */
static const char *string_at(const op2_elf_image *m, uint64_t off) {
  if (off >= m->strsz) return NULL;
  return memchr(m->str + off, 0, m->strsz - off) ? m->str + off : NULL;
}

static int read_exact(int fd, void *buf, size_t len, uint64_t off) {
  return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The ELF header and program headers: the segments, the dynamic section, RELRO. */
static int read_headers(int fd, uint64_t size, op2_elf_image *m, uint64_t *dyn, uint64_t *dynsz,
                        uint64_t *relro, uint64_t *relrosz, op2_jit_error *why) {
  Elf64_Ehdr eh;
  if (size < sizeof eh || read_exact(fd, &eh, sizeof eh, 0) != 0)
    return refuse(why, "shorter than an ELF header");
  if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0) return refuse(why, "not an ELF file");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB ||
      eh.e_ident[EI_VERSION] != EV_CURRENT || eh.e_machine != EM_X86_64)
    return refuse(why, "not a 64-bit little-endian x86-64 object");
  if (eh.e_type != ET_DYN) return refuse(why, "not a shared object");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0 || eh.e_phnum > MAX_PHDRS ||
      eh.e_phoff >= size || size - eh.e_phoff < (uint64_t)eh.e_phnum * sizeof(Elf64_Phdr))
    return refuse(why, "its program headers are out of bounds");
  Elf64_Phdr ph[MAX_PHDRS];
  if (read_exact(fd, ph, eh.e_phnum * sizeof *ph, eh.e_phoff) != 0)
    return refuse(why, "its program headers cannot be read");
  uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
  *dyn = *dynsz = *relro = *relrosz = 0;
  for (int i = 0; i < eh.e_phnum; i++) {
    const Elf64_Phdr *p = &ph[i];
    if (p->p_type == PT_LOAD) {
      if (m->nsegs == MAX_SEGS) return refuse(why, "more than %d segments", MAX_SEGS);
      if (p->p_filesz > p->p_memsz || p->p_memsz == 0 || p->p_vaddr >= MAX_SPAN ||
          p->p_memsz >= MAX_SPAN || p->p_offset > size || size - p->p_offset < p->p_filesz)
        return refuse(why, "segment %d is out of bounds", i);
      if (p->p_memsz > p->p_filesz && !(p->p_flags & PF_W)) /* zeroes in code: a cut file */
        return refuse(why, "read-only segment %d is longer than its file part", i);
      if (p->p_vaddr % page != p->p_offset % page)
        return refuse(why, "segment %d is not page-aligned with its file offset", i);
      if (m->nsegs > 0) {
        const segment *prev = &m->segs[m->nsegs - 1];
        uint64_t prev_end = (prev->vaddr + prev->memsz + page - 1) & ~(page - 1);
        if ((p->p_vaddr & ~(page - 1)) < prev_end)
          return refuse(why, "segment %d shares a page with the one before it", i);
      }
      m->segs[m->nsegs++] = (segment){p->p_vaddr, p->p_memsz, p->p_filesz, p->p_offset, p->p_flags};
    } else if (p->p_type == PT_DYNAMIC) {
      *dyn = p->p_vaddr, *dynsz = p->p_memsz;
    } else if (p->p_type == PT_GNU_RELRO) {
      *relro = p->p_vaddr, *relrosz = p->p_memsz;
    } else if (p->p_type == PT_TLS) {
      return refuse(why, "it has thread-local storage");
    } else if (p->p_type == PT_INTERP) {
      return refuse(why, "it is a program, not a library");
    } else if (p->p_type == PT_GNU_STACK && (p->p_flags & PF_X)) {
      return refuse(why, "it asks for an executable stack");
    }
  }
  if (m->nsegs == 0 || *dynsz == 0) return refuse(why, "no segments or no dynamic section");
  return 0;
}

/* Reserves the whole span, then maps each segment's file part over it and zeroes the rest. All
 * writable for now: relocations are applied before the final protections. */
static int map_segments(int fd, op2_elf_image *m, op2_jit_error *why) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uint64_t lo = m->segs[0].vaddr & ~(uint64_t)(page - 1);
  const segment *last = &m->segs[m->nsegs - 1];
  uint64_t hi = (last->vaddr + last->memsz + page - 1) & ~(uint64_t)(page - 1);
  void *span = mmap(NULL, hi - lo, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (span == MAP_FAILED)
    return refuse(why, "cannot reserve %llu bytes", (unsigned long long)(hi - lo));
  m->map = span, m->map_len = hi - lo;
  m->base = (uintptr_t)span - (uintptr_t)lo;
  for (int i = 0; i < m->nsegs; i++) {
    const segment *s = &m->segs[i];
    uintptr_t start = m->base + (uintptr_t)(s->vaddr & ~(uint64_t)(page - 1));
    uintptr_t file_end = m->base + (uintptr_t)(s->vaddr + s->filesz);
    uintptr_t mem_end = m->base + (uintptr_t)(s->vaddr + s->memsz);
    uintptr_t zero_from = start; /* where anonymous pages begin */
    if (s->filesz > 0) {
      void *p = mmap((void *)start, file_end - start, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_FIXED, fd, (off_t)(s->offset & ~(uint64_t)(page - 1)));
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

static int read_dynamic(op2_elf_image *m, uint64_t dyn, uint64_t dynsz, dynamic *d,
                        op2_jit_error *why) {
  if (!segment_of(m, dyn, dynsz) || dynsz % sizeof(Elf64_Dyn) != 0)
    return refuse(why, "its dynamic section is out of bounds");
  memset(d, 0, sizeof *d);
  const Elf64_Dyn *e = at(m, dyn);
  size_t n = dynsz / sizeof *e;
  uint64_t flags = 0;
  for (size_t i = 0; i < n && e[i].d_tag != DT_NULL; i++) {
    uint64_t v = e[i].d_un.d_val;
    switch (e[i].d_tag) {
      case DT_NEEDED:
        if (d->nneeded == MAX_NEEDED)
          return refuse(why, "more than %d needed libraries", MAX_NEEDED);
        d->needed[d->nneeded++] = v;
        break;
      case DT_STRTAB:
        d->strtab = v;
        break;
      case DT_STRSZ:
        d->strsz = v;
        break;
      case DT_SYMTAB:
        d->symtab = v;
        break;
      case DT_SYMENT:
        d->syment = v;
        break;
      case DT_HASH:
        d->hash = v;
        break;
      case DT_GNU_HASH:
        d->gnu_hash = v;
        break;
      case DT_RELA:
        d->rela = v;
        break;
      case DT_RELASZ:
        d->relasz = v;
        break;
      case DT_RELAENT:
        d->relaent = v;
        break;
      case DT_JMPREL:
        d->jmprel = v;
        break;
      case DT_PLTRELSZ:
        d->pltrelsz = v;
        break;
      case DT_PLTREL:
        d->pltrel = v;
        break;
      case DT_INIT:
        d->init = v;
        break;
      case DT_FINI:
        d->fini = v;
        break;
      case DT_INIT_ARRAY:
        d->init_array = v;
        break;
      case DT_INIT_ARRAYSZ:
        d->init_arraysz = v;
        break;
      case DT_FINI_ARRAY:
        d->fini_array = v;
        break;
      case DT_FINI_ARRAYSZ:
        d->fini_arraysz = v;
        break;
      case DT_VERSYM:
        d->versym = v;
        break;
      case DT_VERNEED:
        d->verneed = v;
        break;
      case DT_VERNEEDNUM:
        d->verneednum = v;
        break;
      case DT_FLAGS:
        flags = v;
        break;
      /* what needs nothing done, or what ld.so does only for others' benefit */
      case DT_PLTGOT:
      case DT_SONAME:
      case DT_DEBUG:
      case DT_BIND_NOW:
      case DT_RELACOUNT:
      case DT_FLAGS_1:
      case DT_VERDEF:
      case DT_VERDEFNUM:
      case DT_GNU_PRELINKED:
        break;
      default:
        return refuse(why, "dynamic tag 0x%llx is not understood", (unsigned long long)e[i].d_tag);
    }
  }
  if (flags & (DF_TEXTREL | DF_STATIC_TLS | DF_SYMBOLIC))
    return refuse(why, "dynamic flags 0x%llx are not understood", (unsigned long long)flags);
  if (!d->strtab || !d->symtab || (!d->hash && !d->gnu_hash))
    return refuse(why, "no symbol, string or hash table");
  /* tables read in place: aligned as the ABI lays them out */
  if (dyn % 8 || d->symtab % 8 || d->rela % 8 || d->jmprel % 8 || d->hash % 4 || d->gnu_hash % 8 ||
      d->versym % 2 || d->verneed % 4 || d->init_array % 8 || d->fini_array % 8)
    return refuse(why, "a misaligned table");
  if (d->verneednum > MAX_VERSIONS)
    return refuse(why, "%llu needed-version entries", (unsigned long long)d->verneednum);
  if (d->syment && d->syment != sizeof(Elf64_Sym))
    return refuse(why, "symbol entries of %llu bytes", (unsigned long long)d->syment);
  if ((d->relasz && d->relaent != sizeof(Elf64_Rela)) || d->relasz % sizeof(Elf64_Rela) ||
      d->pltrelsz % sizeof(Elf64_Rela) || (d->pltrelsz && d->pltrel != DT_RELA))
    return refuse(why, "relocation tables that are not x86-64 RELA");
  return 0;
}

/* The number of dynamic symbols, from the SysV hash table's chain count or by walking the GNU
 * one to its last chain's end. */
static int count_symbols(const op2_elf_image *m, const dynamic *d, size_t *nsyms,
                         op2_jit_error *why) {
  if (d->hash) {
    if (!segment_of(m, d->hash, 8)) return refuse(why, "its hash table is out of bounds");
    const uint32_t *h = at(m, d->hash);
    if (!segment_of(m, d->hash, 8 + 4 * ((uint64_t)h[0] + h[1])))
      return refuse(why, "its hash table is out of bounds");
    *nsyms = h[1];
    return 0;
  }
  if (!segment_of(m, d->gnu_hash, 16)) return refuse(why, "its GNU hash is out of bounds");
  const uint32_t *h = at(m, d->gnu_hash);
  uint64_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
  uint64_t buckets = d->gnu_hash + 16 + 8 * bloom;
  if (bloom >= MAX_SPAN || !segment_of(m, buckets, 4 * nbuckets))
    return refuse(why, "its GNU hash is out of bounds");
  const uint32_t *b = at(m, buckets);
  uint64_t top = 0;
  for (uint64_t i = 0; i < nbuckets; i++)
    if (b[i] > top) top = b[i];
  if (top < symoffset) return *nsyms = symoffset, 0;
  uint64_t chain = buckets + 4 * nbuckets;
  for (uint64_t i = top;; i++) {
    if (!segment_of(m, chain + 4 * (i - symoffset), 4))
      return refuse(why, "its GNU hash chain is out of bounds");
    if (*(const uint32_t *)at(m, chain + 4 * (i - symoffset)) & 1) return *nsyms = i + 1, 0;
  }
}

static int read_symbols(op2_elf_image *m, const dynamic *d, op2_jit_error *why) {
  if (!segment_of(m, d->strtab, d->strsz) || d->strsz == 0)
    return refuse(why, "its string table is out of bounds");
  m->str = at(m, d->strtab), m->strsz = d->strsz;
  if (count_symbols(m, d, &m->nsyms, why) != 0) return OP2_ERR_JIT;
  if (m->nsyms >= MAX_SPAN / sizeof(Elf64_Sym) ||
      !segment_of(m, d->symtab, m->nsyms * sizeof(Elf64_Sym)))
    return refuse(why, "its symbol table is out of bounds");
  m->syms = at(m, d->symtab);
  for (size_t i = 0; i < m->nsyms; i++) {
    const Elf64_Sym *s = &m->syms[i];
    int type = ELF64_ST_TYPE(s->st_info);
    if (type == STT_TLS || type == STT_GNU_IFUNC)
      return refuse(why, "symbol %zu is thread-local or an IFUNC", i);
    if (!string_at(m, s->st_name)) return refuse(why, "symbol %zu has no name", i);
    if (s->st_shndx != SHN_UNDEF && s->st_shndx != SHN_ABS && s->st_shndx < SHN_LORESERVE &&
        !segment_of(m, s->st_value, s->st_size))
      return refuse(why, "symbol '%s' lies outside the object", m->str + s->st_name);
  }
  return 0;
}

/* Names of the versions the object's undefined symbols ask for (DT_VERNEED), by index. */
static int read_versions(const op2_elf_image *m, const dynamic *d, const char **names,
                         op2_jit_error *why) {
  memset(names, 0, MAX_VERSIONS * sizeof *names);
  if (d->versym && !segment_of(m, d->versym, 2 * (uint64_t)m->nsyms))
    return refuse(why, "its version table is out of bounds");
  uint64_t v = d->verneed;
  for (uint64_t i = 0; i < d->verneednum; i++) {
    if (v % 4 || !segment_of(m, v, sizeof(Elf64_Verneed)))
      return refuse(why, "its needed versions are out of bounds");
    const Elf64_Verneed *vn = at(m, v);
    uint64_t a = v + vn->vn_aux;
    for (unsigned k = 0; k < vn->vn_cnt; k++) {
      if (a % 4 || !segment_of(m, a, sizeof(Elf64_Vernaux)))
        return refuse(why, "its needed versions are out of bounds");
      const Elf64_Vernaux *aux = at(m, a);
      unsigned idx = aux->vna_other & 0x7fff;
      if (idx >= MAX_VERSIONS || !string_at(m, aux->vna_name))
        return refuse(why, "needed version %u is not understood", idx);
      names[idx] = m->str + aux->vna_name;
      a += aux->vna_next;
    }
    v += vn->vn_next;
  }
  return 0;
}

typedef struct resolver {
  const op2_elf_image *m;
  const dynamic *d;
  const char *const *versions;
  void *needed[MAX_NEEDED];
} resolver;

/* A symbol's address the way glibc binds it for an object loaded RTLD_LOCAL: the global scope
 * first (it may interpose), then the object's own definition, then its needed libraries. 0 with
 * *found = 0 when nowhere. */
static uintptr_t resolve(const resolver *r, size_t index, int *found) {
  const op2_elf_image *m = r->m;
  const Elf64_Sym *s = &m->syms[index];
  const char *name = m->str + s->st_name;
  *found = 1;
  int defined = s->st_shndx != SHN_UNDEF;
  if (defined && ELF64_ST_BIND(s->st_info) == STB_LOCAL)
    return s->st_shndx == SHN_ABS ? s->st_value : m->base + s->st_value;
  const uint16_t *versym = r->d->versym ? at(m, r->d->versym) : NULL;
  unsigned ver = versym ? versym[index] & 0x7fff : 0;
  const char *version = !defined && ver >= 2 && ver < MAX_VERSIONS ? r->versions[ver] : NULL;
  void *p = version ? dlvsym(RTLD_DEFAULT, name, version) : dlsym(RTLD_DEFAULT, name);
  if (p) return (uintptr_t)p;
  if (defined) return s->st_shndx == SHN_ABS ? s->st_value : m->base + s->st_value;
  for (int i = 0; i < r->d->nneeded; i++) {
    if (!r->needed[i]) continue;
    p = version ? dlvsym(r->needed[i], name, version) : dlsym(r->needed[i], name);
    if (p) return (uintptr_t)p;
  }
  *found = ELF64_ST_BIND(s->st_info) == STB_WEAK; /* a weak reference to nothing is 0 */
  return 0;
}

static int relocate(const resolver *r, uint64_t table, uint64_t size, op2_jit_error *why) {
  const op2_elf_image *m = r->m;
  if (size == 0) return 0;
  if (!segment_of(m, table, size)) return refuse(why, "relocations out of bounds");
  const Elf64_Rela *rel = at(m, table);
  for (uint64_t i = 0; i < size / sizeof *rel; i++) {
    uint32_t type = (uint32_t)ELF64_R_TYPE(rel[i].r_info);
    uint64_t sym = ELF64_R_SYM(rel[i].r_info);
    if (type == R_X86_64_NONE) continue;
    const segment *s = segment_of(m, rel[i].r_offset, 8);
    if (!s || !(s->flags & PF_W))
      return refuse(why, "relocation %llu is outside the writable segments", (unsigned long long)i);
    void *where = at(m, rel[i].r_offset); /* maybe unaligned (a packed structure) */
    if (type == R_X86_64_RELATIVE) {
      uint64_t v = m->base + (uint64_t)rel[i].r_addend;
      memcpy(where, &v, sizeof v);
      continue;
    }
    if (type != R_X86_64_64 && type != R_X86_64_GLOB_DAT && type != R_X86_64_JUMP_SLOT)
      return refuse(why, "relocation type %u is not understood", type);
    if (sym == 0 || sym >= m->nsyms)
      return refuse(why, "relocation %llu names no symbol", (unsigned long long)i);
    if (type != R_X86_64_64 && rel[i].r_addend != 0)
      return refuse(why, "a GOT relocation with an addend");
    int found;
    uintptr_t v = resolve(r, (size_t)sym, &found);
    if (!found) return refuse(why, "undefined symbol: %s", m->str + m->syms[sym].st_name);
    uint64_t value = v + (type == R_X86_64_64 ? (uint64_t)rel[i].r_addend : 0);
    memcpy(where, &value, sizeof value);
  }
  return 0;
}

static int protect(const op2_elf_image *m, uint64_t relro, uint64_t relrosz) {
  uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  for (int i = 0; i < m->nsegs; i++) {
    const segment *s = &m->segs[i];
    uintptr_t lo = (m->base + (uintptr_t)s->vaddr) & ~(page - 1);
    uintptr_t hi = (m->base + (uintptr_t)(s->vaddr + s->memsz) + page - 1) & ~(page - 1);
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

static int is_code(const op2_elf_image *m, uintptr_t addr) {
  if (addr < m->base) return 0;
  const segment *s = segment_of(m, addr - m->base, 1);
  return s && (s->flags & PF_X);
}

/* The init and fini functions and arrays: pointers into the object's code only. */
static int check_init_fini(const op2_elf_image *m, const dynamic *d, op2_jit_error *why) {
  if ((d->init && !is_code(m, m->base + d->init)) || (d->fini && !is_code(m, m->base + d->fini)))
    return refuse(why, "DT_INIT or DT_FINI is outside its code");
  const uint64_t arrays[2][2] = {{d->init_array, d->init_arraysz},
                                 {d->fini_array, d->fini_arraysz}};
  for (int a = 0; a < 2; a++) {
    if (!arrays[a][1]) continue;
    if (arrays[a][1] % 8 || !segment_of(m, arrays[a][0], arrays[a][1]))
      return refuse(why, "an init or fini array is out of bounds");
    const uintptr_t *f = at(m, arrays[a][0]);
    for (uint64_t i = 0; i < arrays[a][1] / 8; i++)
      if (f[i] != 0 && f[i] != (uintptr_t)-1 && !is_code(m, f[i]))
        return refuse(why, "an init or fini array entry is outside its code");
  }
  return 0;
}

typedef void (*init_fn)(int argc, char **argv, char **env);

static void run_init(const op2_elf_image *m, const dynamic *d) {
  char *argv[1] = {NULL};
  if (d->init) ((init_fn)at(m, d->init))(0, argv, environ);
  const uintptr_t *f = d->init_arraysz ? at(m, d->init_array) : NULL;
  for (uint64_t i = 0; f && i < d->init_arraysz / 8; i++)
    if (f[i] != 0 && f[i] != (uintptr_t)-1) ((init_fn)f[i])(0, argv, environ);
}

static int load(int fd, op2_elf_needed_fn needed, void *ctx, op2_elf_image *m, op2_jit_error *why) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return refuse(why, "not a regular file");
  uint64_t dyn = 0, dynsz = 0, relro = 0, relrosz = 0;
  if (read_headers(fd, (uint64_t)st.st_size, m, &dyn, &dynsz, &relro, &relrosz, why))
    return OP2_ERR_JIT;
  if (relrosz && !segment_of(m, relro, relrosz))
    return refuse(why, "its RELRO range is out of bounds");
  if (map_segments(fd, m, why) != 0) return OP2_ERR_JIT;
  dynamic d;
  const char *versions[MAX_VERSIONS];
  if (read_dynamic(m, dyn, dynsz, &d, why) != 0 || read_symbols(m, &d, why) != 0 ||
      read_versions(m, &d, versions, why) != 0)
    return OP2_ERR_JIT;
  resolver r = {.m = m, .d = &d, .versions = versions};
  for (int i = 0; i < d.nneeded; i++) {
    const char *name = string_at(m, d.needed[i]);
    if (!name) return refuse(why, "a needed library has no name");
    /* C++ objects: their exception tables are found through glibc's list of objects */
    if (strstr(name, "libstdc++") || strstr(name, "libgcc_s"))
      return refuse(why, "it needs the C++ runtime (%s)", name);
    if (!(r.needed[i] = needed(ctx, name)))
      return refuse(why, "its library %s cannot be loaded", name);
  }
  if (relocate(&r, d.rela, d.relasz, why) != 0 || relocate(&r, d.jmprel, d.pltrelsz, why) != 0 ||
      check_init_fini(m, &d, why) != 0)
    return OP2_ERR_JIT;
  if (protect(m, relro, relrosz) != 0) return refuse(why, "cannot set page protections");
  m->fini = d.fini, m->fini_array = d.fini_array, m->fini_count = d.fini_arraysz / 8;
  run_init(m, &d);
  return 0;
}

int op2_elf_load(int fd, op2_elf_needed_fn needed, void *needed_ctx, op2_elf_image **out,
                 op2_jit_error *why) {
  *out = NULL;
  op2_elf_image *m = calloc(1, sizeof *m);
  if (!m) return refuse(why, "out of memory");
  int rc = load(fd, needed, needed_ctx, m, why);
  if (rc != OP2_OK) {
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
    return s->st_shndx == SHN_ABS ? (void *)(uintptr_t)s->st_value : at(m, s->st_value);
  }
  return NULL;
}

void op2_elf_unload(op2_elf_image *m) {
  if (!m) return;
  const uintptr_t *f = m->fini_count ? at(m, m->fini_array) : NULL;
  for (uint64_t i = m->fini_count; f && i-- > 0;)
    if (f[i] != 0 && f[i] != (uintptr_t)-1) ((void (*)(void))f[i])();
  if (m->fini) ((void (*)(void))at(m, m->fini))();
  munmap(m->map, m->map_len);
  free(m);
}
