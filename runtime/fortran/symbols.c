/* SPDX-License-Identifier: BSD-3-Clause */
/* The program's procedures by address. A Fortran kernel reaches op_par_loop_N as an address:
 * dladdr names it when the program exports it (linked -rdynamic, as pkg-config op2-fortran
 * links), and the object file's own symbol table (.symtab, present unless the program was
 * stripped) names the rest: internal procedures after `contains` are local symbols ("update.0"),
 * listed after the STT_FILE symbol of their source file. An internal procedure passed as an
 * argument arrives as the trampoline GCC wrote on its host's stack (x86-64: movabs $code, %r11;
 * movabs $chain, %r10; jmp *%r11), read here for the procedure's own address. */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "runtime/fortran/fortran.h"

/* The x86-64 trampoline GCC makes for a nested function whose address is taken, optionally
 * after an endbr64: 49 bb imm64 (movabs r11), 49 ba imm64 (movabs r10), 49 ff e3 (jmp r11); the
 * short forms 41 bb imm32 / 41 ba imm32 move 32-bit values. */
static bool read_trampoline(const unsigned char *b, void **code, void **chain) {
  if (b[0] == 0xf3 && b[1] == 0x0f && b[2] == 0x1e && b[3] == 0xfa) b += 4;
  uint64_t v[2];
  for (int i = 0; i < 2; i++) {
    unsigned char reg = i == 0 ? 0xbb : 0xba;
    if (b[0] == 0x49 && b[1] == reg) {
      memcpy(&v[i], b + 2, 8);
      b += 10;
    } else if (b[0] == 0x41 && b[1] == reg) {
      uint32_t w;
      memcpy(&w, b + 2, 4);
      v[i] = w;
      b += 6;
    } else {
      return false;
    }
  }
  if (!(b[0] == 0x49 && b[1] == 0xff && b[2] == 0xe3)) return false;
  *code = (void *)(uintptr_t)v[0];
  *chain = (void *)(uintptr_t)v[1];
  return true;
}

/* Whether `addr` lies in a readable mapping of this process (the bytes of a trampoline are read
 * only there): /proc/self/maps. */
static bool readable(const void *addr, size_t len) {
  FILE *f = fopen("/proc/self/maps", "r");
  if (!f) return false;
  char line[512];
  bool ok = false;
  uintptr_t a = (uintptr_t)addr;
  while (!ok && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    char perms[8];
    if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && a >= lo && a + len <= hi)
      ok = perms[0] == 'r';
  }
  fclose(f);
  return ok;
}

/* pread of exactly len bytes at off. */
static bool read_at(int fd, void *buf, size_t len, uint64_t off) {
  size_t done = 0;
  while (done < len) {
    ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
    if (n <= 0) return false;
    done += (size_t)n;
  }
  return true;
}

/* The symbol table and its strings of an ELF64 file: false when it has none (stripped). */
typedef struct symtab {
  Elf64_Sym *syms;
  size_t nsyms;
  char *str;
  size_t strsize;
  bool dyn; /* ET_DYN (PIE or library): symbol values are relative to the load address */
} symtab;

static void symtab_free(symtab *t) {
  free(t->syms);
  free(t->str);
  memset(t, 0, sizeof *t);
}

static bool symtab_read(const char *path, symtab *t) {
  memset(t, 0, sizeof *t);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  Elf64_Ehdr eh;
  Elf64_Shdr *sh = NULL;
  bool ok = read_at(fd, &eh, sizeof eh, 0) && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
            eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_shentsize == sizeof(Elf64_Shdr) &&
            eh.e_shnum > 0 && eh.e_shnum < 65535;
  if (ok) {
    sh = malloc(sizeof *sh * eh.e_shnum);
    ok = sh && read_at(fd, sh, sizeof *sh * eh.e_shnum, eh.e_shoff);
  }
  int found = -1;
  for (int i = 0; ok && i < eh.e_shnum; i++)
    if (sh[i].sh_type == SHT_SYMTAB && sh[i].sh_link < eh.e_shnum) found = i;
  ok = ok && found >= 0 && sh[found].sh_entsize == sizeof(Elf64_Sym) &&
       sh[found].sh_size < (1ull << 31) && sh[sh[found].sh_link].sh_size < (1ull << 31);
  if (ok) {
    const Elf64_Shdr *s = &sh[found], *strs = &sh[s->sh_link];
    t->nsyms = s->sh_size / sizeof(Elf64_Sym);
    t->syms = malloc(s->sh_size ? s->sh_size : 1);
    t->strsize = strs->sh_size;
    t->str = malloc(strs->sh_size + 1);
    ok = t->syms && t->str && read_at(fd, t->syms, s->sh_size, s->sh_offset) &&
         read_at(fd, t->str, strs->sh_size, strs->sh_offset);
    if (ok) t->str[strs->sh_size] = '\0';
    t->dyn = eh.e_type == ET_DYN;
  }
  free(sh);
  close(fd);
  if (!ok) symtab_free(t);
  return ok;
}

static const char *sym_name(const symtab *t, const Elf64_Sym *s) {
  return s->st_name < t->strsize ? t->str + s->st_name : "";
}

/* Whether `addr` lies in a loaded segment of the program itself (dl_iterate_phdr lists it
 * first). */
typedef struct in_program {
  uintptr_t addr;
  bool inside, first_seen;
} in_program;

static int program_segments(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  in_program *w = arg;
  w->first_seen = true;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
    if (ph->p_type == PT_LOAD && w->addr >= lo && w->addr < lo + ph->p_memsz) w->inside = true;
  }
  return 1; /* the program only */
}

/* The object holding `code`: its file (the program's own through /proc/self/exe, whatever name
 * it was started by) and load address. */
static bool object_of(const void *code, op2_procedure_info *out, Dl_info *info) {
  if (!dladdr(code, info) || !info->dli_fbase) return false;
  out->object_base = (uintptr_t)info->dli_fbase;
  in_program w = {.addr = (uintptr_t)code};
  dl_iterate_phdr(program_segments, &w);
  out->object_is_program = w.inside;
  if (out->object_is_program) {
    ssize_t n = readlink("/proc/self/exe", out->object, sizeof out->object - 1);
    out->object[n > 0 ? n : 0] = '\0';
  } else if (info->dli_fname) {
    snprintf(out->object, sizeof out->object, "%s", info->dli_fname);
  }
  return true;
}

void op2_procedure_find(void *addr, op2_procedure_info *out) {
  memset(out, 0, sizeof *out);
  out->code = addr;
  Dl_info info;
  if (!object_of(addr, out, &info)) {
    void *code, *chain;
    if (!readable(addr, 32) || !read_trampoline(addr, &code, &chain) ||
        !object_of(code, out, &info))
      return;
    out->code = code;
    out->chain = chain;
    out->trampoline = true;
  }
  if (info.dli_sname && info.dli_saddr == out->code) {
    snprintf(out->symbol, sizeof out->symbol, "%s", info.dli_sname);
    return; /* an exported symbol: global, no source file in the table */
  }
  symtab t;
  if (!out->object[0] || !symtab_read(out->object, &t)) return;
  uintptr_t value = (uintptr_t)out->code - (t.dyn ? out->object_base : 0);
  const char *file = "";
  for (size_t i = 0; i < t.nsyms; i++) {
    const Elf64_Sym *s = &t.syms[i];
    int type = ELF64_ST_TYPE(s->st_info);
    if (type == STT_FILE) {
      file = sym_name(&t, s);
      continue;
    }
    if (type != STT_FUNC || s->st_value != value || s->st_shndx == SHN_UNDEF) continue;
    snprintf(out->symbol, sizeof out->symbol, "%s", sym_name(&t, s));
    /* local symbols follow their file's STT_FILE; globals come after all of them */
    if (ELF64_ST_BIND(s->st_info) == STB_LOCAL) snprintf(out->file, sizeof out->file, "%s", file);
    break;
  }
  symtab_free(&t);
}

void op2_symbol_containing(const void *addr, char *name, size_t len) {
  name[0] = '\0';
  Dl_info info;
  op2_procedure_info where = {0};
  if (!object_of(addr, &where, &info)) return;
  symtab t;
  if (!where.object[0] || !symtab_read(where.object, &t)) { /* stripped: the nearest export */
    if (info.dli_sname) snprintf(name, len, "%s", info.dli_sname);
    return;
  }
  uintptr_t value = (uintptr_t)addr - (t.dyn ? where.object_base : 0);
  for (size_t i = 0; i < t.nsyms; i++) {
    const Elf64_Sym *s = &t.syms[i];
    if (ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_shndx != SHN_UNDEF && value >= s->st_value &&
        value < s->st_value + s->st_size) {
      snprintf(name, len, "%s", sym_name(&t, s));
      break;
    }
  }
  symtab_free(&t);
}

char *op2_program_source_files(const char *object) {
  symtab t;
  if (!object || !object[0] || !symtab_read(object, &t)) return NULL;
  size_t cap = 256, len = 0;
  char *out = malloc(cap);
  if (out) out[0] = '\0'; /* strstr reads it before the first name is added */
  for (size_t i = 0; out && i < t.nsyms; i++) {
    if (ELF64_ST_TYPE(t.syms[i].st_info) != STT_FILE) continue;
    const char *name = sym_name(&t, &t.syms[i]);
    size_t n = strlen(name);
    if (!n || strstr(out, name)) continue; /* rough de-duplication; false hits cost nothing */
    if (len + n + 2 > cap) {
      char *more = realloc(out, cap = 2 * cap + n + 2);
      if (!more) free(out);
      out = more;
      if (!out) break;
    }
    memcpy(out + len, name, n);
    len += n;
    out[len++] = '\n';
    out[len] = '\0';
  }
  symtab_free(&t);
  return out;
}

static void lower_copy(char *to, size_t cap, const char *from, size_t n) {
  if (n >= cap) n = cap - 1;
  for (size_t i = 0; i < n; i++)
    to[i] = from[i] >= 'A' && from[i] <= 'Z' ? (char)(from[i] - 'A' + 'a') : from[i];
  to[n] = '\0';
}

void op2_procedure_names(const char *symbol, char *module, size_t mlen, char *proc, size_t plen,
                         char *kind) {
  module[0] = proc[0] = '\0';
  *kind = '?';
  size_t n = strlen(symbol);
  const char *mod = strstr(symbol, "_MOD_");
  if (strncmp(symbol, "__", 2) == 0 && mod && mod > symbol + 2) { /* __module_MOD_procedure */
    lower_copy(module, mlen, symbol + 2, (size_t)(mod - symbol - 2));
    lower_copy(proc, plen, mod + 5, strlen(mod + 5));
    *kind = 'm';
    return;
  }
  const char *dot = strchr(symbol, '.');
  if (dot && dot > symbol) { /* an internal procedure: name.N */
    lower_copy(proc, plen, symbol, (size_t)(dot - symbol));
    *kind = 'i';
    return;
  }
  if (n > 1 && symbol[n - 1] == '_') { /* an external procedure: name_ */
    lower_copy(proc, plen, symbol, n - 1);
    *kind = 'e';
    return;
  }
  lower_copy(proc, plen, symbol, n); /* bind(C) or another language's */
}
