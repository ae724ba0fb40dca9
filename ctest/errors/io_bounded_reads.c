/* SPDX-License-Identifier: BSD-3-Clause */
/* Files the library reads are opened without blocking, checked to be regular files and read
 * within a cap (issue 24, item 3): a kernel header that is a FIFO, /dev/zero or /dev/urandom is
 * refused at once with a message naming it; a kernel header over the cap is refused naming the
 * cap; a 50 MB kernel header (a long comment) is read whole and compiles; a checkpoint or an
 * HDF5 mesh that is a FIFO is refused at once; a tuning record replaced by a FIFO is ignored;
 * `op2-cache list` does not block on a FIFO planted as a manifest or a tuning record. The kernel
 * function form (op_par_loop_header: NAME.h along OP2_KERNEL_PATH) reads the same way: a NAME.h
 * that is a FIFO is refused at once; an OP2_KERNEL_PATH entry that is a file is skipped; a header
 * that starts with a UTF-8 byte-order mark compiles, in both forms. Every case must end within
 * seconds (an alarm fails the test otherwise).
 * Usage: io_bounded_reads OP2_CACHE_TOOL */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <time.h>

#include "errors_util.h"

static char dir[4096];

static void hung(int sig) {
  (void)sig;
  static const char msg[] = "io_bounded_reads: a read blocked (alarm)\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(1);
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* op_kernel_file(path) is refused quickly with a message containing `needle` and the path. */
static void kernel_refused(const char *path, const char *needle) {
  double t0 = now();
  const char *text = (const char *)1;
  EXPECT_ERROR(text = op_kernel_file(path), needle);
  CHECK(text == NULL);
  CHECK_CONTAINS(op_last_error(), path);
  CHECK(now() - t0 < 2.0);
}

static void special_kernels(void) {
  char fifo[4200];
  snprintf(fifo, sizeof fifo, "%s/fifo.h", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  kernel_refused(fifo, "not a regular file");
  kernel_refused("/dev/zero", "not a regular file");
  kernel_refused("/dev/urandom", "not a regular file");
  /* Over the cap (sparse: nothing is written) */
  char huge[4200];
  snprintf(huge, sizeof huge, "%s/huge.h", dir);
  int fd = open(huge, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  CHECK(fd >= 0 && ftruncate(fd, (off_t)65 << 20) == 0);
  close(fd);
  kernel_refused(huge, "larger than the 64 MiB");
}

/* Kernel headers found along OP2_KERNEL_PATH (set before op_init to "DIR/not-a-dir:DIR/kernels").
 */
static void kernel_function_headers(void) {
  op_set s = op_decl_set(4, "sh");
  double v[4] = {1, 2, 3, 4}, got[4];
  op_dat d = op_decl_dat(s, 1, "double", v, "vh");
  op_arg arg = op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW);
  /* A UTF-8 byte-order mark before the kernel: dropped, in both forms. */
  op_par_loop_header(__FILE__, "bom_kernel", s, 1, &arg);
  const char *text = op_kernel_file("bom_kernel.h");
  CHECK(text != NULL);
  op_par_loop(text, "bom_kernel", s, arg);
  op_fetch_data(d, got);
  for (int i = 0; i < 4; i++) CHECK(got[i] == v[i] + 2);
  /* NAME.h a FIFO: refused at once, naming it */
  double t0 = now();
  EXPECT_ERROR(op_par_loop_header(__FILE__, "fifo_kernel", s, 1, &arg), "not a regular file");
  CHECK_CONTAINS(op_last_error(), "fifo_kernel.h");
  CHECK(now() - t0 < 2.0);
}

static void make_kernel_dirs(void) {
  char path[4300];
  snprintf(path, sizeof path, "%s/not-a-dir", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL && fputs("a file where a directory was expected\n", f) >= 0 && fclose(f) == 0);
  snprintf(path, sizeof path, "%s/kernels", dir);
  CHECK(mkdir(path, 0700) == 0);
  snprintf(path, sizeof path, "%s/kernels/bom_kernel.h", dir);
  f = fopen(path, "w");
  CHECK(f != NULL);
  CHECK(fputs("\xEF\xBB\xBFinline void bom_kernel(double *v) { v[0] += 1; }\n", f) >= 0);
  CHECK(fclose(f) == 0);
  snprintf(path, sizeof path, "%s/kernels/fifo_kernel.h", dir);
  CHECK(mkfifo(path, 0600) == 0);
  char kp[9000];
  snprintf(kp, sizeof kp, "%s/not-a-dir:%s/kernels", dir, dir);
  CHECK(setenv("OP2_KERNEL_PATH", kp, 1) == 0);
}

/* 50 MB of comment before a kernel: read whole (read loops, no short read taken for a NUL) and
 * compiled; the loop gives the kernel's results. */
static void big_kernel(void) {
  char path[4200];
  snprintf(path, sizeof path, "%s/big.h", dir);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  char line[101];
  memset(line, 'x', 99);
  line[99] = '\n', line[100] = '\0';
  fputs("/* a long comment\n", f);
  for (int i = 0; i < 500000; i++) fputs(line, f);
  fputs("*/\nvoid big(double *v) { v[0] = 3 * v[0] + 1; }\n", f);
  CHECK(fclose(f) == 0);
  const char *text = op_kernel_file(path);
  CHECK(text != NULL);
  CHECK(strlen(text) > (size_t)50000000);
  op_set s = op_decl_set(4, "s");
  double v[4] = {1, 2, 3, 4}, got[4];
  op_dat d = op_decl_dat(s, 1, "double", v, "v");
  op_par_loop(text, "big", s, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_fetch_data(d, got);
  for (int i = 0; i < 4; i++) CHECK(got[i] == 3 * v[i] + 1);
}

static void checkpoint_fifo(void) {
  char fifo[4200];
  snprintf(fifo, sizeof fifo, "%s/ckpt.h5", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  double t0 = now();
  EXPECT_ERROR(op_checkpointing_init(fifo, "manual"), "not a readable regular file");
  CHECK_CONTAINS(op_last_error(), fifo);
  CHECK(now() - t0 < 2.0);
}

/* An HDF5 mesh file that is a FIFO: refused at once (HDF5 itself would wait for a writer). */
static void mesh_fifo(void) {
  char fifo[4200];
  snprintf(fifo, sizeof fifo, "%s/mesh.h5", dir);
  CHECK(mkfifo(fifo, 0600) == 0);
  double t0 = now();
  op_set s = (op_set)1;
  EXPECT_ERROR(s = op_decl_set_hdf5(fifo, "nodes"), "not a regular file (a FIFO)");
  CHECK(s == NULL);
  CHECK_CONTAINS(op_last_error(), fifo);
  CHECK(now() - t0 < 2.0);
}

/* OP2_TUNE's records: a run tunes a loop and keeps its record; with the record replaced by a
 * FIFO the next run ignores it (tuning again) instead of waiting for a writer. */
static char tune_cache[4200];

static void tuned_run(const void *arg) {
  (void)arg;
  alarm(20); /* a read that blocks ends this process (failing the case), never left behind */
  setenv("OP2_BACKEND", "openmp", 1);
  setenv("OP2_TUNE", "on", 1);
  setenv("OP2_DIAGS", "1", 1);
  setenv("OP2_JIT", "tcc", 1);
  setenv("OP2_CACHE_DIR", tune_cache, 1);
  setenv("OMP_NUM_THREADS", "2", 1);
  char *argv[] = {"io_bounded_reads", NULL};
  op_init(1, argv, 0);
  /* Tuned: an indirect loop (it has a plan) that increments through its map. */
  enum { N = 100000 };
  static double x[N], e[N];
  static int ends[2 * N];
  for (int i = 0; i < N; i++) e[i] = i, ends[2 * i] = i, ends[2 * i + 1] = (i * 7 + 1) % N;
  op_set nodes = op_decl_set(N, "nodes"), edges = op_decl_set(N, "edges");
  op_map m = op_decl_map(edges, nodes, 2, ends, "edge_nodes");
  op_dat dx = op_decl_dat(nodes, 1, "double", x, "x"), de = op_decl_dat(edges, 1, "double", e, "e");
  for (int i = 0; i < 60; i++)
    op_par_loop("void spread(const double *e, double *a, double *b) { *a += e[0]; *b -= e[0]; }\n",
                "spread", edges, op_arg_dat(de, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(dx, 0, m, 1, "double", OP_INC),
                op_arg_dat(dx, 1, m, 1, "double", OP_INC));
  op_exit();
}

static void tuning_record_fifo(void) {
  snprintf(tune_cache, sizeof tune_cache, "%s/tune-cache", dir);
  char *err;
  int status = eu_in_child(tuned_run, NULL, &err);
  if (status != 0) fprintf(stderr, "%s", err);
  CHECK(status == 0);
  free(err);
  char tune_dir[4300];
  snprintf(tune_dir, sizeof tune_dir, "%s/tune", tune_cache);
  DIR *d = opendir(tune_dir);
  if (!d) {
    fprintf(stderr, "skipping the tuning record case: no loop was tuned here\n");
    return;
  }
  int fifos = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (!strstr(e->d_name, ".json")) continue;
    char path[4700];
    snprintf(path, sizeof path, "%s/%s", tune_dir, e->d_name);
    CHECK(unlink(path) == 0 && mkfifo(path, 0600) == 0);
    fifos++;
  }
  closedir(d);
  if (!fifos) {
    fprintf(stderr, "skipping the tuning record case: no record was written\n");
    return;
  }
  double t0 = now();
  status = eu_in_child(tuned_run, NULL, &err);
  CHECK(status == 0);
  CHECK_CONTAINS(err, "not a regular file");
  free(err);
  CHECK(now() - t0 < 10.0);
}

/* A cache whose tuning record and manifest are FIFOs: the tool lists it and ends. */
static void tool_list(const char *tool) {
  if (access(tool, X_OK) != 0) {
    fprintf(stderr, "skipping op2-cache: %s is not built\n", tool);
    return;
  }
  char root[4200], sub[4300], cmd[9000];
  snprintf(root, sizeof root, "%s/cache", dir);
  CHECK(mkdir(root, 0700) == 0);
  snprintf(sub, sizeof sub, "%s/tune", root);
  CHECK(mkdir(sub, 0700) == 0);
  snprintf(sub, sizeof sub, "%s/tune/loop-0123456789abcdef.json", root);
  CHECK(mkfifo(sub, 0600) == 0);
  snprintf(sub, sizeof sub, "%s/loop-0123456789abcdef", root);
  CHECK(mkdir(sub, 0700) == 0);
  snprintf(sub, sizeof sub, "%s/loop-0123456789abcdef/manifest.json", root);
  CHECK(mkfifo(sub, 0600) == 0);
  snprintf(cmd, sizeof cmd, "timeout 10 %s --dir %s list > %s/list.txt 2>&1", tool, root, dir);
  double t0 = now();
  int status = system(cmd);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) != 124); /* not killed by timeout */
  CHECK(now() - t0 < 5.0);
  snprintf(sub, sizeof sub, "%s/list.txt", dir);
  char *out = eu_read_file(sub);
  CHECK_CONTAINS(out, "BAD");
  free(out);
}

int main(int argc, char **argv) {
  CHECK(argc == 2);
  signal(SIGALRM, hung);
  alarm(50);
  eu_make_scratch(dir, sizeof dir, "bounded-reads");
  tool_list(argv[1]);
  make_kernel_dirs();
  char *args[] = {argv[0], NULL};
  op_init(1, args, 0);
  test_catch_errors();
  special_kernels();
  checkpoint_fifo();
  mesh_fifo();
  kernel_function_headers(); /* after the checkpoint case: it runs loops */
  big_kernel();
  op_exit();
  tuning_record_fifo();
  eu_remove_tree(dir);
  printf("io_bounded_reads: ok\n");
  return 0;
}
