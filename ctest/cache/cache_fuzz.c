/* SPDX-License-Identifier: BSD-3-Clause */
/* Mutated kernel objects, as a cache entry whose manifest hash was rewritten to match them would
 * hand them over: each is refused as malformed or loads and unloads without harm, under the
 * direct loader and under dlopen (OP2_LOADER=direct and dlopen, through the engine's path). Each
 * object is loaded in a child process, so a crash or a hang is this test's failure, named with
 * the mutation that caused it, not the end of the test. Seeded (argv[1], default 1) and bounded
 * by count (600) and by time (argv[2] seconds, default 5), so a run repeats exactly on any
 * machine that reaches the count in time.
 *
 * The mutations change what a loader reads to map and link an object: the ELF, program and
 * section headers, the dynamic section, the dynamic symbols and their names, the relocations,
 * the hash and version tables, the init and fini arrays, the GOT. Code is never changed: its bytes
 * are what the manifest's hash guards, and no loader can tell good code from bad; nor is the
 * symbol a relocation names, nor a symbol's name, nor is an addend moved by a few bytes (a call
 * slot or a pointer moved onto another function, 16-byte aligned, is another program, not a
 * malformed one: only the hash can tell; a flipped bit or a wild value is structure). The objects
 * are TinyCC's, the system compiler's and (when there is one) the C++ compiler's, the last sound
 * but glibc's to load, so that mutations of it reach dlopen after the direct loader's check. */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "elf_edit.h"
#include "jit/jit_internal.h"
#include "test.h"

static const char *const source =
    "double sqrt(double);\n"
    "static const double table[3] = {1.5, -2.25, 3.0};\n"
    "static double twice(double x) { return 2 * x; }\n"
    "static double (*const ops[2])(double) = {twice, sqrt};\n"
    "double scale = 3.0;\n"
    "double *scale_ptr = &scale;\n"
    "int calls;\n"
    "void op2_loop(void *const *a, const int *const *m, int b, int e) {\n"
    "  (void)m;\n"
    "  double *out = a[0];\n"
    "  for (int i = b; i < e; i++) out[i] = ops[i % 2](table[i % 3]) * *scale_ptr;\n"
    "  calls++;\n"
    "}\n";

static const char *const cxx_source =
    "#include <cmath>\n"
    "#include <vector>\n"
    "static std::vector<double> weights(3, 2.0);\n"
    "extern \"C\" void op2_loop(void *const *a, const int *const *m, int b, int e) {\n"
    "  (void)m;\n"
    "  double *out = (double *)a[0];\n"
    "  for (int i = b; i < e; i++) out[i] = std::sqrt(weights[i % 3]);\n"
    "}\n";

/* xorshift64*: the test's own generator, so a seed means the same mutations everywhere */
static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ull;
}

typedef struct region {
  size_t at, len;
  char name[32];
} region;

typedef struct object {
  const char *label;
  char *data;
  size_t len;
  region regions[48];
  int nregions;
} object;

static void add_region(object *o, const char *name, size_t at, size_t len) {
  if (!len || at >= o->len || o->nregions == 48) return;
  region *r = &o->regions[o->nregions++];
  r->at = at, r->len = at + len <= o->len ? len : o->len - at;
  snprintf(r->name, sizeof r->name, "%s", name);
}

/* What a loader reads, never code: the headers, and the allocated sections that are tables. */
static void find_regions(object *o) {
  Elf64_Ehdr *eh = ee_header(o->data, o->len);
  add_region(o, "ELF header", 0, sizeof *eh);
  add_region(o, "program headers", eh->e_phoff, (size_t)eh->e_phnum * sizeof(Elf64_Phdr));
  add_region(o, "section headers", eh->e_shoff, (size_t)eh->e_shnum * sizeof(Elf64_Shdr));
  static const char *const tables[] = {
      ".dynsym",           ".dynstr",        ".hash",     ".gnu.hash",
      ".rela.dyn",         ".rela.plt",      ".rela.got", ".rela.data",
      ".gnu.version",      ".gnu.version_r", ".dynamic",  ".init_array",
      ".fini_array",       ".got",           ".got.plt",  ".note.gnu.property",
      ".note.gnu.build-id"};
  for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
    ee_shdr *sh = ee_section(o->data, o->len, tables[i], NULL);
    if (sh && sh->sh_type != SHT_NOBITS) add_region(o, tables[i], sh->sh_offset, sh->sh_size);
  }
}

static int read_object(const char *label, const char *path, object *o) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  o->label = label;
  o->len = (size_t)st.st_size;
  o->data = malloc(o->len);
  CHECK(o->data && read(fd, o->data, o->len) == (ssize_t)o->len);
  close(fd);
  o->nregions = 0;
  find_regions(o);
  return 0;
}

/* Whether bytes [at, at+n) of region r touch which symbol a relocation names (r_info's upper
 * half) or which name a dynamic symbol has (st_name: moved by a few bytes it names the end of
 * another name, "__cxa_atexit" becoming "exit", a real function): the program a hash guards. */
static int touches_symbol_index(const region *r, size_t at, size_t n) {
  int rela = strncmp(r->name, ".rela", 5) == 0, dynsym = strcmp(r->name, ".dynsym") == 0;
  for (size_t b = at; b < at + n && b >= r->at; b++) {
    size_t in = (b - r->at) % (rela ? sizeof(Elf64_Rela) : sizeof(Elf64_Sym));
    if ((rela && in >= 12 && in < 16) || (dynsym && in < 4)) return 1;
  }
  return 0;
}

/* One mutation of a copy, described into `what`. */
static void mutate(const object *o, char *copy, char *what, size_t whatlen) {
  const region *r;
  size_t at;
  do {
    r = &o->regions[rnd() % (uint64_t)o->nregions];
    at = r->at + (size_t)(rnd() % r->len);
  } while (touches_symbol_index(r, at & ~(size_t)7, 8));
  int kind = (int)(rnd() % 4);
  if (kind == 0) { /* one bit */
    int bit = (int)(rnd() % 8);
    copy[at] ^= (char)(1 << bit);
    snprintf(what, whatlen, "%s: bit %d of byte %zu flipped", r->name, bit, at);
  } else if (kind == 1) { /* one byte */
    unsigned char b = (unsigned char)rnd();
    copy[at] = (char)b;
    snprintf(what, whatlen, "%s: byte %zu set to 0x%02x", r->name, at, b);
  } else { /* an aligned word: a field, as a whole */
    size_t width = kind == 2 ? 4 : 8;
    at &= ~(width - 1);
    if (at < r->at || at + width > o->len) at = r->at;
    static const uint64_t specials[] = {0,      1,          0xff,       0xffff,     0xfff1,
                                        0xff00, 0x7fffffff, 0xffffffff, UINT64_MAX, 1ull << 40};
    uint64_t old = 0, v;
    memcpy(&old, copy + at, width);
    int addend = strncmp(r->name, ".rela", 5) == 0 && (at - r->at) % sizeof(Elf64_Rela) >= 16;
    int choice = (int)(rnd() % 4);
    if (addend && (choice == 1 || choice == 2)) choice = 3; /* addends: specials and random */
    switch (choice) {
      case 0:
        v = specials[rnd() % (sizeof specials / sizeof *specials)];
        break;
      case 1:
        v = old + 1 + rnd() % 16;
        break;
      case 2:
        v = old - 1 - rnd() % 16;
        break;
      default:
        v = rnd();
        break;
    }
    memcpy(copy + at, &v, width);
    snprintf(what, whatlen, "%s: %zu-byte word at %zu set from 0x%llx to 0x%llx", r->name, width,
             at, (unsigned long long)old, (unsigned long long)(width == 4 ? (uint32_t)v : v));
  }
}

/* In the child: loads the copy both ways. Exit status: bit 0 loaded directly (or sound and
 * glibc's), bit 1 loaded by dlopen; 64 + something when a loader broke a rule. */
static void child_load(const char *copy, size_t len) {
  alarm(20); /* a hang is a failure too */
  int fd = memfd_create("mutated.so", MFD_CLOEXEC);
  if (fd < 0 || write(fd, copy, len) != (ssize_t)len) _exit(100);
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  const int loaders[2] = {OP2_LOADER_DIRECT, OP2_LOADER_DLOPEN};
  int loaded = 0;
  for (int i = 0; i < 2; i++) {
    known.loader = loaders[i];
    void *handle = NULL, *sym = NULL;
    op2_jit_error why = {.code = OP2_OK};
    if (op2_load_object_fd(&known, fd, "mutated", "op2_loop", &handle, &sym, &why) == OP2_OK) {
      if (!handle || !sym) _exit(101);
      loaded |= 1 << i;
      op2_object_close(handle);
    } else if (handle || !why.msg[0]) {
      _exit(102);
    }
  }
  _exit(loaded);
}

int main(int argc, char **argv) {
  unsigned long seed = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  double seconds = argc > 2 ? atof(argv[2]) : 5;
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);

  object objects[3];
  int nobjects = 0;
  char path[4200], *log = NULL;
  snprintf(path, sizeof path, "%s/tcc.so", dir);
  CHECK(op2_tcc_compile(source, path, &log) == OP2_OK);
  free(log);
  CHECK(read_object("TinyCC", path, &objects[nobjects]) == 0);
  nobjects++;
  unlink(path);
  static const char *const compilers[2][3] = {{"cc", "c", "cc"}, {"c++", "cpp", "C++"}};
  for (int c = 0; c < 2; c++) {
    char src[4200], cmd[9000];
    snprintf(src, sizeof src, "%s/k.%s", dir, compilers[c][1]);
    snprintf(path, sizeof path, "%s/%s.so", dir, compilers[c][1]);
    FILE *f = fopen(src, "w");
    CHECK(f && fputs(c ? cxx_source : source, f) >= 0 && fclose(f) == 0);
    snprintf(cmd, sizeof cmd, "%s -O2 -shared -fPIC -o '%s' '%s' -lm 2>/dev/null", compilers[c][0],
             path, src);
    if (system(cmd) == 0 && read_object(compilers[c][2], path, &objects[nobjects]) == 0)
      nobjects++;
    else
      fprintf(stderr, "no %s compiler: its objects are not tried\n", compilers[c][0]);
    unlink(src), unlink(path);
  }
  CHECK(rmdir(dir) == 0);

  rng_state = 0x9e3779b97f4a7c15ull ^ seed;
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int trials = 0, refused = 0, loaded_direct = 0, loaded_dlopen = 0;
  for (; trials < 600; trials++) { /* a bound the slowest CI machine reaches in time */
    clock_gettime(CLOCK_MONOTONIC, &t);
    if ((double)(t.tv_sec - t0.tv_sec) + 1e-9 * (double)(t.tv_nsec - t0.tv_nsec) > seconds) break;
    const object *o = &objects[trials % nobjects];
    char *copy = malloc(o->len), what[200];
    CHECK(copy != NULL);
    memcpy(copy, o->data, o->len);
    mutate(o, copy, what, sizeof what);
    fflush(NULL);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) child_load(copy, o->len);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) > 3) {
      fprintf(stderr, "trial %d (seed %lu), %s object, %s: %s %d\n", trials, seed, o->label, what,
              WIFSIGNALED(status) ? "killed by signal" : "exit status",
              WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
      CHECK(0);
    }
    int bits = WEXITSTATUS(status);
    refused += bits == 0;
    loaded_direct += bits & 1;
    loaded_dlopen += (bits >> 1) & 1;
    free(copy);
  }
  fprintf(stderr,
          "%d mutated objects (seed %lu, %d kinds of object): %d refused by both loaders, %d "
          "loaded directly or found sound, %d loaded by dlopen, no crash or hang\n",
          trials, seed, nobjects, refused, loaded_direct, loaded_dlopen);
  CHECK(trials >= 50);
  CHECK(refused > 0 && loaded_dlopen > 0);
  for (int i = 0; i < nobjects; i++) free(objects[i].data);
  return 0;
}
