/* SPDX-License-Identifier: BSD-3-Clause */
/* Temporary files get unpredictable names, created with O_EXCL|O_NOFOLLOW (issue 24, item 5):
 * a symbolic link planted at the name a writer used to take beside its target (FILE.tmpPID for
 * the printing calls, HDF5 dumps and cache files; FILE.tmp for checkpoints) is never written
 * through, so the file it points at (the "victim", which another user could choose in a sticky
 * directory) stays untouched while every write still succeeds. The cache's cleanup still knows
 * the new temporary names. Usage: io_temp_names */
#include <errno.h>
#include <fcntl.h>
#include <time.h>

#include "errors_util.h"
#include "jit/jit_internal.h" /* white-box: the jit layer's internals */

static char dir[4096], victim[4200];
static const char *victim_text = "the victim's own contents\n";

static void plant(const char *name) {
  char path[4300];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  CHECK(symlink(victim, path) == 0);
}

static void victim_untouched(void) {
  char *text = eu_read_file(victim);
  CHECK(text != NULL);
  CHECK(strcmp(text, victim_text) == 0);
  free(text);
}

static void in_dir(char *out, size_t len, const char *name) {
  snprintf(out, len, "%s/%s", dir, name);
}

static const char *kernel = "void scale(double *v) { v[0] = 2 * v[0] + 1; }\n";

int main(int argc, char **argv) {
  (void)argc;
  eu_make_scratch(dir, sizeof dir, "temp-names");
  in_dir(victim, sizeof victim, "victim");
  FILE *f = fopen(victim, "w");
  CHECK(f && fputs(victim_text, f) >= 0 && fclose(f) == 0);
  int pid = (int)getpid();
  char name[300], path[4300];

  /* The printing calls and an HDF5 dump: FILE.tmpPID planted. */
  op_init(1, argv, 0);
  test_catch_errors();
  op_set nodes = op_decl_set(4, "nodes");
  double v[4] = {1, 2, 3, 4};
  op_dat d = op_decl_dat(nodes, 1, "double", v, "d");
  const char *outputs[] = {"out.txt", "out.bin", "mesh.h5"};
  for (int i = 0; i < 3; i++) {
    snprintf(name, sizeof name, "%s.tmp%d", outputs[i], pid);
    plant(name);
  }
  in_dir(path, sizeof path, "out.txt");
  op_print_dat_to_txtfile(d, path);
  CHECK(eu_is_file(path));
  in_dir(path, sizeof path, "out.bin");
  op_print_dat_to_binfile(d, path);
  CHECK(eu_is_file(path));
  in_dir(path, sizeof path, "mesh.h5");
  op_dump_to_hdf5(path);
  CHECK(eu_is_file(path));
  victim_untouched();
  op_exit();

  /* A checkpoint: FILE.tmp planted (the old fixed name). Temporary files that killed runs left
   * are removed by the next checkpoint once an hour old; a fresh one (a run writing now) and a
   * link stay. */
  plant("ckpt.h5.tmp");
  char stale[4300], fresh[4300], stale_link[4300];
  in_dir(stale, sizeof stale, "ckpt.h5.tmpAbCd1234");
  in_dir(fresh, sizeof fresh, "ckpt.h5.tmpEfGh5678");
  in_dir(stale_link, sizeof stale_link, "ckpt.h5.tmpIjKl9012");
  FILE *t = fopen(stale, "w");
  CHECK(t && fclose(t) == 0);
  t = fopen(fresh, "w");
  CHECK(t && fclose(t) == 0);
  CHECK(symlink(victim, stale_link) == 0);
  struct timespec old[2] = {{.tv_sec = time(NULL) - 7200}, {.tv_sec = time(NULL) - 7200}};
  CHECK(utimensat(AT_FDCWD, stale, old, 0) == 0);
  CHECK(utimensat(AT_FDCWD, stale_link, old, AT_SYMLINK_NOFOLLOW) == 0);
  op_init(1, argv, 0);
  test_catch_errors();
  nodes = op_decl_set(4, "nodes");
  d = op_decl_dat(nodes, 1, "double", v, "d");
  in_dir(path, sizeof path, "ckpt.h5");
  CHECK_EQ_INT(op_checkpointing_init(path, "manual"), 0);
  op_checkpoint();
  op_par_loop(kernel, "scale", nodes, op_arg_dat(d, -1, OP_ID, 1, "double", OP_RW));
  op_exit();
  CHECK(eu_is_file(path));
  victim_untouched();
  CHECK(access(stale, F_OK) != 0 && errno == ENOENT);
  CHECK(eu_is_file(fresh));
  struct stat lst;
  CHECK(lstat(stale_link, &lst) == 0 && S_ISLNK(lst.st_mode));

  /* Cache files and tuning records (op2_write_file_atomic): FILE.tmpPID planted. */
  snprintf(name, sizeof name, "record.json.tmp%d", pid);
  plant(name);
  in_dir(path, sizeof path, "record.json");
  op2_jit_error err;
  if (op2_write_file_atomic(path, "{}\n", 3, &err) != OP2_OK) {
    fprintf(stderr, "op2_write_file_atomic: %s\n", err.msg);
    CHECK(0);
  }
  CHECK(eu_is_file(path));
  victim_untouched();

  /* The cache's cleanup knows temporary names, old and new. */
  char made[600];
  int fd = op2_temp_create_at(AT_FDCWD, path, 0600, made, sizeof made);
  CHECK(fd >= 0);
  close(fd);
  CHECK(unlink(made) == 0);
  const char *base = strrchr(made, '/') + 1; /* record.json.tmpXXXXXXXX */
  CHECK(strncmp(base, "record.json.tmp", 15) == 0 && strlen(base) == 15 + 8);
  char entry_file[64];
  snprintf(entry_file, sizeof entry_file, "loop.so%s", base + strlen("record.json"));
  CHECK_EQ_INT(op2_cache_file_kind("loop", entry_file), 2);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "loop.so.tmp12345"), 2);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "manifest.json.tmpAb3dEf9h"), 2);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "loop.so"), 1);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "loop.so.tmp"), 0);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "loop.so.tmp-1"), 0);
  CHECK_EQ_INT(op2_cache_file_kind("loop", "other.so.tmp1"), 0);

  eu_remove_tree(dir);
  printf("io_temp_names: ok\n");
  return 0;
}
