/* SPDX-License-Identifier: BSD-3-Clause */
/* The direct loader (jit/elf_load.c) against dlopen, on the objects the library builds: one by
 * TinyCC (-shared, as the tcc tier writes it) and one by the system compiler (-shared -fPIC),
 * each with data relocations, a table of function pointers, calls into libm, a constant array,
 * .bss and a data pointer with an addend. Each is loaded both ways and must compute the same
 * bits, and the direct way must really be the direct loader. Then what it must refuse without
 * crashing: truncated files at every length, every byte of the ELF and program headers
 * flipped, a file that is not ELF, an object with thread-local storage (sound, but the direct
 * loader leaves it to dlopen), an object without the entry symbol; and objects that are
 * malformed in ways a loader would load and then crash or break W^X on (a segment writable and
 * executable, an executable stack, symbols with a reserved or absolute section index or made
 * "defined" where their section is not, an init entry moved inside a function, a relocation
 * pointing outside), refused by every path, dlopen never seeing them. TinyCC's objects carry a
 * PT_GNU_STACK header, so loading one with dlopen leaves the stack non-executable. Under
 * OP2_LOADER=auto the first objects go to dlopen and the direct loader takes the rest, saying
 * so at OP2_DIAGS=2. */
#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elf_edit.h"
#include "jit/elf_load.h"
#include "jit/jit_internal.h"
#include "test.h"

enum { N = 12 };

static const char *const source =
    "double sin(double);\n"
    "double sqrt(double);\n"
    "static const double table[5] = {1.5, -2.25, 3.0, 0.5, 8.0};\n"
    "static double twice(double x) { return 2 * x; }\n"
    "static double half(double x) { return x / 2; }\n"
    "static double absolute(double x) { return sqrt(x * x); }\n"
    "static double (*const ops[3])(double) = {twice, half, absolute};\n"
    "double scale = 3.0;\n"
    "double *scale_ptr = &scale;\n"
    "const double *row = &table[2];\n"
    "int calls;\n"
    "void op2_loop(void *const *a, const int *const *m, int b, int e) {\n"
    "  (void)m;\n"
    "  double *out = a[0];\n"
    "  for (int i = b; i < e; i++)\n"
    "    out[i] = ops[i % 3](table[i % 5]) * *scale_ptr + sin(row[i % 3]);\n"
    "  calls++;\n"
    "}\n";

typedef void (*loop_fn)(void *const *args, const int *const *maps, int begin, int end);

static void expected(double *out) {
  static const double table[5] = {1.5, -2.25, 3.0, 0.5, 8.0};
  for (int i = 0; i < N; i++) {
    double x = table[i % 5];
    double op = i % 3 == 0 ? 2 * x : i % 3 == 1 ? x / 2 : sqrt(x * x);
    out[i] = op * 3.0 + sin(table[2 + i % 3]);
  }
}

static int open_file(const char *path) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  CHECK(fd >= 0);
  return fd;
}

/* Loads `path` through the engine's path with the direct loader on or off; runs it twice. */
static void run(const char *path, int direct, double *out, void **dl) {
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  known.loader = direct ? OP2_LOADER_DIRECT : OP2_LOADER_DLOPEN;
  int fd = open_file(path);
  void *handle = NULL, *sym = NULL;
  op2_jit_error why = {.code = OP2_OK};
  int rc = op2_load_object_fd(&known, fd, path, "op2_loop", &handle, &sym, &why);
  close(fd);
  if (rc != OP2_OK) fprintf(stderr, "%s\n", why.msg);
  CHECK_EQ_INT(rc, OP2_OK);
  *dl = op2_object_dl(handle);
  void *args[1] = {out};
  ((loop_fn)sym)(args, NULL, 0, N);
  ((loop_fn)sym)(args, NULL, 0, N);
  size_t bytes = 0;
  int *calls = op2_object_symbol(handle, "calls", &bytes);
  CHECK(calls != NULL);
  CHECK_EQ_INT(bytes, sizeof(int));
  CHECK_EQ_INT(*calls, 2); /* .bss starts at zero, and this copy's own */
  double *scale = op2_object_symbol(handle, "scale", &bytes);
  CHECK(scale && *scale == 3.0 && bytes == sizeof(double));
  CHECK(op2_object_symbol(handle, "no_such_symbol", NULL) == NULL);
  op2_object_close(handle);
  op2_loaded_objects_destroy(&known);
}

static void same_both_ways(const char *path) {
  double want[N], direct[N], dl[N];
  void *h_direct, *h_dl;
  expected(want);
  run(path, 1, direct, &h_direct);
  run(path, 0, dl, &h_dl);
  CHECK(h_direct == NULL); /* the direct loader's, not glibc's */
  CHECK(h_dl != NULL);
  for (int i = 0; i < N; i++) {
    CHECK(memcmp(&direct[i], &dl[i], sizeof(double)) == 0);
    CHECK_NEAR(direct[i], want[i], 1e-15);
  }
}

static void write_file(const char *path, const void *data, size_t len) {
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  CHECK(fd >= 0);
  CHECK(write(fd, data, len) == (ssize_t)len);
  close(fd);
}

static char *read_whole(const char *path, size_t *len) {
  int fd = open_file(path);
  struct stat st;
  CHECK(fstat(fd, &st) == 0);
  char *data = malloc((size_t)st.st_size);
  CHECK(data && read(fd, data, (size_t)st.st_size) == st.st_size);
  close(fd);
  *len = (size_t)st.st_size;
  return data;
}

static void *open_needed(void *ctx, const char *name) {
  return op2_loaded_objects_needed(ctx, name);
}

/* Loads `data` directly: 0 refused with a reason, 1 loaded (and with `compute`, computing the
 * right values), 2 anything else. A crash ends the test, as a failure. */
static int load_damaged(op2_loaded_objects *known, const void *data, size_t len, int compute) {
  int fd = memfd_create("damaged.so", MFD_CLOEXEC); /* a regular file, in memory: no disk I/O */
  CHECK(fd >= 0);
  CHECK(write(fd, data, len) == (ssize_t)len);
  op2_elf_image *img = NULL;
  op2_elf_verdict v;
  op2_jit_error why = {.code = OP2_OK};
  int rc = op2_elf_load(fd, open_needed, known, &img, &v, &why);
  close(fd);
  if (rc != OP2_OK) return rc == OP2_ERR_JIT && why.code == rc && why.msg[0] && !img ? 0 : 2;
  if (!img) return v.glibc_only && v.reason[0] ? 0 : 2; /* sound, for dlopen: not loaded here */
  loop_fn fn = (loop_fn)op2_elf_symbol(img, "op2_loop", NULL);
  double got[N], want[N];
  expected(want);
  void *args[1] = {got};
  if (compute && fn) fn(args, NULL, 0, N);
  op2_elf_unload(img);
  if (!compute) return 1;
  for (int i = 0; fn && i < N; i++)
    if (!(fabs(got[i] - want[i]) <= 1e-15 * fmax(1, fabs(want[i])))) return 2;
  return fn ? 1 : 2;
}

/* Every truncation is refused or, when only what follows the segments is cut (section headers),
 * loads and computes the right values; every flipped header byte is refused or loads and
 * unloads without harm (what such an object computes is the cache's hash check's concern). */
static void refuses_damage(const char *path) {
  size_t len;
  char *data = read_whole(path, &len);
  int refused = 0;
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  for (size_t cut = 0; cut < len; cut += cut < 128 ? 1 : 3) {
    int r = load_damaged(&known, data, cut, 1);
    if (r > 1) fprintf(stderr, "%s cut to %zu bytes: %d\n", path, cut, r);
    CHECK(r <= 1);
    refused += r == 0;
    if (cut < 64 + 56) CHECK_EQ_INT(r, 0);
  }
  CHECK(refused > 0);
  /* the ELF header and the program headers (TinyCC's copy with PT_GNU_STACK is at the end) */
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
  size_t ph_from = eh->e_phoff, ph_to = eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr);
  for (size_t at = 0; at < ph_to && at < len; at = at + 1 == sizeof *eh ? ph_from : at + 1) {
    data[at] ^= (char)0xff;
    int r = load_damaged(&known, data, len, 0);
    if (r > 1) fprintf(stderr, "%s with byte %zu flipped: %d\n", path, at, r);
    CHECK(r <= 1);
    data[at] ^= (char)0xff;
  }
  op2_loaded_objects_destroy(&known);
  free(data);
}

/* The engine's path: refused by both loaders with a message naming the file and both reasons. */
static void refused_by_both(const char *path, const char *direct_reason) {
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  int fd = open_file(path);
  void *handle = NULL, *sym = NULL;
  op2_jit_error why = {.code = OP2_OK};
  CHECK(op2_load_object_fd(&known, fd, path, "op2_loop", &handle, &sym, &why) != OP2_OK);
  close(fd);
  fprintf(stderr, "refused as expected: %s\n", why.msg);
  CHECK(strstr(why.msg, path) != NULL);
  CHECK(strstr(why.file, "cache_entry.c") != NULL); /* the refusal says where it was made */
  CHECK(strstr(why.msg, direct_reason) != NULL);
  CHECK(handle == NULL);
  op2_loaded_objects_destroy(&known);
}

static void collect_notes(void *ctx, int level, const char *msg) {
  char *notes = ctx;
  size_t n = strlen(notes);
  snprintf(notes + n, 8192 - n, "[%d] %s\n", level, msg);
}

/* Whether no mapping of this process is writable and executable, nor its stack executable. */
static int maps_clean(void) {
  FILE *f = fopen("/proc/self/maps", "r");
  CHECK(f != NULL);
  char line[1024];
  int clean = 1;
  while (fgets(line, sizeof line, f)) {
    char perms[8] = "";
    if (sscanf(line, "%*s %7s", perms) != 1) continue;
    if ((perms[1] == 'w' && perms[2] == 'x') || (strstr(line, "[stack]") && perms[2] == 'x')) {
      fprintf(stderr, "mapping breaks W^X: %s", line);
      clean = 0;
    }
  }
  fclose(f);
  return clean;
}

/* Every way of loading refuses `data` as malformed, naming `reason`: the direct loader's check,
 * and the engine's path under each OP2_LOADER (dlopen never sees it). */
static void refused_everywhere(const char *what, const char *data, size_t len, const char *reason) {
  int fd = memfd_create("malformed.so", MFD_CLOEXEC);
  CHECK(fd >= 0 && write(fd, data, len) == (ssize_t)len);
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  op2_elf_image *img = NULL;
  op2_elf_verdict v;
  op2_jit_error why = {.code = OP2_OK};
  CHECK_EQ_INT(op2_elf_load(fd, open_needed, &known, &img, &v, &why), OP2_ERR_JIT);
  CHECK(img == NULL);
  fprintf(stderr, "%s: refused: %s\n", what, why.msg);
  CHECK_CONTAINS(why.msg, reason);
  const int loaders[3] = {OP2_LOADER_AUTO, OP2_LOADER_DIRECT, OP2_LOADER_DLOPEN};
  for (int i = 0; i < 3; i++) {
    known.loader = loaders[i];
    void *handle = NULL, *sym = NULL;
    op2_jit_error err = {.code = OP2_OK};
    CHECK(op2_load_object_fd(&known, fd, what, "op2_loop", &handle, &sym, &err) != OP2_OK);
    CHECK(handle == NULL);
    CHECK_CONTAINS(err.msg, "is malformed, not loaded");
    CHECK_CONTAINS(err.msg, reason);
  }
  op2_loaded_objects_destroy(&known);
  close(fd);
}

static void refuses_malformed(const char *path, int has_init_array) {
  size_t len;
  char *orig = read_whole(path, &len), *d = malloc(len);
  CHECK(d != NULL);
  memcpy(d, orig, len);
  ee_phdr_t *p = ee_phdr(d, len, PT_LOAD, PF_W);
  CHECK(p != NULL);
  p->p_flags |= PF_X;
  refused_everywhere("a writable segment made executable", d, len, "writable and executable");

  memcpy(d, orig, len);
  CHECK((p = ee_phdr(d, len, PT_GNU_STACK, 0)) != NULL);
  p->p_flags |= PF_X;
  refused_everywhere("an executable stack asked for", d, len, "executable stack");

  memcpy(d, orig, len);
  ee_dynsym(d, len, "op2_loop")->st_shndx = 0xff1f; /* reserved, and not SHN_ABS */
  refused_everywhere("op2_loop in a reserved section", d, len, "reserved section index");

  memcpy(d, orig, len);
  ee_dynsym(d, len, "op2_loop")->st_shndx = SHN_ABS;
  refused_everywhere("op2_loop absolute", d, len, "absolute");

  /* undefined and weak; the object's _init calls it when it resolves to something */
  memcpy(d, orig, len);
  int text = 0;
  CHECK(ee_section(d, len, ".text", &text) != NULL);
  ee_dynsym(d, len, "__gmon_start__")->st_shndx = (Elf64_Section)text;
  refused_everywhere("__gmon_start__ made defined", d, len, "outside its section");

  if (has_init_array) {
    memcpy(d, orig, len);
    ee_shdr *ia = ee_section(d, len, ".init_array", NULL);
    CHECK(ia != NULL);
    ee_rela *r = ee_rela_at(d, len, ia->sh_addr);
    CHECK(r && ELF64_R_TYPE(r->r_info) == R_X86_64_RELATIVE);
    r->r_addend += 1;
    refused_everywhere("an init entry moved by a byte", d, len, "not a function");
    memcpy(d, orig, len);
    r = ee_rela_at(d, len, ia->sh_addr);
    r->r_addend = (Elf64_Sxword)1 << 32;
    refused_everywhere("a relative relocation far away", d, len, "points outside the object");
  }
  free(d);
  free(orig);
}

/* OP2_LOADER=auto: dlopen for the first objects (gdb and backtraces name them), the direct
 * loader past the threshold, said at OP2_DIAGS=2; an object that needs glibc goes to dlopen
 * whatever the mode, also said. */
static void gate(const char *path) {
  static char notes[8192];
  notes[0] = '\0';
  op2_loaded_objects known;
  op2_loaded_objects_init(&known);
  known.direct_after = 2;
  known.diag = collect_notes, known.diag_ctx = notes;
  void *handles[4];
  for (int i = 0; i < 4; i++) {
    int fd = open_file(path);
    void *sym = NULL;
    op2_jit_error why = {.code = OP2_OK};
    CHECK_EQ_INT(op2_load_object_fd(&known, fd, path, "op2_loop", &handles[i], &sym, &why), OP2_OK);
    close(fd);
    CHECK_EQ_INT(op2_object_dl(handles[i]) != NULL, i < 2);
  }
  fprintf(stderr, "%s", notes);
  CHECK_CONTAINS(notes, "[2] 2 kernel objects loaded with dlopen");
  CHECK_CONTAINS(notes, "the direct loader loads the rest");
  for (int i = 0; i < 4; i++) op2_object_close(handles[i]);
  op2_loaded_objects_destroy(&known);
}

static int have_cc(void) {
  return system("cc --version >/dev/null 2>&1") == 0;
}

static void cc_build(const char *dir, const char *name, const char *src, char *path, size_t len) {
  char c_path[4200], cmd[9000];
  snprintf(c_path, sizeof c_path, "%s/%s.c", dir, name);
  snprintf(path, len, "%s/%s.so", dir, name);
  write_file(c_path, src, strlen(src));
  snprintf(cmd, sizeof cmd, "cc -O2 -shared -fPIC -o '%s' '%s' -lm", path, c_path);
  CHECK(system(cmd) == 0);
  unlink(c_path);
}

int main(void) {
  const char *tmp = getenv("OP2_TEST_TMPDIR");
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/op2-direct-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  CHECK(mkdtemp(dir) != NULL);

  char tcc_so[4200], *log = NULL;
  snprintf(tcc_so, sizeof tcc_so, "%s/tcc.so", dir);
  CHECK(op2_tcc_compile(source, tcc_so, &log) == OP2_OK);
  free(log);
  same_both_ways(tcc_so);
  CHECK(maps_clean()); /* TinyCC's object loaded by dlopen left the stack as it was */
  refuses_damage(tcc_so);
  refuses_malformed(tcc_so, 0);
  gate(tcc_so);

  char not_elf[4200];
  snprintf(not_elf, sizeof not_elf, "%s/text.so", dir);
  char text[512];
  memset(text, 'x', sizeof text); /* longer than any ELF header */
  write_file(not_elf, text, sizeof text);
  refused_by_both(not_elf, "not an ELF file");
  unlink(not_elf);

  if (have_cc()) {
    char cc_so[4200], tls_so[4200], none_so[4200];
    cc_build(dir, "cc", source, cc_so, sizeof cc_so);
    same_both_ways(cc_so);
    refuses_damage(cc_so);
    refuses_malformed(cc_so, 1);

    /* thread-local storage: not the direct loader's, so dlopen loads it */
    cc_build(dir, "tls",
             "__thread int x;\n"
             "void op2_loop(void *const *a, const int *const *m, int b, int e) {\n"
             "  (void)m; x += e - b; *(int *)a[0] = x; }\n",
             tls_so, sizeof tls_so);
    int fd = open_file(tls_so);
    op2_elf_image *img = NULL;
    op2_elf_verdict v;
    op2_jit_error why = {.code = OP2_OK};
    op2_loaded_objects known;
    op2_loaded_objects_init(&known);
    CHECK_EQ_INT(op2_elf_load(fd, open_needed, &known, &img, &v, &why), OP2_OK);
    CHECK(img == NULL && v.glibc_only && !v.no_stack_note); /* sound, glibc's to load */
    CHECK(strstr(v.reason, "thread-local") != NULL);
    static char notes[8192];
    known.loader = OP2_LOADER_DIRECT;
    known.diag = collect_notes, known.diag_ctx = notes;
    void *handle = NULL, *sym = NULL;
    op2_jit_error load_why = {.code = OP2_OK};
    CHECK_EQ_INT(op2_load_object_fd(&known, fd, tls_so, "op2_loop", &handle, &sym, &load_why),
                 OP2_OK);
    CHECK(op2_object_dl(handle) != NULL);
    /* the reason is the kernel's, said once by the engine (cache-dlopen-note), not here too */
    CHECK_CONTAINS(op2_object_dlopen_why(handle), "thread-local storage");
    CHECK(strstr(notes, "loaded with dlopen") == NULL);
    int out = 0;
    void *args[1] = {&out};
    ((loop_fn)sym)(args, NULL, 0, 5);
    CHECK_EQ_INT(out, 5);
    op2_object_close(handle);
    op2_loaded_objects_destroy(&known);
    close(fd);

    /* no entry symbol: refused naming it, nothing left loaded */
    cc_build(dir, "none", "int something_else(void) { return 1; }\n", none_so, sizeof none_so);
    refused_by_both(none_so, "no op2_loop symbol");
    unlink(cc_so), unlink(tls_so), unlink(none_so);
  } else {
    fprintf(stderr, "no system compiler: its objects are not tried\n");
  }
  unlink(tcc_so);
  CHECK(rmdir(dir) == 0);
  return 0;
}
