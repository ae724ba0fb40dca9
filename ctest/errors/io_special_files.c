/* SPDX-License-Identifier: BSD-3-Clause */
/* Output calls write through devices, FIFOs and symbolic links instead of replacing them (issue
 * 24, item 1). For each writer (op_print_dat_to_txtfile, op_print_dat_to_binfile,
 * op_timing_output_2_file, op_timings_to_csv, OP2_PROFILE_JSON, op_dump_to_hdf5 with its XDMF,
 * op_fetch_data_hdf5_file, op_checkpoint):
 *   - a private character device with /dev/null's numbers stays that device (text writers write
 *     into it; HDF5 writers refuse it with a message naming it), skipped when mknod is refused;
 *   - a symbolic link stays a link and its regular target gets the new contents (a dangling link
 *     gets its new target created);
 *   - a FIFO stays a FIFO and its reader receives exactly what a regular file would hold (a FIFO
 *     nobody reads is refused with a message, not waited on forever);
 *   - the XDMF beside a dump, as a link or a FIFO, is written through;
 *   - /dev/stdout, or a link to it, with stdout redirected to a file gets the text where the
 *     program's output stands, and with stdout a pipe sends it down the pipe;
 *   - no temporary file is left behind.
 * Usage: io_special_files (scratch directories under TMPDIR). */
#include <errno.h>
#include <fcntl.h>
#include <sys/sysmacros.h>

#include "errors_util.h"

static op_set nodes;
static op_dat d;
static char dir[4096];
static int have_device;

typedef struct writer {
  const char *name;
  void (*write)(const char *path);
  int hdf5;   /* written by the HDF5 library: a device or FIFO is refused */
  int stable; /* the same contents every time (timings are not) */
} writer;

static void w_txt(const char *p) {
  op_print_dat_to_txtfile(d, p);
}
static void w_bin(const char *p) {
  op_print_dat_to_binfile(d, p);
}
static void w_timing(const char *p) {
  op_timing_output_2_file(p);
}
static void w_csv(const char *p) {
  op_timings_to_csv(p);
}
static void w_fetch_h5(const char *p) {
  op_fetch_data_hdf5_file(d, p);
}
static void w_dump(const char *p) {
  op_dump_to_hdf5(p);
}

static const writer writers[] = {
    {"op_print_dat_to_txtfile", w_txt, 0, 1},      {"op_print_dat_to_binfile", w_bin, 0, 1},
    {"op_timing_output_2_file", w_timing, 0, 0},   {"op_timings_to_csv", w_csv, 0, 0},
    {"op_fetch_data_hdf5_file", w_fetch_h5, 1, 0}, {"op_dump_to_hdf5", w_dump, 1, 0},
};
enum { NWRITERS = sizeof writers / sizeof writers[0] };

static void path_in(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", dir, name);
}

static void put_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  fputs(text, f);
  CHECK(fclose(f) == 0);
}

typedef struct bytes {
  char data[60000];
  size_t len;
} bytes;

static void read_bytes(const char *path, bytes *b) {
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  b->len = 0;
  for (ssize_t got; (got = read(fd, b->data + b->len, sizeof b->data - b->len)) > 0;)
    b->len += (size_t)got;
  close(fd);
}

/* What `w` wrote, against what it writes into a regular file: the same bytes, or for timings
 * (which change from call to call) a table naming the loop. */
static void same_output(const writer *w, const bytes *got, const bytes *want) {
  CHECK(got->len > 0);
  if (w->stable) {
    CHECK_EQ_INT(got->len, want->len);
    CHECK(memcmp(got->data, want->data, got->len) == 0);
  } else {
    char text[60001];
    memcpy(text, got->data, got->len);
    text[got->len] = '\0';
    CHECK_CONTAINS(text, "scale");
  }
}

static size_t file_size(const char *path) {
  struct stat st;
  CHECK(stat(path, &st) == 0);
  return (size_t)st.st_size;
}

/* The entries of the scratch directory other than `keep...` (NULL-terminated): none may be a
 * temporary file left behind. */
static void no_temporaries(void) {
  DIR *dd = opendir(dir);
  CHECK(dd != NULL);
  for (struct dirent *e; (e = readdir(dd));)
    if (strstr(e->d_name, ".tmp")) {
      fprintf(stderr, "temporary file left behind: %s/%s\n", dir, e->d_name);
      CHECK(0);
    }
  closedir(dd);
}

static void check_device(const writer *w) {
  if (!have_device) return;
  char dev[4200];
  path_in(dev, sizeof dev, "null");
  if (w->hdf5) {
    EXPECT_ERROR(w->write(dev), "not a regular file (a character device)");
    CHECK_CONTAINS(op_last_error(), dev);
  } else {
    w->write(dev);
  }
  struct stat st;
  CHECK(lstat(dev, &st) == 0);
  CHECK(S_ISCHR(st.st_mode));
  CHECK(major(st.st_rdev) == 1 && minor(st.st_rdev) == 3);
}

/* The contents a writer gives a new regular file (where the others are compared with it). */
static void reference(const writer *w, bytes *b) {
  char ref[4200];
  path_in(ref, sizeof ref, "reference");
  w->write(ref);
  read_bytes(ref, b);
  CHECK(unlink(ref) == 0);
}

static bytes want, got;

static void check_links(const writer *w) {
  char link[4200], target[4200], dangling[4200], fresh[4200];
  path_in(link, sizeof link, "link");
  path_in(target, sizeof target, "target");
  path_in(dangling, sizeof dangling, "dangling");
  path_in(fresh, sizeof fresh, "fresh");
  /* An existing target: text for the text writers; for HDF5 an HDF5 file (a dat is added to an
   * existing one, so it must be one). */
  if (w->hdf5)
    w->write(target);
  else
    put_file(target, "old contents\n");
  struct stat before;
  CHECK(stat(target, &before) == 0);
  CHECK(symlink("target", link) == 0); /* relative, as users make them */
  CHECK(symlink(fresh, dangling) == 0);
  w->write(link);
  w->write(dangling);
  struct stat st;
  CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(lstat(dangling, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(lstat(target, &st) == 0 && S_ISREG(st.st_mode));
  CHECK(lstat(fresh, &st) == 0 && S_ISREG(st.st_mode));
  if (!w->hdf5) {
    reference(w, &want);
    read_bytes(target, &got);
    same_output(w, &got, &want);
    read_bytes(fresh, &got);
    same_output(w, &got, &want);
  } else {
    CHECK(file_size(target) > 100);
    /* a dump replaces the file the link leads to (a new inode), the link stays */
    if (w->write == w_dump) CHECK(stat(target, &st) == 0 && st.st_ino != before.st_ino);
  }
  CHECK(unlink(link) == 0 && unlink(target) == 0 && unlink(dangling) == 0 && unlink(fresh) == 0);
}

static void check_fifo(const writer *w) {
  char fifo[4200];
  path_in(fifo, sizeof fifo, "fifo");
  CHECK(mkfifo(fifo, 0600) == 0);
  if (w->hdf5) {
    EXPECT_ERROR(w->write(fifo), "not a regular file (a FIFO)");
  } else {
    /* The reader is open before the writer comes (what ENXIO tells apart); the outputs here
     * are smaller than a pipe's buffer, so the writer never waits for the reads. */
    int rd = open(fifo, O_RDONLY | O_NONBLOCK);
    CHECK(rd >= 0);
    w->write(fifo);
    got.len = 0;
    for (ssize_t n; (n = read(rd, got.data + got.len, sizeof got.data - got.len)) > 0;)
      got.len += (size_t)n;
    close(rd);
    reference(w, &want);
    same_output(w, &got, &want);
  }
  struct stat st;
  CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
  CHECK(unlink(fifo) == 0);
}

static const char *kernel = "void scale(double *v) { v[0] = 2 * v[0] + 1; }\n";

static void declare_mesh(void) {
  nodes = op_decl_set(5, "nodes");
  double v[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  d = op_decl_dat(nodes, 2, "double", v, "d");
  /* a quadrilateral on 2-D double coordinates: a dump writes its XDMF description too */
  op_set cells = op_decl_set(1, "cells");
  int quad[4] = {0, 1, 2, 3};
  op_decl_map(cells, nodes, 4, quad, "cell_nodes");
}

static void run_loop(void) {
  op_par_loop(kernel, "scale", nodes, op_arg_dat(d, -1, OP_ID, 2, "double", OP_RW));
}

static void declare(void) {
  declare_mesh();
  run_loop();
}

/* stdout redirected to a file (as `prog > log`), written through `name` (/dev/stdout, or a link
 * of the user's that leads to it): the text goes into the log after what the program printed
 * before, the log is not replaced or rewound. */
static void stdout_to_log(const char *name) {
  char log[4200];
  path_in(log, sizeof log, "log");
  bytes want_txt;
  reference(&writers[0], &want_txt);
  fflush(stdout);
  int saved = dup(STDOUT_FILENO), fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(saved >= 0 && fd >= 0 && dup2(fd, STDOUT_FILENO) >= 0);
  struct stat before, after;
  CHECK(fstat(fd, &before) == 0);
  close(fd);
  printf("before\n");
  w_txt(name);
  printf("after\n");
  fflush(stdout);
  CHECK(dup2(saved, STDOUT_FILENO) >= 0);
  close(saved);
  CHECK(stat(log, &after) == 0 && after.st_ino == before.st_ino);
  read_bytes(log, &got);
  CHECK(got.len == 7 + want_txt.len + 6);
  CHECK(memcmp(got.data, "before\n", 7) == 0);
  CHECK(memcmp(got.data + 7, want_txt.data, want_txt.len) == 0);
  CHECK(memcmp(got.data + 7 + want_txt.len, "after\n", 6) == 0);
  CHECK(unlink(log) == 0);
}

/* stdout a pipe (as `prog | less`), written through `name`: the reader gets the text (the link
 * /proc/self/fd/1 reads "pipe:[N]", no file to follow it to). */
static void stdout_to_pipe(const char *name) {
  bytes want_txt;
  reference(&writers[0], &want_txt);
  CHECK(want_txt.len < 65536); /* fits in the pipe: read after the write returns */
  fflush(stdout);
  int saved = dup(STDOUT_FILENO), p[2];
  CHECK(saved >= 0 && pipe(p) == 0 && dup2(p[1], STDOUT_FILENO) >= 0);
  close(p[1]);
  w_txt(name);
  fflush(stdout);
  CHECK(dup2(saved, STDOUT_FILENO) >= 0); /* the last writer closed: the reader sees the end */
  close(saved);
  got.len = 0;
  for (ssize_t n; (n = read(p[0], got.data + got.len, sizeof got.data - got.len)) > 0;)
    got.len += (size_t)n;
  close(p[0]);
  CHECK_EQ_INT(got.len, want_txt.len);
  CHECK(memcmp(got.data, want_txt.data, got.len) == 0);
}

/* /dev/stdout itself, and links of the user's to it and to /dev/fd/1: written to descriptor 1. */
static void check_stdout(void) {
  char link[4200], fd_link[4200];
  path_in(link, sizeof link, "out-link");
  path_in(fd_link, sizeof fd_link, "fd-link");
  CHECK(symlink("/dev/stdout", link) == 0 && symlink("/dev/fd/1", fd_link) == 0);
  stdout_to_log("/dev/stdout");
  stdout_to_log(link);
  stdout_to_log(fd_link);
  stdout_to_pipe("/dev/stdout");
  stdout_to_pipe(link);
  stdout_to_pipe(fd_link);
  struct stat st;
  CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(unlink(link) == 0 && unlink(fd_link) == 0);
}

/* The XDMF description beside a dump, NAME.h5.xdmf, as a link and as a FIFO. */
static void check_xdmf(void) {
  char h5[4200], xdmf[4300], target[4200];
  path_in(h5, sizeof h5, "x.h5");
  snprintf(xdmf, sizeof xdmf, "%s.xdmf", h5);
  path_in(target, sizeof target, "description.xml");
  put_file(target, "old\n");
  CHECK(symlink("description.xml", xdmf) == 0);
  w_dump(h5);
  struct stat st;
  CHECK(lstat(xdmf, &st) == 0 && S_ISLNK(st.st_mode));
  char *text = eu_read_file(target);
  CHECK_CONTAINS(text, "<Xdmf");
  free(text);
  CHECK(unlink(xdmf) == 0 && unlink(target) == 0 && unlink(h5) == 0);
  CHECK(mkfifo(xdmf, 0600) == 0);
  int rd = open(xdmf, O_RDONLY | O_NONBLOCK);
  CHECK(rd >= 0);
  w_dump(h5);
  got.len = 0;
  for (ssize_t n; (n = read(rd, got.data + got.len, sizeof got.data - 1 - got.len)) > 0;)
    got.len += (size_t)n;
  close(rd);
  got.data[got.len] = '\0';
  CHECK_CONTAINS(got.data, "<Xdmf");
  CHECK(lstat(xdmf, &st) == 0 && S_ISFIFO(st.st_mode));
  CHECK(unlink(xdmf) == 0 && unlink(h5) == 0);
}

/* OP2_PROFILE_JSON is written by op_exit: a process of its own per target. */
static void profile_run(const void *arg) {
  char opt[4300];
  snprintf(opt, sizeof opt, "OP2_PROFILE_JSON=%s", (const char *)arg);
  char *argv[] = {"io_special_files", opt, NULL};
  op_init(2, argv, 0);
  declare();
  op_exit();
}

static void check_profile(void) {
  char link[4200], target[4200], fifo[4200], dev[4200];
  char *err;
  path_in(link, sizeof link, "profile-link");
  path_in(target, sizeof target, "profile.json");
  put_file(target, "old\n");
  CHECK(symlink("profile.json", link) == 0);
  CHECK(eu_in_child(profile_run, link, &err) == 0);
  free(err);
  struct stat st;
  CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  char *json = eu_read_file(target);
  CHECK_CONTAINS(json, "\"loops\"");
  free(json);
  path_in(fifo, sizeof fifo, "profile-fifo");
  CHECK(mkfifo(fifo, 0600) == 0);
  int rd = open(fifo, O_RDONLY | O_NONBLOCK);
  CHECK(rd >= 0);
  CHECK(eu_in_child(profile_run, fifo, &err) == 0);
  free(err);
  char buf[60000];
  ssize_t n = read(rd, buf, sizeof buf - 1);
  CHECK(n > 0);
  buf[n] = '\0';
  CHECK_CONTAINS(buf, "\"loops\"");
  close(rd);
  CHECK(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode));
  if (have_device) {
    path_in(dev, sizeof dev, "null");
    CHECK(eu_in_child(profile_run, dev, &err) == 0);
    free(err);
    CHECK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode));
  }
  CHECK(unlink(link) == 0 && unlink(target) == 0 && unlink(fifo) == 0);
}

/* A checkpoint through a link replaces the link's target; a device is refused. */
static void check_checkpoint(void) {
  char link[4200], target[4200], dev[4200];
  path_in(link, sizeof link, "ckpt-link.h5");
  path_in(target, sizeof target, "ckpt.h5");
  CHECK(symlink("ckpt.h5", link) == 0); /* to a file that does not exist yet */
  char *argv[] = {"io_special_files", NULL};
  op_init(1, argv, 0);
  test_catch_errors();
  declare_mesh();
  CHECK_EQ_INT(op_checkpointing_init(link, "manual"), 0);
  op_checkpoint();
  run_loop();
  op_exit();
  struct stat st;
  CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
  CHECK(file_size(target) > 512);
  if (have_device) {
    path_in(dev, sizeof dev, "null");
    op_init(1, argv, 0);
    test_catch_errors();
    declare_mesh();
    test_errors_expected = 1;
    test_errors_seen = 0;
    op_checkpointing_init(dev, "manual");
    op_checkpoint();
    run_loop();
    test_errors_expected = 0;
    CHECK(test_errors_seen >= 1);
    CHECK_CONTAINS(op_last_error(), "regular file"); /* refused at init: checkpointing stays off */
    op_exit();
    CHECK(lstat(dev, &st) == 0 && S_ISCHR(st.st_mode));
  }
  CHECK(unlink(link) == 0 && unlink(target) == 0);
}

int main(int argc, char **argv) {
  (void)argc;
  eu_make_scratch(dir, sizeof dir, "special-files");
  char dev[4200];
  path_in(dev, sizeof dev, "null");
  /* A private device with /dev/null's numbers: what a root run may not replace. */
  have_device = mknod(dev, S_IFCHR | 0666, makedev(1, 3)) == 0;
  if (!have_device)
    fprintf(stderr, "skipping the device cases: mknod %s: %s (needs root)\n", dev, strerror(errno));
  check_profile();
  op_init(1, argv, 0);
  test_catch_errors();
  declare();
  for (int i = 0; i < NWRITERS; i++) {
    fprintf(stderr, "%s\n", writers[i].name);
    check_device(&writers[i]);
    check_links(&writers[i]);
    check_fifo(&writers[i]);
    no_temporaries();
  }
  check_stdout();
  check_xdmf();
  /* A FIFO nobody reads: refused after a moment, not waited on forever. */
  char fifo[4200];
  path_in(fifo, sizeof fifo, "fifo-no-reader");
  CHECK(mkfifo(fifo, 0600) == 0);
  EXPECT_ERROR(w_txt(fifo), "is a FIFO that no process has open for reading");
  CHECK_CONTAINS(op_last_error(), fifo);
  CHECK(unlink(fifo) == 0);
  op_exit();
  check_checkpoint();
  no_temporaries();
  eu_remove_tree(dir);
  printf("io_special_files: ok%s\n", have_device ? "" : " (device cases skipped)");
  return 0;
}
