/* SPDX-License-Identifier: BSD-3-Clause */
// Helpers declared in every order of static, inline, macros and attributes (inlined.h, as
// MG-CFD's `static OP_FUN_PREFIX inline`) compile as C on the optimising tier: run with
// OP2_JIT=cc and OP2_CXX=off, the kernel must be built by the optimising compiler and run its code
// (the timing table's "calls tcc/opt" 0/1, not C++), with no compile failure said, and give g++'s
// results. At -O0 nothing is inlined: every helper must be defined.
#include "op_seq.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

#include "step.h"

#include "cxx_check.h"

// What a call prints on stream `fd`, read back.
static std::string captured(int fd, void (*call)(void *), void *arg) {
  char path[] = "/tmp/op2-t755-XXXXXX";
  int tmp = mkstemp(path);
  CHECK(tmp >= 0);
  std::fflush(stdout), std::fflush(stderr);
  int saved = dup(fd);
  CHECK(saved >= 0 && dup2(tmp, fd) >= 0);
  call(arg);
  std::fflush(stdout), std::fflush(stderr);
  dup2(saved, fd);
  close(saved);
  std::string text;
  char buf[4096];
  ssize_t n;
  lseek(tmp, 0, SEEK_SET);
  while ((n = read(tmp, buf, sizeof buf)) > 0) text.append(buf, (size_t)n);
  close(tmp);
  unlink(path);
  std::fputs(text.c_str(), stderr);
  return text;
}

struct loop_args {
  op_set set;
  op_dat px, py;
  double *y;
};

static void run_loop(void *p) {
  loop_args *a = static_cast<loop_args *>(p);
  op_par_loop(step_kernel, "step_kernel", a->set,
              op_arg_dat(a->px, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(a->py, -1, OP_ID, 1, "double", OP_WRITE));
  op_fetch_data(a->py, a->y);  // the queued loop runs (lazily) here
}

static void timing(void *) {
  op_timing_output();
}

int main(int argc, char **argv) {
  // its own kernel cache: the kernel is built in this run, not found from an earlier one
  char cache[] = "/tmp/op2-t755-XXXXXX";
  CHECK(mkdtemp(cache) != nullptr && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  op_init(argc, argv, 1);  // diagnostics at 1: a failed optimising compile is said
  const int n = 100;
  std::vector<double> x(n), y(n), want(n);
  for (int i = 0; i < n; i++) x[i] = 0.5 * (i % 11) - 2.0;
  loop_args a;
  a.set = op_decl_set(n, "nodes");
  a.px = op_decl_dat(a.set, 1, "double", x.data(), "x");
  a.py = op_decl_dat(a.set, 1, "double", nullptr, "y");
  a.y = y.data();
  std::string diag = captured(2, run_loop, &a);
  CHECK(diag.find("optimising compile") == std::string::npos);
  CHECK(diag.find("is C++") == std::string::npos);
  for (int i = 0; i < n; i++) {
    step_kernel(&x[i], &want[i]);
    CHECK(y[i] == want[i]);
  }
  const char *backend = std::getenv("OP2_BACKEND");
  if (backend && std::strcmp(backend, "cuda-emu") == 0) {  // its CUDA file built as C: no tiers
    op_printf("helper declarations: passed\n");
    op_exit();
    CHECK(std::system((std::string("rm -rf ") + cache).c_str()) == 0);
    return 0;
  }
  std::string table = captured(1, timing, nullptr);
  size_t row = table.find("\n  step_kernel ");
  CHECK(row != std::string::npos);
  std::string line = table.substr(row + 1, table.find('\n', row + 1) - row - 1);
  CHECK(line.find(" 0/1 ") != std::string::npos);  // its one call ran optimised code
  CHECK(line.find("C++") == std::string::npos);
  CHECK(table.find("optimised builds 1, failed 0") != std::string::npos);
  op_printf("helper declarations: passed\n");
  op_exit();
  CHECK(std::system((std::string("rm -rf ") + cache).c_str()) == 0);
  return 0;
}
