/* SPDX-License-Identifier: BSD-3-Clause */
/* op2-cache: lists, shows and trims the on-disk kernel cache that op2jit programs fill (one
 * entry is judged by jit/cache_entry.c, as the library judges it). It only reads and deletes
 * files: it never loads a cached shared object, and it never follows a symbolic link found inside
 * the cache, so a planted link cannot make it read or delete anything outside the cache
 * directory. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/cache_entry.h"
#include "jit/jit.h"

enum { EXIT_USAGE = 2 };

static const char usage_text[] =
    "usage: op2-cache [--dir DIR] COMMAND [ARGS]\n"
    "\n"
    "Inspects and trims op2jit's on-disk kernel cache.\n"
    "\n"
    "commands:\n"
    "  list                     one row per entry, least recently used first: last use, loop\n"
    "                           name, hash, target/compiler, size, compile time and status. An\n"
    "                           entry that fails verification (the library would refuse to\n"
    "                           load it) is marked BAD with the reason; then the auto-tuning\n"
    "                           records (OP2_TUNE): loop, set size, machine and choice\n"
    "  show NAME|HASH           the manifest fields, then the generated source, of one entry.\n"
    "                           NAME is a loop name or an entry's directory name; HASH is a\n"
    "                           prefix of the 16 hex digits ending the directory name or of the\n"
    "                           full key. When several entries match (one loop compiled for\n"
    "                           several argument shapes or by several compilers), they are\n"
    "                           listed and nothing is shown: pick one by hash (exit status 1)\n"
    "                           Then the optimised builds that failed (the compiler rejected\n"
    "                           the kernel: it runs TinyCC code and is not built again until\n"
    "                           its source, compiler or flags change): loop, hash, compiler and\n"
    "                           its first error line\n"
    "  retry [NAME|HASH]        forgets the failed optimised builds of loop NAME (or with that\n"
    "                           hash prefix; all when none is given): the next run builds them\n"
    "                           again\n"
    "  clear                    removes every entry (and the records beside them: warnings\n"
    "                           check, failed builds, objects loaded with dlopen) and prints\n"
    "                           how much was freed\n"
    "  prune --max-size SIZE    removes least recently used entries until the entries take at\n"
    "                           most SIZE bytes; SIZE is a number of bytes with an optional\n"
    "                           suffix K, M, G or T (powers of 1024), e.g. 500K, 10M, 1G\n"
    "  prune --older-than DAYS  removes entries last used, and records written, more than\n"
    "                           DAYS days ago (may be combined with --max-size)\n"
    "                           Every prune first removes what builds that were killed left:\n"
    "                           entries without a manifest and temporary files (an entry\n"
    "                           that a running program is building is left alone)\n"
    "\n"
    "options:\n"
    "  --dir DIR    the cache directory. Default, as the library chooses it: $OP2_CACHE_DIR,\n"
    "               else $XDG_CACHE_HOME/op2, else $HOME/.cache/op2, else /tmp/op2-cache-UID\n"
    "  -h, --help   this text\n"
    "\n"
    "An entry is a directory named LOOP-<16 hex digits> holding nothing but cache files\n"
    "(manifest.json, LOOP.c, LOOP.so, for CUDA LOOP.cu, LOOP.cubin, LOOP.ptx, and their temporary\n"
    "files); anything else in the cache\n"
    "directory is left alone. Symbolic links are removed as links, never followed. An\n"
    "entry's last use is its directory's modification time, which programs update on every\n"
    "load. An entry the library loads with dlopen (its direct loader does not support the\n"
    "object) says so in its status, with the reason.\n"
    "\n"
    "exit status: 0 done; 1 no entry matched, several did, or something could not be removed;\n"
    "2 usage error, or the cache directory does not exist.\n";

static int usage_error(const char *fmt, const char *arg) {
  fputs("op2-cache: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs("\nrun 'op2-cache --help' for usage\n", stderr);
  return EXIT_USAGE;
}

/* ---- the entries of one cache directory ---- */

typedef struct entry {
  char dir[300];  /* directory name inside the root */
  char name[256]; /* loop name */
  char hash[17];
  long long bytes; /* regular files only: links are not followed, so they weigh nothing */
  struct timespec used;
  int man_ok;
  op2_manifest man;
  char problem[256]; /* why the library would refuse the entry; "" when it verifies */
  char loader[200];  /* why the library loads it with dlopen (ROOT/loader), or "" */
} entry;

typedef struct cache {
  const char *root;
  int fd;
  entry *e;
  int n, cap;
  int foreign; /* directories named like entries that hold other things, left alone */
} cache;

static int is_lower_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isdigit((unsigned char)s[i]) && !(s[i] >= 'a' && s[i] <= 'f')) return 0;
  return 1;
}

/* LOOP-<16 hex>, LOOP a C identifier as op_par_loop requires. */
static int parse_entry_name(const char *d, char *name, char *hash) {
  size_t len = strlen(d);
  if (len < 18 || len - 17 >= 256 || d[len - 17] != '-' || !is_lower_hex(d + len - 16, 16))
    return 0;
  size_t nlen = len - 17;
  if (!isalpha((unsigned char)d[0]) && d[0] != '_') return 0;
  for (size_t i = 1; i < nlen; i++)
    if (!isalnum((unsigned char)d[i]) && d[i] != '_') return 0;
  memcpy(name, d, nlen);
  name[nlen] = '\0';
  memcpy(hash, d + nlen + 1, 17);
  return 1;
}

/* The entry directory `dir` as the cache-entry module sees it, opened without following a
 * link whoever owns it (list and clear handle entries that the library would refuse). */
static int open_entry(const cache *c, const char *dir, op2_entry *e) {
  e->fd = openat(c->fd, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  e->at = c->fd;
  snprintf(e->path, sizeof e->path, "%s", dir);
  return e->fd >= 0 ? 0 : -1;
}

/* The checks the library makes before loading (jit/cache_entry.c): the tool and the library
 * judge an entry the same way. */
static void verify(entry *e, int efd, const struct stat *dst) {
  op2_jit_error why;
  if (op2_cache_private(dst, "directory", &why) != OP2_OK) {
    snprintf(e->problem, sizeof e->problem, "%s", why.msg);
    return;
  }
  op2_entry d = {.fd = efd};
  snprintf(d.path, sizeof d.path, "%s", e->dir);
  const op2_entry_expect ex = {.name = e->name, .key = e->hash};
  op2_entry_verified v;
  if (op2_entry_verify(&d, &ex, &v, &why) != OP2_OK)
    snprintf(e->problem, sizeof e->problem, "%s", why.msg);
  e->man_ok = v.manifest_ok;
  e->man = v.m;
  op2_entry_verified_clear(&v);
}

static entry *push_entry(cache *c) {
  if (c->n == c->cap) {
    int cap = c->cap ? 2 * c->cap : 32;
    entry *ne = realloc(c->e, (size_t)cap * sizeof *ne);
    if (!ne) return NULL;
    c->e = ne, c->cap = cap;
  }
  entry *e = &c->e[c->n++];
  memset(e, 0, sizeof *e);
  return e;
}

static int scan_entry(cache *c, const char *dname) {
  char name[256], hash[17];
  struct stat dst;
  if (!parse_entry_name(dname, name, hash)) return 0;
  if (fstatat(c->fd, dname, &dst, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(dst.st_mode)) return 0;
  int efd = openat(c->fd, dname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = efd >= 0 ? fdopendir(efd) : NULL;
  if (!d) {
    /* Listed (as BAD) rather than hidden: someone else's directory in our cache is news. */
    int err = errno;
    if (efd >= 0) close(efd);
    entry *e = push_entry(c);
    if (!e) return fprintf(stderr, "op2-cache: out of memory\n"), -1;
    snprintf(e->dir, sizeof e->dir, "%s", dname);
    memcpy(e->name, name, sizeof name);
    memcpy(e->hash, hash, sizeof hash);
    e->used = dst.st_mtim;
    snprintf(e->problem, sizeof e->problem, "cannot read the directory: %s", strerror(err));
    return 0;
  }
  long long bytes = 0;
  int foreign = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    struct stat st;
    if (!op2_cache_file_kind(name, de->d_name) ||
        fstatat(efd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode)) {
      foreign = 1;
      break;
    }
    if (S_ISREG(st.st_mode)) bytes += (long long)st.st_size;
  }
  entry *e = foreign ? NULL : push_entry(c);
  if (e) {
    snprintf(e->dir, sizeof e->dir, "%s", dname);
    memcpy(e->name, name, sizeof name);
    memcpy(e->hash, hash, sizeof hash);
    e->bytes = bytes;
    e->used = dst.st_mtim;
    verify(e, efd, &dst);
  }
  closedir(d);
  if (foreign)
    c->foreign++;
  else if (!e)
    return fprintf(stderr, "op2-cache: out of memory\n"), -1;
  return 0;
}

static int by_last_use(const void *a, const void *b) {
  const entry *x = a, *y = b;
  if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
  if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? -1 : 1;
  return strcmp(x->dir, y->dir);
}

/* Opens and scans the root; returns an exit status (0 when usable). */
static int cache_open(cache *c, const char *root) {
  memset(c, 0, sizeof *c);
  c->root = root;
  struct stat st;
  if (stat(root, &st) != 0) {
    fprintf(stderr, "op2-cache: cache directory %s %s\n", root,
            errno == ENOENT ? "does not exist" : strerror(errno));
    return EXIT_USAGE;
  }
  if (!S_ISDIR(st.st_mode)) {
    fprintf(stderr, "op2-cache: %s is not a directory\n", root);
    return EXIT_USAGE;
  }
  c->fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR *d = c->fd >= 0 ? fdopendir(dup(c->fd)) : NULL;
  if (!d) {
    fprintf(stderr, "op2-cache: cannot read %s: %s\n", root, strerror(errno));
    if (c->fd >= 0) close(c->fd);
    return EXIT_USAGE;
  }
  int rc = 0;
  for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) rc = scan_entry(c, de->d_name);
  closedir(d);
  if (c->n) qsort(c->e, (size_t)c->n, sizeof *c->e, by_last_use);
  return rc ? 1 : 0;
}

static void cache_close(cache *c) {
  free(c->e);
  if (c->fd >= 0) close(c->fd);
}

/* ---- output ---- */

static const char *human(long long bytes, char out[24]) {
  if (bytes < 1024) {
    snprintf(out, 24, "%lldB", bytes);
    return out;
  }
  double v = (double)bytes;
  int unit = -1;
  while (v >= 1024 && unit < 3) v /= 1024, unit++;
  snprintf(out, 24, "%.1f%c", v, "KMGT"[unit]);
  return out;
}

static const char *when(const struct timespec *t, char out[32]) {
  struct tm tm;
  time_t s = t->tv_sec;
  if (!localtime_r(&s, &tm) || !strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm))
    snprintf(out, 32, "@%lld", (long long)s);
  return out;
}

static long long total_bytes(const cache *c) {
  long long t = 0;
  for (int i = 0; i < c->n; i++) t += c->e[i].bytes;
  return t;
}

/* TARGET/COMPILER, e.g. c/tcc or c/gcc-12: one loop shape may be cached once per compiler tier,
 * and this tells the rows apart. The compiler is the basename of the first word of its identity
 * ("libtcc ..." for TinyCC, the resolved path of the optimising compiler otherwise). */
static const char *built_by(const entry *e, char out[48]) {
  if (!e->man_ok) return "-";
  const char *id = e->man.compiler;
  size_t n = strcspn(id, " ");
  const char *base = id;
  for (const char *p = id; p < id + n; p++)
    if (*p == '/') base = p + 1;
  n -= (size_t)(base - id);
  if (n == 6 && strncmp(base, "libtcc", 6) == 0) base = "tcc", n = 3;
  snprintf(out, 48, "%s/%.*s", e->man.target, (int)(n > 26 ? 26 : n), base);
  return out;
}

#define ROW_FORMAT "%-19s  %-20s %-16s  %-28s %15s %10s  %s%s\n"

static void print_header(FILE *out) {
  fprintf(out, ROW_FORMAT, "LAST USED", "LOOP", "HASH", "BUILT BY", "SIZE", "COMPILE", "STATUS",
          "");
}

static void print_row(FILE *out, const entry *e) {
  char t[32], h[24], size[48], ms[32], by[48];
  snprintf(size, sizeof size, "%lld (%s)", e->bytes, human(e->bytes, h));
  if (e->man_ok)
    snprintf(ms, sizeof ms, "%.1f ms", e->man.compile_ms);
  else
    snprintf(ms, sizeof ms, "-");
  char status[300];
  if (e->problem[0])
    snprintf(status, sizeof status, "BAD: %s", e->problem);
  else if (e->loader[0])
    snprintf(status, sizeof status, "ok, loaded with dlopen: %s", e->loader);
  else
    snprintf(status, sizeof status, "ok");
  fprintf(out, ROW_FORMAT, when(&e->used, t), e->name, e->hash, built_by(e, by), size, ms, status,
          "");
}

static const char *json_text(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsString(v) ? v->valuestring : "?";
}

static double json_number(const cJSON *o, const char *name) {
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);
  return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* ---- the records beside the entries: ROOT/KIND/NAME-KEY16.txt (jit/kernel_records.c) ---- */

/* Calls fn for each record of `kind` (regular files named like an entry plus ".txt"; links and
 * anything else there are not the library's and are left alone) with its directory, file name,
 * loop name, hash and status. Returns 0, or 1 when the directory cannot be read. */
typedef int (*record_fn)(const cache *c, int dfd, const char *file, const char *name,
                         const char *hash, const struct stat *st, void *arg);
static int each_record(const cache *c, const char *kind, record_fn fn, void *arg) {
  int dfd = openat(c->fd, kind, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dfd < 0) return errno == ENOENT || errno == ENOTDIR || errno == ELOOP ? 0 : 1;
  DIR *d = fdopendir(dfd);
  if (!d) return close(dfd), 1;
  int failed = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    size_t len = strlen(de->d_name);
    char base[300], name[256], hash[17];
    struct stat st;
    if (len < 5 || len >= sizeof base || strcmp(de->d_name + len - 4, ".txt") != 0) continue;
    snprintf(base, sizeof base, "%.*s", (int)(len - 4), de->d_name);
    if (!parse_entry_name(base, name, hash) ||
        fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
      continue;
    failed |= fn(c, dfd, de->d_name, name, hash, &st, arg) != 0;
  }
  closedir(d);
  return failed;
}

/* The first line of a record (at most `len` - 1 bytes), read as the library reads records. */
static void record_first_line(int dfd, const char *file, char *out, size_t len) {
  out[0] = '\0';
  int fd = openat(dfd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return;
  ssize_t got = read(fd, out, len - 1);
  close(fd);
  out[got > 0 ? got : 0] = '\0';
  out[strcspn(out, "\n")] = '\0';
}

static int note_loader(const cache *c, int dfd, const char *file, const char *name,
                       const char *hash, const struct stat *st, void *arg) {
  (void)name, (void)hash, (void)st, (void)arg;
  for (int i = 0; i < c->n; i++)
    if (strncmp(c->e[i].dir, file, strlen(c->e[i].dir)) == 0 &&
        strcmp(file + strlen(c->e[i].dir), ".txt") == 0)
      record_first_line(dfd, file, c->e[i].loader, sizeof c->e[i].loader);
  return 0;
}

static int list_failure(const cache *c, int dfd, const char *file, const char *name,
                        const char *hash, const struct stat *st, void *arg) {
  (void)st;
  int *n = arg;
  char first[600];
  record_first_line(dfd, file, first, sizeof first);
  if ((*n)++ == 0)
    printf(
        "failed optimised builds (%s/%s; these loops run TinyCC code; 'op2-cache retry' "
        "builds them again):\n",
        c->root, OP2_RECORD_FAILURES);
  printf("  %-20s %-16s  %s\n", name, hash, first[0] ? first : "(unreadable record)");
  return 0;
}

/* One line per record under ROOT/tune (runtime/tune.c writes them). Records are read as the
 * library reads them: regular files only, never through a link. */
static void list_tuning(const cache *c) {
  int dfd = openat(c->fd, "tune", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
  if (!d) {
    if (dfd >= 0) close(dfd);
    return;
  }
  int n = 0;
  for (struct dirent *de; (de = readdir(d)) != NULL;) {
    size_t len = strlen(de->d_name);
    if (len < 6 || strcmp(de->d_name + len - 5, ".json") != 0) continue;
    int fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st;
    char text[65536];
    ssize_t got = -1;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size < (off_t)sizeof text)
      got = read(fd, text, sizeof text - 1);
    if (fd >= 0) close(fd);
    cJSON *r = NULL;
    if (got >= 0) text[got] = 0, r = cJSON_Parse(text);
    if (n++ == 0) printf("tuning records (%s/tune):\n", c->root);
    if (!cJSON_IsObject(r))
      printf("  %-16s BAD: not a readable tuning record\n", de->d_name);
    else
      printf("  %-16s set size %.0f, %s, %.0f thread%s, %s: %s\n", json_text(r, "loop"),
             json_number(r, "set_size"), json_text(r, "backend"), json_number(r, "threads"),
             json_number(r, "threads") == 1 ? "" : "s", json_text(r, "cpu"),
             json_text(r, "description"));
    cJSON_Delete(r);
  }
  closedir(d);
}

static int cmd_list(cache *c) {
  char h[24];
  op2_jit_error why;
  if (op2_cache_root_usable(c->root, 0, &why) != OP2_OK)
    printf("warning: programs will not use this cache: %s\n", why.msg);
  long long total = total_bytes(c);
  printf("cache %s: %d entr%s, %lld bytes (%s)\n", c->root, c->n, c->n == 1 ? "y" : "ies", total,
         human(total, h));
  each_record(c, OP2_RECORD_LOADER, note_loader, NULL);
  if (c->n) print_header(stdout);
  for (int i = 0; i < c->n; i++) print_row(stdout, &c->e[i]);
  if (c->foreign)
    printf("(%d director%s named like entries but holding other files: left out)\n", c->foreign,
           c->foreign == 1 ? "y" : "ies");
  int failures = 0;
  each_record(c, OP2_RECORD_FAILURES, list_failure, &failures);
  list_tuning(c);
  return 0;
}

static int matches_hash(const entry *e, const char *arg) {
  size_t n = strlen(arg);
  char lower[40];
  if (n == 0 || n > 32) return 0;
  for (size_t i = 0; i <= n; i++) lower[i] = (char)tolower((unsigned char)arg[i]);
  if (!is_lower_hex(lower, n)) return 0;
  if (n <= 16) return strncmp(e->hash, lower, n) == 0;
  return e->man_ok && strncmp(e->man.key, lower, n) == 0;
}

static void print_json_item(const cJSON *it) {
  if (cJSON_IsString(it)) {
    printf("%-14s %s\n", it->string, it->valuestring);
  } else if (cJSON_IsNumber(it)) {
    double v = it->valuedouble;
    if (v > -9e15 && v < 9e15 && v == (double)(long long)v)
      printf("%-14s %lld\n", it->string, (long long)v);
    else
      printf("%-14s %.6g\n", it->string, v);
  } else if (cJSON_IsArray(it)) {
    printf("%s:\n", it->string);
    for (const cJSON *x = it->child; x; x = x->next) {
      char *text = cJSON_IsString(x) ? NULL : cJSON_PrintUnformatted(x);
      printf("  %s\n", text ? text : x->valuestring ? x->valuestring : "?");
      free(text);
    }
  } else {
    char *text = cJSON_PrintUnformatted(it);
    printf("%-14s %s\n", it->string, text ? text : "?");
    free(text);
  }
}

static int show_entry(const cache *c, const entry *e) {
  char t[32], h[24];
  printf("entry          %s/%s\n", c->root, e->dir);
  printf("status         %s%s\n", e->problem[0] ? "BAD: " : "ok", e->problem);
  printf("size           %lld bytes (%s)\n", e->bytes, human(e->bytes, h));
  printf("last used      %s\n", when(&e->used, t));
  op2_entry d;
  if (open_entry(c, e->dir, &d) != 0) {
    fprintf(stderr, "op2-cache: cannot open %s/%s: %s\n", c->root, e->dir, strerror(errno));
    return 1;
  }
  char *text, src[300];
  op2_jit_error problem;
  size_t len;
  if (op2_entry_read(&d, "manifest.json", &text, &len, &problem) == OP2_OK) {
    cJSON *j = cJSON_ParseWithLength(text, len);
    if (cJSON_IsObject(j)) {
      printf("manifest:\n");
      for (const cJSON *it = j->child; it; it = it->next) print_json_item(it);
    } else {
      printf("manifest.json (not valid JSON):\n%s%s", text,
             len && text[len - 1] == '\n' ? "" : "\n");
    }
    cJSON_Delete(j);
    free(text);
  } else {
    printf("manifest: %s\n", problem.msg);
  }
  snprintf(src, sizeof src, "%s.c", e->name);
  if (faccessat(d.fd, src, F_OK, AT_SYMLINK_NOFOLLOW) != 0)
    snprintf(src, sizeof src, "%s.cu", e->name);
  if (op2_entry_read(&d, src, &text, &len, &problem) == OP2_OK) {
    printf("---- generated source %s/%s/%s ----\n", c->root, e->dir, src);
    fwrite(text, 1, len, stdout);
    if (len && text[len - 1] != '\n') putchar('\n');
    free(text);
  } else {
    printf("---- generated source: %s ----\n", problem.msg);
  }
  op2_entry_close(&d);
  return 0;
}

static int cmd_show(cache *c, const char *arg) {
  int *hit = malloc(((size_t)c->n + 1) * sizeof *hit), nhit = 0;
  if (!hit) return fprintf(stderr, "op2-cache: out of memory\n"), 1;
  /* A loop name wins over a hash prefix: names such as "add" are valid hex too. */
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->e[i].name, arg) == 0 || strcmp(c->e[i].dir, arg) == 0) hit[nhit++] = i;
  for (int i = 0; nhit == 0 && i < c->n; i++)
    if (matches_hash(&c->e[i], arg)) hit[nhit++] = i;
  int rc = 0;
  if (nhit == 0) {
    fprintf(stderr, "op2-cache: no entry in %s matches '%s'\n", c->root, arg);
    rc = 1;
  } else if (nhit > 1) {
    fprintf(stderr, "op2-cache: '%s' matches %d entries; name one by its hash:\n", arg, nhit);
    print_header(stderr);
    for (int i = 0; i < nhit; i++) print_row(stderr, &c->e[hit[i]]);
    rc = 1;
  } else {
    rc = show_entry(c, &c->e[hit[0]]);
  }
  free(hit);
  return rc;
}

/* Unlinks the entry's files (links as links) and then its directory. Files that appeared since
 * the scan and are not cache files stop the removal of that entry. */
static int remove_entry(const cache *c, const entry *e) {
  op2_entry d;
  op2_jit_error why;
  if (open_entry(c, e->dir, &d) != 0) {
    fprintf(stderr, "op2-cache: cannot open %s/%s: %s\n", c->root, e->dir, strerror(errno));
    return -1;
  }
  int rc = op2_entry_remove(&d, e->name, 0, NULL, &why) == OP2_OK ? 0 : -1;
  if (rc != 0) fprintf(stderr, "op2-cache: %s/%s\n", c->root, why.msg);
  op2_entry_close(&d);
  return rc;
}

static int remove_and_report(const cache *c, const entry *e, int *removed, long long *freed) {
  if (remove_entry(c, e) != 0) return -1;
  char h[24];
  printf("removed %s (%s)\n", e->dir, human(e->bytes, h));
  (*removed)++;
  *freed += e->bytes;
  return 0;
}

/* Which records a removal takes: those written before `cutoff` (all when cutoff < 0) whose loop
 * is `name` or whose hash starts with `hash` (all when both are NULL). */
typedef struct removal {
  double cutoff;
  const char *name, *hash;
  int n, failed;
  long long bytes;
} removal;

static int remove_record(const cache *c, int dfd, const char *file, const char *name,
                         const char *hash, const struct stat *st, void *arg) {
  removal *r = arg;
  if (r->cutoff >= 0 && (double)st->st_mtime >= r->cutoff) return 0;
  if ((r->name || r->hash) && !(r->name && strcmp(r->name, name) == 0) &&
      !(r->hash && strncmp(hash, r->hash, strlen(r->hash)) == 0))
    return 0;
  if (unlinkat(dfd, file, 0) != 0) {
    fprintf(stderr, "op2-cache: cannot remove the record %s in %s: %s\n", file, c->root,
            strerror(errno));
    return r->failed = 1;
  }
  r->n++, r->bytes += st->st_size;
  return 0;
}

/* The records of every kind written before `cutoff` (all when cutoff < 0). A removed warnings
 * record only makes that check run once more; a removed failure record makes the next run try
 * that build again; a removed loader record is written again at the next load. */
static int remove_records(const cache *c, double cutoff) {
  static const struct {
    const char *kind, *what;
  } kinds[] = {{OP2_RECORD_WARNINGS, "warnings check record"},
               {OP2_RECORD_FAILURES, "failed build record"},
               {OP2_RECORD_LOADER, "dlopen record"}};
  int failed = 0;
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    removal r = {.cutoff = cutoff};
    failed |= each_record(c, kinds[k].kind, remove_record, &r) | r.failed;
    char h[24];
    if (r.n)
      printf("removed %d %s%s (%s)\n", r.n, kinds[k].what, r.n == 1 ? "" : "s", human(r.bytes, h));
  }
  return failed;
}

/* Forgets failed builds, so that the next run builds them again. */
static int cmd_retry(cache *c, const char *arg) {
  char lower[40] = "";
  int is_hash = arg && strlen(arg) <= 16;
  for (size_t i = 0; is_hash && i <= strlen(arg); i++)
    lower[i] = (char)tolower((unsigned char)arg[i]);
  is_hash = is_hash && *lower && is_lower_hex(lower, strlen(lower));
  removal r = {.cutoff = -1, .name = arg, .hash = is_hash ? lower : NULL};
  r.failed = each_record(c, OP2_RECORD_FAILURES, remove_record, &r);
  if (arg && r.n == 0 && !r.failed) {
    fprintf(stderr, "op2-cache: no failed build in %s/%s matches '%s'\n", c->root,
            OP2_RECORD_FAILURES, arg);
    return 1;
  }
  printf("forgot %d failed build%s: the next run builds %s again\n", r.n, r.n == 1 ? "" : "s",
         r.n == 1 ? "it" : "them");
  return r.failed;
}

static int cmd_clear(cache *c) {
  int removed = 0, failed = 0;
  long long freed = 0;
  char h[24];
  for (int i = 0; i < c->n; i++) failed |= remove_and_report(c, &c->e[i], &removed, &freed) != 0;
  failed |= remove_records(c, -1);
  printf("cleared %s: removed %d entr%s, freed %lld bytes (%s)\n", c->root, removed,
         removed == 1 ? "y" : "ies", freed, human(freed, h));
  return failed ? 1 : 0;
}

/* SIZE: bytes with an optional K, M, G or T suffix (powers of 1024), optionally followed by B or
 * iB. Returns -1 when it is not one. */
static long long parse_size(const char *s) {
  if (!isdigit((unsigned char)*s)) return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  int shift = 0;
  const char *units = "KMGT", *u = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
  if (u) shift = 10 * (int)(u - units + 1), end++;
  if (*end && strcmp(end, "B") != 0 && !(u && strcmp(end, "iB") == 0)) return -1;
  if (v > (unsigned long long)(0x7fffffffffffffffLL >> shift)) return -1;
  return (long long)(v << shift);
}

/* What builds killed midway (kill -9, a crash) leave: entries without a manifest and temporary
 * files. The pid in a temporary name is for people; what decides is the entry's build lock,
 * which every writer holds from its first file to the manifest and which dies with it. An entry
 * whose lock is held is being built: it is marked in `skip` and left alone. */
static int prune_leftovers(cache *c, char *skip, int *removed, long long *freed, long long *total) {
  int failed = 0;
  char h[24];
  op2_jit_error why;
  for (int i = 0; i < c->n; i++) {
    entry *e = &c->e[i];
    op2_entry d;
    if (open_entry(c, e->dir, &d) != 0) continue;
    if (op2_entry_try_lock(&d) != 0) {
      skip[i] = 1;
      op2_entry_close(&d);
      continue;
    }
    struct stat st;
    int incomplete =
        fstatat(d.fd, "manifest.json", &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT;
    long long bytes = 0;
    if (op2_entry_remove(&d, e->name, !incomplete, &bytes, &why) != OP2_OK) {
      fprintf(stderr, "op2-cache: %s/%s\n", c->root, why.msg);
      failed = 1;
    } else if (incomplete) {
      printf("removed %s (%s, no manifest: a build that did not finish)\n", e->dir,
             human(e->bytes, h));
      skip[i] = 1, (*removed)++, *freed += e->bytes, *total -= e->bytes;
    } else if (bytes > 0) {
      printf("removed temporary files of finished processes in %s (%s)\n", e->dir, human(bytes, h));
      e->bytes -= bytes, *freed += bytes, *total -= bytes;
    }
    op2_entry_close(&d);
  }
  return failed;
}

static int cmd_prune(cache *c, const char *max_size, const char *older_than) {
  long long limit = -1;
  double days = -1;
  if (max_size && (limit = parse_size(max_size)) < 0)
    return usage_error("--max-size: '%s' is not a size (bytes, or a number with K, M, G or T)",
                       max_size);
  if (older_than) {
    char *end;
    days = strtod(older_than, &end);
    if (end == older_than || *end || !(days >= 0) || days > 1e6)
      return usage_error("--older-than: '%s' is not a number of days", older_than);
  }
  int removed = 0, failed = 0;
  long long freed = 0, total = total_bytes(c);
  char *gone = calloc((size_t)c->n + 1, 1);
  if (!gone) return fprintf(stderr, "op2-cache: out of memory\n"), 1;
  failed |= prune_leftovers(c, gone, &removed, &freed, &total);
  if (days >= 0) {
    double cutoff = (double)time(NULL) - days * 86400.0;
    failed |= remove_records(c, cutoff);
    for (int i = 0; i < c->n; i++) {
      if (gone[i] || (double)c->e[i].used.tv_sec >= cutoff) continue;
      if (remove_and_report(c, &c->e[i], &removed, &freed) == 0)
        gone[i] = 1, total -= c->e[i].bytes;
      else
        failed = 1;
    }
  }
  /* Entries are sorted least recently used first. */
  for (int i = 0; limit >= 0 && total > limit && i < c->n; i++) {
    if (gone[i]) continue;
    if (remove_and_report(c, &c->e[i], &removed, &freed) == 0)
      gone[i] = 1, total -= c->e[i].bytes;
    else
      failed = 1;
  }
  free(gone);
  char h1[24], h2[24];
  printf("pruned %s: removed %d entr%s, freed %lld bytes (%s); %d left, %lld bytes (%s)\n", c->root,
         removed, removed == 1 ? "y" : "ies", freed, human(freed, h1), c->n - removed, total,
         human(total, h2));
  return failed ? 1 : 0;
}

/* The cache root exactly as the library picks it. */
static int default_root(char *out, size_t len) {
  const char *dir = getenv("OP2_CACHE_DIR");
  if (!dir) return op2_cache_default_root(out, len);
  int n = snprintf(out, len, "%s", dir);
  return *dir && n > 0 && (size_t)n < len ? 0 : -1;
}

/* --name VALUE or --name=VALUE. Returns 1 when argv[*i] is that option (VALUE in *out, NULL when
 * missing), 0 otherwise. */
static int option(const char *name, int argc, char **argv, int *i, const char **out) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return 0;
  if (a[n] == '=') return *out = a + n + 1, 1;
  if (a[n] != '\0') return 0;
  *out = *i + 1 < argc ? argv[++*i] : NULL;
  return 1;
}

int main(int argc, char **argv) {
  const char *dir = NULL, *cmd = NULL, *arg = NULL, *max_size = NULL, *older = NULL;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL, **slot = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(usage_text, stdout);
      return 0;
    }
    if (option("--dir", argc, argv, &i, &v))
      slot = &dir;
    else if (option("--max-size", argc, argv, &i, &v))
      slot = &max_size;
    else if (option("--older-than", argc, argv, &i, &v))
      slot = &older;
    else if (a[0] == '-')
      return usage_error("unknown option '%s'", a);
    if (slot) {
      if (!v || !*v) return usage_error("%s needs a value", a);
      *slot = v;
    } else if (!cmd) {
      cmd = a;
    } else if (!arg && (strcmp(cmd, "show") == 0 || strcmp(cmd, "retry") == 0)) {
      arg = a;
    } else {
      return usage_error("unexpected argument '%s'", a);
    }
  }
  if (!cmd) return usage_error("%s", "missing command (list, show, retry, clear or prune)");
  int list = strcmp(cmd, "list") == 0, show = strcmp(cmd, "show") == 0,
      clear = strcmp(cmd, "clear") == 0, prune = strcmp(cmd, "prune") == 0,
      retry = strcmp(cmd, "retry") == 0;
  if (!list && !show && !clear && !prune && !retry) return usage_error("unknown command '%s'", cmd);
  if (show && !arg) return usage_error("%s", "show needs a loop name or hash");
  if (prune && !max_size && !older)
    return usage_error("%s", "prune needs --max-size SIZE or --older-than DAYS");
  if (!prune && (max_size || older))
    return usage_error("--max-size and --older-than apply to prune, not to %s", cmd);
  char root[OP2_PATH_MAX];
  if (dir)
    snprintf(root, sizeof root, "%s", dir);
  else if (default_root(root, sizeof root) != 0)
    return usage_error("%s", "no cache directory: OP2_CACHE_DIR is empty or too long");

  cache c;
  int rc = cache_open(&c, root);
  if (rc == EXIT_USAGE) return rc;
  if (rc == 0) {
    if (list)
      rc = cmd_list(&c);
    else if (show)
      rc = cmd_show(&c, arg);
    else if (clear)
      rc = cmd_clear(&c);
    else if (retry)
      rc = cmd_retry(&c, arg);
    else
      rc = cmd_prune(&c, max_size, older);
  }
  cache_close(&c);
  if (fflush(stdout) != 0) rc = 1;
  return rc;
}
