/* SPDX-License-Identifier: BSD-3-Clause */
// OP2's own call form from C++: op_par_loop(kernel_function, "name", ...), the source read from
// the kernel's header name.h, or from the calling file; the string form beside it; a kernel found
// nowhere is an error naming the header and where it was looked for, and nothing runs. argv[1]:
// "path" (headers found through OP2_KERNEL_PATH) or "caller-dir" (no OP2_KERNEL_PATH: the calling
// file's directory).
#include "op_seq.h"

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "fn_scale.h"
#include "kernels/axpy.h"

#include "cxx_check.h"

// Defined here, in the calling file, as OP2's min sample does: read from this file when no
// header holds it ("caller-dir" runs where __FILE__ resolves).
inline void in_caller(double *y, const double *f) {
  y[0] = y[0] * f[0] + 1.0;  // "}" in a comment and a string do not end it: "{"
}

// Defined by a macro: neither a header nor the calling file's text holds its source.
#define DEFINE_ELSEWHERE             \
  inline void elsewhere(double *y) { \
    y[0] = -1.0;                     \
  }
DEFINE_ELSEWHERE

static void keep_going(const char *, void *) {}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  const bool by_path = std::strcmp(argv[1], "path") == 0;
  op_init(argc, argv, 0);
  const int n = 1000;
  std::vector<double> x(n), y(n);
  for (int i = 0; i < n; i++) {
    x[i] = i % 7 - 3.5;
    y[i] = i % 5 - 2.0;
  }
  op_set set = op_decl_set(n, "elements");
  op_dat px = op_decl_dat(set, 1, "double", x.data(), "x");
  op_dat py = op_decl_dat(set, 1, "double", y.data(), "y");

  // The kernel compiled here by g++ computes what the library's compiled copy must give.
  std::vector<double> want = y;
  double factor = 0.5;
  for (int call = 0; call < 3; call++) {
    if (by_path) {
      op_par_loop(axpy, "axpy", set, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
      for (int i = 0; i < n; i++) axpy(&x[i], &want[i]);
    }
    op_par_loop(fn_scale, "fn_scale", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&factor, 1, "double", OP_READ));
    for (int i = 0; i < n; i++) fn_scale(&want[i], &factor);
  }
  std::vector<double> got(n);
  op_fetch_data(py, got.data());
  for (int i = 0; i < n; i++) CHECK(got[i] == want[i]);

  if (!by_path) {
    op_par_loop(in_caller, "in_caller", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW),
                op_arg_gbl(&factor, 1, "double", OP_READ));
    for (int i = 0; i < n; i++) in_caller(&want[i], &factor);
    op_fetch_data(py, got.data());
    for (int i = 0; i < n; i++) CHECK(got[i] == want[i]);
  }
  if (by_path) {
    // The string form keeps working, with the same header read by op_kernel_file.
    op_par_loop(op_kernel_file("axpy.h"), "axpy", set,
                op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(py, -1, OP_ID, 1, "double", OP_RW));
    for (int i = 0; i < n; i++) axpy(&x[i], &want[i]);
    op_fetch_data(py, got.data());
    for (int i = 0; i < n; i++) CHECK(got[i] == want[i]);

    // No header: an error that names it and the places searched; the loop does not run.
    op_set_error_handler(keep_going, nullptr);
    op_par_loop(elsewhere, "elsewhere", set, op_arg_dat(py, -1, OP_ID, 1, "double", OP_WRITE));
    std::string msg = op_last_error();
    std::fprintf(stderr, "expected error: %s\n", msg.c_str());
    CHECK(msg.find("op_par_loop 'elsewhere'") != std::string::npos);
    CHECK(msg.find("header elsewhere.h") != std::string::npos);
    CHECK(msg.find("definition in the calling file") != std::string::npos);
    CHECK(msg.find("or a header it includes") != std::string::npos);
    CHECK(msg.find(std::string("OP2_KERNEL_PATH: ") + getenv("OP2_KERNEL_PATH")) !=
          std::string::npos);
    // Every directory searched, by its real path: those of OP2_KERNEL_PATH that exist first.
    std::string second = std::strchr(getenv("OP2_KERNEL_PATH"), ':') + 1;
    char *kernels = realpath(second.substr(0, second.find(':')).c_str(), nullptr);
    CHECK(kernels != nullptr);
    CHECK(msg.find(std::string("Directories searched: ") + kernels + ", ") != std::string::npos);
    std::free(kernels);
    op_fetch_data(py, got.data());
    for (int i = 0; i < n; i++) CHECK(got[i] == want[i]);
    op_set_error_handler(nullptr, nullptr);
  }
  op_printf("kernel functions: %s\n", argv[1]);
  op_exit();
  return 0;
}
