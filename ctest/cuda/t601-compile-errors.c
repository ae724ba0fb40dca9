/* SPDX-License-Identifier: BSD-3-Clause */
/* A kernel that is valid C but not valid CUDA C++ (a void * initialising a double *): NVRTC's
 * message must point at the user's own line (kernel:NAME(LINE)), name the architecture and the
 * generated source, which is kept for reading. Nothing runs. */
#include "test.h"

static const char bad_src[] =
    "void bad(const double *a, double *b) {\n"
    "  const void *v = a;\n"
    "  const double *p = v;\n"
    "  b[0] = p[0];\n"
    "}\n";

int main(void) {
  test_catch_errors();
  setenv("OP2_CUDA_EMU_VERIFY", "sm_90", 1);
  char *argv[] = {"t601", "OP2_BACKEND=cuda-emu", NULL};
  op_init(2, argv, 0);
  op_set s = op_decl_set(10, "s");
  op_dat a = op_decl_dat(s, 1, "double", NULL, "a"), b = op_decl_dat(s, 1, "double", NULL, "b");
  EXPECT_ERROR(op_par_loop(bad_src, "bad", s, op_arg_dat(a, -1, OP_ID, 1, "double", OP_READ),
                           op_arg_dat(b, -1, OP_ID, 1, "double", OP_WRITE)),
               "kernel:bad(3): error");
  const char *msg = op_last_error();
  CHECK_CONTAINS(msg, "does not compile for sm_90");
  const char *src = strstr(msg, "generated source: ");
  CHECK(src != NULL);
  char path[4096];
  CHECK(sscanf(src, "generated source: %4095[^)])", path) == 1);
  FILE *f = fopen(path, "r");
  CHECK(f != NULL); /* the .cu the message names is there to read */
  char line[512];
  int has_kernel = 0;
  while (fgets(line, sizeof line, f)) has_kernel |= strstr(line, "const double *p = v;") != NULL;
  fclose(f);
  CHECK(has_kernel);
  remove(path);
  op_exit();
  return 0;
}
