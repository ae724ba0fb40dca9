/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader's checks of an object's tables (elf_image.h): its section headers, the
 * dynamic symbols (each in the section it names, and a function in code), the hash tables glibc
 * looks symbols up through, the version tables, the notes, and which addresses start a function.
 * What glibc's loader reads without checking is checked here, so that an object it would crash on
 * is refused before anything loads it. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jit/elf_image.h"

static int read_exact(int fd, void *buf, size_t len, uint64_t off) {
  return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

void op2_elf_needs_glibc(op2_elf_image *m, const char *fmt, ...) {
  if (m->verdict->glibc_only) return;
  m->verdict->glibc_only = 1;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(m->verdict->reason, sizeof m->verdict->reason, fmt, ap);
  va_end(ap);
}

const op2_elf_segment *op2_elf_segment_of(const op2_elf_image *m, uint64_t v, uint64_t len) {
  for (int i = 0; i < m->nsegs; i++) {
    const op2_elf_segment *s = &m->segs[i];
    if (v >= s->vaddr && len <= s->memsz && v - s->vaddr <= s->memsz - len) return s;
  }
  return NULL;
}

int op2_elf_in_object(const op2_elf_image *m, uint64_t v) {
  return op2_elf_segment_of(m, v, 0) != NULL;
}

const char *op2_elf_string_at(const op2_elf_image *m, uint64_t off) {
  if (off >= m->strsz) return NULL;
  return memchr(m->str + off, 0, m->strsz - off) ? m->str + off : NULL;
}

/* Every section header, from the file. Neither loader needs them to map the object, but the
 * library's objects always have them, and they say what each symbol's section index means. */
int op2_elf_read_sections(op2_elf_image *m, const Elf64_Ehdr *eh, op2_jit_error *why) {
  if (eh->e_shnum == 0 || eh->e_shoff == 0)
    return op2_elf_refuse(why, "it has no section headers (the library's objects all do)");
  if (eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shnum > OP2_ELF_MAX_SECTIONS ||
      eh->e_shoff >= m->file_size ||
      m->file_size - eh->e_shoff < (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr))
    return op2_elf_refuse(why, "its section headers are out of bounds");
  m->sections = malloc(eh->e_shnum * sizeof(Elf64_Shdr));
  if (!m->sections) return op2_elf_refuse(why, "out of memory");
  m->nsections = eh->e_shnum;
  if (read_exact(m->fd, m->sections, eh->e_shnum * sizeof(Elf64_Shdr), eh->e_shoff) != 0)
    return op2_elf_refuse(why, "its section headers cannot be read");
  return 0;
}

int op2_elf_check_sections(const op2_elf_image *m, op2_jit_error *why) {
  for (size_t i = 1; i < m->nsections; i++) {
    const Elf64_Shdr *sh = &m->sections[i];
    if (!(sh->sh_flags & SHF_ALLOC) || sh->sh_size == 0 ||
        (sh->sh_type == SHT_NOBITS && (sh->sh_flags & SHF_TLS)))
      continue;
    const op2_elf_segment *s =
        sh->sh_size < OP2_ELF_MAX_SPAN ? op2_elf_segment_of(m, sh->sh_addr, sh->sh_size) : NULL;
    if (!s) return op2_elf_refuse(why, "section %zu lies outside the segments", i);
    if (sh->sh_type != SHT_NOBITS &&
        (sh->sh_offset < s->offset || sh->sh_offset - s->offset != sh->sh_addr - s->vaddr ||
         sh->sh_addr - s->vaddr + sh->sh_size > s->filesz))
      return op2_elf_refuse(why, "section %zu is not where its segment maps the file", i);
  }
  return 0;
}

/* A note segment (PT_NOTE, PT_GNU_PROPERTY), which glibc walks note by note: inside a segment,
 * and every note's name and description inside it. */
int op2_elf_check_notes(const op2_elf_image *m, const Elf64_Phdr *p, op2_jit_error *why) {
  if (p->p_memsz == 0) return 0;
  if (p->p_memsz >= OP2_ELF_MAX_SPAN || !op2_elf_segment_of(m, p->p_vaddr, p->p_memsz))
    return op2_elf_refuse(why, "a note segment is out of bounds");
  uint64_t align = p->p_align == 8 ? 8 : 4;
  const unsigned char *notes = op2_elf_at(m, p->p_vaddr);
  for (uint64_t at = 0; at < p->p_memsz;) {
    Elf64_Nhdr n;
    if (p->p_memsz - at < sizeof n) return op2_elf_refuse(why, "a note is cut short");
    memcpy(&n, notes + at, sizeof n);
    uint64_t name = ((uint64_t)n.n_namesz + align - 1) & ~(align - 1);
    uint64_t desc = ((uint64_t)n.n_descsz + align - 1) & ~(align - 1);
    if (name + desc > p->p_memsz - at - sizeof n)
      return op2_elf_refuse(why, "a note runs past its segment");
    at += sizeof n + name + desc;
  }
  return 0;
}

/* ---- the hash tables ---- */

/* The SysV table: every bucket and chain entry a symbol index below its chain count. */
static int sysv_hash(const op2_elf_image *m, const op2_elf_dynamic *d, size_t *nsyms,
                     op2_jit_error *why) {
  if (!op2_elf_segment_of(m, d->hash, 8))
    return op2_elf_refuse(why, "its hash table is out of bounds");
  const uint32_t *h = op2_elf_at(m, d->hash);
  uint64_t nbucket = h[0], nchain = h[1];
  if (!op2_elf_segment_of(m, d->hash, 8 + 4 * (nbucket + nchain)))
    return op2_elf_refuse(why, "its hash table is out of bounds");
  if (nbucket == 0 || nchain == 0) /* glibc divides by the bucket count */
    return op2_elf_refuse(why, "its hash table is empty");
  for (uint64_t i = 0; i < nbucket + nchain; i++)
    if (h[2 + i] >= nchain)
      return op2_elf_refuse(why, "its hash table names symbol %u of %llu", h[2 + i],
                            (unsigned long long)nchain);
  /* every chain ends: glibc follows one until it reaches 0, forever around a loop */
  const uint32_t *bucket = h + 2, *chain = h + 2 + nbucket;
  for (uint64_t b = 0; b < nbucket; b++) {
    uint64_t steps = 0;
    for (uint32_t i = bucket[b]; i != 0; i = chain[i])
      if (++steps > nchain) return op2_elf_refuse(why, "its hash table has a chain that loops");
  }
  *nsyms = nchain;
  return 0;
}

/* The GNU table: a power-of-two Bloom filter, buckets naming symbols past the unhashed ones, and
 * the symbol count read off the last chain's end. */
static int gnu_hash(const op2_elf_image *m, const op2_elf_dynamic *d, size_t *nsyms,
                    op2_jit_error *why) {
  if (!op2_elf_segment_of(m, d->gnu_hash, 16))
    return op2_elf_refuse(why, "its GNU hash is out of bounds");
  const uint32_t *h = op2_elf_at(m, d->gnu_hash);
  uint64_t nbuckets = h[0], symoffset = h[1], bloom = h[2];
  if (nbuckets == 0 || bloom == 0 || (bloom & (bloom - 1)) != 0) /* glibc asserts and divides */
    return op2_elf_refuse(why, "its GNU hash has %llu buckets and %llu filter words",
                          (unsigned long long)nbuckets, (unsigned long long)bloom);
  uint64_t buckets = d->gnu_hash + 16 + 8 * bloom;
  if (bloom >= OP2_ELF_MAX_SPAN || nbuckets >= OP2_ELF_MAX_SPAN ||
      !op2_elf_segment_of(m, buckets, 4 * nbuckets))
    return op2_elf_refuse(why, "its GNU hash is out of bounds");
  const uint32_t *b = op2_elf_at(m, buckets);
  uint64_t top = 0;
  for (uint64_t i = 0; i < nbuckets; i++) {
    if (b[i] != 0 && b[i] < symoffset)
      return op2_elf_refuse(why, "its GNU hash's bucket %llu names an unhashed symbol",
                            (unsigned long long)i);
    if (b[i] > top) top = b[i];
  }
  if (top < symoffset) return *nsyms = symoffset, 0;
  uint64_t chain = buckets + 4 * nbuckets;
  for (uint64_t i = top;; i++) {
    if (!op2_elf_segment_of(m, chain + 4 * (i - symoffset), 4))
      return op2_elf_refuse(why, "its GNU hash chain is out of bounds");
    if (*(const uint32_t *)op2_elf_at(m, chain + 4 * (i - symoffset)) & 1) return *nsyms = i + 1, 0;
  }
}

/* Whether glibc finds defined symbol `index` through the hash tables, as it looks every name up
 * (its own relocations' included): a symbol the tables hide binds to nothing, or elsewhere. */
static uint32_t sysv_hash_of(const char *name) {
  uint32_t h = 0;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) {
    h = (h << 4) + *p;
    uint32_t g = h & 0xf0000000u;
    if (g) h ^= g >> 24;
    h &= ~g;
  }
  return h;
}

static uint32_t gnu_hash_of(const char *name) {
  uint32_t h = 5381;
  for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = h * 33 + *p;
  return h;
}

static int sysv_finds(const op2_elf_image *m, const op2_elf_dynamic *d, size_t index) {
  const uint32_t *h = op2_elf_at(m, d->hash);
  uint32_t nbucket = h[0], nchain = h[1];
  const uint32_t *bucket = h + 2, *chain = h + 2 + nbucket;
  uint32_t i = bucket[sysv_hash_of(m->str + m->syms[index].st_name) % nbucket];
  for (uint32_t steps = 0; i != 0 && steps < nchain; steps++, i = chain[i])
    if (i == index) return 1;
  return 0;
}

static int gnu_finds(const op2_elf_image *m, const op2_elf_dynamic *d, size_t index) {
  const uint32_t *h = op2_elf_at(m, d->gnu_hash);
  uint32_t nbuckets = h[0], symoffset = h[1], bloom = h[2], shift = h[3];
  const uint64_t *filter = (const uint64_t *)(h + 4);
  const uint32_t *buckets = (const uint32_t *)(filter + bloom), *chain = buckets + nbuckets;
  uint32_t hash = gnu_hash_of(m->str + m->syms[index].st_name);
  uint64_t word = filter[(hash / 64) & (bloom - 1)];
  if (index < symoffset || !((word >> (hash & 63)) & (word >> ((hash >> shift) & 63)) & 1))
    return 0;
  uint32_t i = buckets[hash % nbuckets];
  if (i < symoffset) return 0;
  for (; i < m->nsyms; i++) {
    uint32_t c = chain[i - symoffset];
    if (i == index) return ((c ^ hash) >> 1) == 0;
    if (c & 1) return 0;
  }
  return 0;
}

static int hashes_find(const op2_elf_image *m, const op2_elf_dynamic *d, size_t index) {
  return (!d->hash || sysv_finds(m, d, index)) && (!d->gnu_hash || gnu_finds(m, d, index));
}

/* ---- symbols ---- */

/* A defined symbol against the section it names: an allocated section holding its whole value
 * range, code for a function. A flipped section index (an undefined symbol made "defined" at 0,
 * then called by the object's own initialiser) is refused here. */
static int symbol_in_section(op2_elf_image *m, const Elf64_Sym *s, const char *name,
                             op2_jit_error *why) {
  int type = ELF64_ST_TYPE(s->st_info);
  if (s->st_shndx == SHN_ABS)
    return op2_elf_refuse(why, "symbol '%s' is absolute (the library's objects have none)", name);
  if (s->st_shndx >= SHN_LORESERVE)
    return op2_elf_refuse(why, "symbol '%s' has the reserved section index 0x%x", name,
                          s->st_shndx);
  if (s->st_shndx >= m->nsections)
    return op2_elf_refuse(why, "symbol '%s' names section %u of %zu", name, s->st_shndx,
                          m->nsections);
  const Elf64_Shdr *sh = &m->sections[s->st_shndx];
  if (!(sh->sh_flags & SHF_ALLOC))
    return op2_elf_refuse(why, "symbol '%s' is in a section that is not loaded", name);
  if (type == STT_TLS) { /* an offset into the thread-local block */
    if (!m->has_tls || s->st_size > m->tls_memsz || s->st_value > m->tls_memsz - s->st_size)
      return op2_elf_refuse(why, "thread-local symbol '%s' lies outside the thread-local block",
                            name);
    return 0;
  }
  if (s->st_size >= OP2_ELF_MAX_SPAN || s->st_value < sh->sh_addr ||
      s->st_value - sh->sh_addr > sh->sh_size ||
      s->st_size > sh->sh_size - (s->st_value - sh->sh_addr))
    return op2_elf_refuse(why, "symbol '%s' lies outside its section", name);
  const op2_elf_segment *seg = op2_elf_segment_of(m, s->st_value, s->st_size);
  if (!seg) return op2_elf_refuse(why, "symbol '%s' lies outside the object", name);
  if ((type == STT_FUNC || type == STT_GNU_IFUNC) &&
      (!(sh->sh_flags & SHF_EXECINSTR) || !(seg->flags & PF_X)))
    return op2_elf_refuse(why, "function '%s' is not in code", name);
  return 0;
}

/* No name is both defined and undefined, nor defined twice: glibc binds an undefined name to
 * the object's own definition, which the linker would have done already (a renamed symbol that
 * now shadows a weak reference the initialiser calls). */
static int by_name(const void *a, const void *b, void *ctx) {
  const op2_elf_image *m = ctx;
  return strcmp(m->str + m->syms[*(const uint32_t *)a].st_name,
                m->str + m->syms[*(const uint32_t *)b].st_name);
}

static int names_distinct(const op2_elf_image *m, op2_jit_error *why) {
  uint32_t *order = malloc(m->nsyms * sizeof *order);
  if (!order) return op2_elf_refuse(why, "out of memory");
  size_t n = 0;
  for (size_t i = 1; i < m->nsyms; i++)
    if (ELF64_ST_BIND(m->syms[i].st_info) != STB_LOCAL) order[n++] = (uint32_t)i;
  qsort_r(order, n, sizeof *order, by_name, (void *)m);
  for (size_t i = 1; i < n; i++)
    if (by_name(&order[i - 1], &order[i], (void *)m) == 0) {
      const char *name = m->str + m->syms[order[i]].st_name;
      free(order);
      return op2_elf_refuse(why, "symbol '%s' appears twice", name);
    }
  free(order);
  return 0;
}

int op2_elf_read_symbols(op2_elf_image *m, const op2_elf_dynamic *d, op2_jit_error *why) {
  if (d->strsz == 0 || d->strsz >= OP2_ELF_MAX_SPAN || !op2_elf_segment_of(m, d->strtab, d->strsz))
    return op2_elf_refuse(why, "its string table is out of bounds");
  m->str = op2_elf_at(m, d->strtab), m->strsz = d->strsz;
  if ((d->hash ? sysv_hash(m, d, &m->nsyms, why) : gnu_hash(m, d, &m->nsyms, why)) != 0)
    return OP2_ERR_JIT;
  if (d->hash && d->gnu_hash) { /* glibc prefers the GNU table: it must agree */
    size_t n = 0;
    if (gnu_hash(m, d, &n, why) != 0) return OP2_ERR_JIT;
    if (n > m->nsyms) return op2_elf_refuse(why, "its two hash tables disagree");
  }
  if (m->nsyms >= OP2_ELF_MAX_SPAN / sizeof(Elf64_Sym) ||
      !op2_elf_segment_of(m, d->symtab, m->nsyms * sizeof(Elf64_Sym)))
    return op2_elf_refuse(why, "its symbol table is out of bounds");
  m->syms = op2_elf_at(m, d->symtab);
  for (size_t i = 1; i < m->nsyms; i++) {
    const Elf64_Sym *s = &m->syms[i];
    int type = ELF64_ST_TYPE(s->st_info), bind = ELF64_ST_BIND(s->st_info);
    const char *name = op2_elf_string_at(m, s->st_name);
    if (!name) return op2_elf_refuse(why, "symbol %zu has no name", i);
    if (type == STT_TLS) op2_elf_needs_glibc(m, "it has thread-local storage");
    if (type == STT_GNU_IFUNC) op2_elf_needs_glibc(m, "it has an IFUNC symbol ('%s')", name);
    if (bind == STB_GNU_UNIQUE) op2_elf_needs_glibc(m, "it has a unique symbol ('%s')", name);
    /* glibc takes an undefined symbol with a value as a definition there (a program's PLT) */
    if (s->st_shndx == SHN_UNDEF && s->st_value != 0)
      return op2_elf_refuse(why, "undefined symbol '%s' has a value", name);
    /* ...and one that is not visible by default as bound to the object itself, at its value */
    if (s->st_shndx == SHN_UNDEF &&
        (ELF64_ST_VISIBILITY(s->st_other) != STV_DEFAULT || bind == STB_LOCAL))
      return op2_elf_refuse(why, "undefined symbol '%s' is local or not visible by default", name);
    if (s->st_shndx == SHN_UNDEF) continue;
    if (symbol_in_section(m, s, name, why) != 0) return OP2_ERR_JIT;
    if (bind != STB_LOCAL && !hashes_find(m, d, i))
      return op2_elf_refuse(why, "symbol '%s' is not where its hash table says", name);
  }
  return names_distinct(m, why);
}

/* ---- versions ---- */

/* glibc walks the version chains by their links until a link is 0, reading at least one
 * auxiliary entry each, whatever the counts say: the links must end exactly where the counts do. */
static int chain_ends(uint64_t i, uint64_t n, uint32_t next) {
  return (i + 1 == n) == (next == 0);
}

static int read_verneed(const op2_elf_image *m, const op2_elf_dynamic *d, const char **names,
                        unsigned *high, op2_jit_error *why) {
  uint64_t v = d->verneed;
  if (d->has_verneed != (d->verneednum != 0)) return op2_elf_refuse(why, "no needed versions");
  for (uint64_t i = 0; i < d->verneednum; i++) {
    if (v % 4 || !op2_elf_segment_of(m, v, sizeof(Elf64_Verneed)))
      return op2_elf_refuse(why, "its needed versions are out of bounds");
    const Elf64_Verneed *vn = op2_elf_at(m, v);
    const char *file = op2_elf_string_at(m, vn->vn_file);
    if (vn->vn_version != 1 || !file || vn->vn_cnt == 0 ||
        !chain_ends(i, d->verneednum, vn->vn_next))
      return op2_elf_refuse(why, "needed-version entry %llu is not understood",
                            (unsigned long long)i);
    /* glibc asserts that it names one of the libraries the object needs */
    int needed = 0;
    for (int k = 0; k < d->nneeded && !needed; k++) {
      const char *lib = op2_elf_string_at(m, d->needed[k]);
      needed = lib && strcmp(lib, file) == 0;
    }
    if (!needed)
      return op2_elf_refuse(why, "its versions are asked of %s, which it does not need", file);
    uint64_t a = v + vn->vn_aux;
    for (unsigned k = 0; k < vn->vn_cnt; k++) {
      if (a % 4 || !op2_elf_segment_of(m, a, sizeof(Elf64_Vernaux)))
        return op2_elf_refuse(why, "its needed versions are out of bounds");
      const Elf64_Vernaux *aux = op2_elf_at(m, a);
      unsigned idx = aux->vna_other & 0x7fff;
      if (idx >= OP2_ELF_MAX_VERSIONS || !op2_elf_string_at(m, aux->vna_name) ||
          !chain_ends(k, vn->vn_cnt, aux->vna_next))
        return op2_elf_refuse(why, "needed version %u is not understood", idx);
      names[idx] = m->str + aux->vna_name;
      if (idx > *high) *high = idx;
      a += aux->vna_next;
    }
    v += vn->vn_next;
  }
  return 0;
}

static int read_verdef(const op2_elf_image *m, const op2_elf_dynamic *d, unsigned *high,
                       op2_jit_error *why) {
  uint64_t v = d->verdef;
  if (d->has_verdef != (d->verdefnum != 0)) return op2_elf_refuse(why, "no defined versions");
  for (uint64_t i = 0; i < d->verdefnum; i++) {
    if (v % 4 || !op2_elf_segment_of(m, v, sizeof(Elf64_Verdef)))
      return op2_elf_refuse(why, "its defined versions are out of bounds");
    const Elf64_Verdef *vd = op2_elf_at(m, v);
    unsigned idx = vd->vd_ndx & 0x7fff;
    if (vd->vd_version != 1 || idx >= OP2_ELF_MAX_VERSIONS || vd->vd_cnt == 0 ||
        !chain_ends(i, d->verdefnum, vd->vd_next))
      return op2_elf_refuse(why, "defined-version entry %llu is not understood",
                            (unsigned long long)i);
    uint64_t a = v + vd->vd_aux;
    for (unsigned k = 0; k < vd->vd_cnt; k++) {
      if (a % 4 || !op2_elf_segment_of(m, a, sizeof(Elf64_Verdaux)))
        return op2_elf_refuse(why, "its defined versions are out of bounds");
      const Elf64_Verdaux *aux = op2_elf_at(m, a);
      if (!op2_elf_string_at(m, aux->vda_name) || !chain_ends(k, vd->vd_cnt, aux->vda_next))
        return op2_elf_refuse(why, "defined version %u is not understood", idx);
      a += aux->vda_next;
    }
    if (idx > *high) *high = idx;
    v += vd->vd_next;
  }
  return 0;
}

int op2_elf_read_versions(const op2_elf_image *m, const op2_elf_dynamic *d, const char **names,
                          op2_jit_error *why) {
  memset(names, 0, OP2_ELF_MAX_VERSIONS * sizeof *names);
  if (d->verneednum > OP2_ELF_MAX_VERSIONS || d->verdefnum > OP2_ELF_MAX_VERSIONS)
    return op2_elf_refuse(why, "%llu version entries",
                          (unsigned long long)(d->verneednum + d->verdefnum));
  unsigned high = 0;
  if (read_verneed(m, d, names, &high, why) != 0 || read_verdef(m, d, &high, why) != 0)
    return OP2_ERR_JIT;
  if (!d->has_versym) return 0;
  if (!op2_elf_segment_of(m, d->versym, 2 * (uint64_t)m->nsyms))
    return op2_elf_refuse(why, "its version table is out of bounds");
  /* glibc indexes its array of the versions defined and needed with these, unchecked */
  /* ...and without any version defined or needed it has no array at all: only index 0 (which
   * makes its pointer NULL, "no version") is safe */
  const uint16_t *versym = op2_elf_at(m, d->versym);
  for (size_t i = 0; i < m->nsyms; i++) {
    unsigned idx = versym[i] & 0x7fff;
    if (high == 0 ? idx != 0 : idx > high)
      return op2_elf_refuse(why, "symbol %zu asks for version %u, which is not defined", i, idx);
  }
  return 0;
}

/* ---- entry points ---- */

/* .symtab and its strings, read once from the file (symtab NULL when the object has none or they
 * are unusable). */
static void read_symtab(op2_elf_image *m) {
  if (m->symtab_read) return;
  m->symtab_read = 1;
  for (size_t i = 0; i < m->nsections; i++) {
    const Elf64_Shdr *sh = &m->sections[i];
    if (sh->sh_type != SHT_SYMTAB) continue;
    if (sh->sh_entsize != sizeof(Elf64_Sym) || sh->sh_size % sizeof(Elf64_Sym) ||
        sh->sh_size > ((uint64_t)64 << 20) || sh->sh_offset > m->file_size ||
        m->file_size - sh->sh_offset < sh->sh_size || sh->sh_link >= m->nsections)
      return;
    const Elf64_Shdr *st = &m->sections[sh->sh_link];
    if (st->sh_type != SHT_STRTAB || st->sh_size == 0 || st->sh_size > ((uint64_t)64 << 20) ||
        st->sh_offset > m->file_size || m->file_size - st->sh_offset < st->sh_size)
      return;
    Elf64_Sym *t = malloc(sh->sh_size ? sh->sh_size : 1);
    char *str = malloc(st->sh_size + 1);
    if (!t || !str || read_exact(m->fd, t, sh->sh_size, sh->sh_offset) != 0 ||
        read_exact(m->fd, str, st->sh_size, st->sh_offset) != 0) {
      free(t), free(str);
      return;
    }
    str[st->sh_size] = '\0'; /* a name running off its table ends there */
    m->symtab = t, m->nsymtab = sh->sh_size / sizeof(Elf64_Sym);
    m->symstr = str, m->symstrsz = st->sh_size;
    return;
  }
}

int op2_elf_check_symtab(op2_elf_image *m, op2_jit_error *why) {
  read_symtab(m);
  for (size_t i = 1; i < m->nsyms; i++) {
    const Elf64_Sym *s = &m->syms[i];
    if (s->st_shndx == SHN_UNDEF || ELF64_ST_BIND(s->st_info) == STB_LOCAL) continue;
    const char *name = m->str + s->st_name;
    /* glibc calls an IFUNC while loading: only one the linker's own table confirms */
    int confirm = ELF64_ST_TYPE(s->st_info) == STT_GNU_IFUNC, confirmed = 0;
    for (size_t k = 1; m->symtab && k < m->nsymtab; k++) {
      const Elf64_Sym *t = &m->symtab[k];
      if (ELF64_ST_BIND(t->st_info) == STB_LOCAL || t->st_shndx == SHN_UNDEF ||
          t->st_name >= m->symstrsz || strcmp(m->symstr + t->st_name, name) != 0)
        continue;
      if (t->st_value != s->st_value || t->st_size != s->st_size ||
          ELF64_ST_TYPE(t->st_info) != ELF64_ST_TYPE(s->st_info))
        return op2_elf_refuse(why, "symbol '%s' disagrees with its copy in .symtab", name);
      confirmed = 1;
      break;
    }
    if (confirm && !confirmed)
      return op2_elf_refuse(why, "IFUNC '%s' is not in the object's .symtab", name);
  }
  return 0;
}

static int is_function_symbol(const Elf64_Sym *t, size_t n, uint64_t v) {
  for (size_t i = 1; i < n; i++)
    if (ELF64_ST_TYPE(t[i].st_info) == STT_FUNC && t[i].st_shndx != SHN_UNDEF && t[i].st_value == v)
      return 1;
  return 0;
}

int op2_elf_function_start(op2_elf_image *m, uint64_t v) {
  const op2_elf_segment *seg = op2_elf_segment_of(m, v, 1);
  if (!seg || !(seg->flags & PF_X)) return 0;
  if (is_function_symbol(m->syms, m->nsyms, v)) return 1;
  read_symtab(m); /* an object stripped of it (cc -s) is refused when it has init entries */
  return m->symtab && is_function_symbol(m->symtab, m->nsymtab, v);
}
