/* SPDX-License-Identifier: BSD-3-Clause */
// Kernel headers that include headers, as MG-CFD keeps them: the calling file includes const.h,
// then misc.h, whose kernel uses what const.h (and dims.h, which const.h includes) defines; the
// kernel's text holds each header once, however often the search for the kernel read it. A
// kernel header reached only through the program's -I directories (flux_i.h) is found when
// OP2_KERNEL_PATH names them, its own includes too; without, the error names the header it looked
// for, where the calling file includes it and the directories searched. A header may use what the
// calling file included before it (texts.h: <sstream>, const.h), as OP2 compiles the kernel inside
// the calling file. argv[1]: "includes" (no OP2_KERNEL_PATH), "not-found" (no OP2_KERNEL_PATH),
// "kernel-path" (OP2_KERNEL_PATH: iflux/, ./).
#include "op_seq.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#ifdef T754_NEVER
#include "never.h"  // its const.h is not the one below
#endif
#include "user_types.h"
#include "const.h"
#include "misc.h"
#include "flux_i.h"  // through -I only
int t754_reports = 0;
#include "host_io.h"
#include "texts.h"  // relies on <sstream>, user_types.h and const.h above

#include "cxx_check.h"

static void keep_going(const char *, void *) {}

static bool has(const std::string &msg, const std::string &part) {
  return msg.find(part) != std::string::npos;
}

int main(int argc, char **argv) {
  CHECK(argc >= 2);
  const std::string run = argv[1];
  op_init(argc, argv, 0);
  const int n = 100;
  std::vector<double> x(n), v(n * NVAR), w(n * NVAR), f(n, 1.0);
  for (int i = 0; i < n; i++) {
    x[i] = 0.25 * (i % 7);
    for (int k = 0; k < NVAR; k++) v[i * NVAR + k] = x[i] * (k + 1) + NDIM;  // init_vars's
  }
  op_set set = op_decl_set(n, "nodes");
  op_dat px = op_decl_dat(set, 1, "double", x.data(), "x");
  op_dat pv = op_decl_dat(set, NVAR, "double", v.data(), "v");
  op_dat pw = op_decl_dat(set, NVAR, "double", nullptr, "w");
  op_dat pf = op_decl_dat(set, 1, "double", f.data(), "f");

  if (run == "not-found") {
    op_set_error_handler(keep_going, nullptr);
    op_par_loop(flux_sum, "flux_sum", set, op_arg_dat(pv, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_WRITE));
    std::string msg = op_last_error();
    std::fprintf(stderr, "expected error: %s\n", msg.c_str());
    CHECK(has(msg, "op_par_loop 'flux_sum'"));
    // the header it looked for, the line of the calling file that includes it, where it looked
    CHECK(has(msg, "header 'flux_i.h' (included by "));
    CHECK(has(msg, "t754-kernel-header-includes.cpp line 26) is not in "));
    CHECK(has(msg, "(OP2_KERNEL_PATH unset)"));
    op_set_error_handler(nullptr, nullptr);
  } else if (run == "kernel-path") {
    op_par_loop(flux_sum, "flux_sum", set, op_arg_dat(pv, -1, OP_ID, NVAR, "double", OP_READ),
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(pf, f.data());
    for (int i = 0; i < n; i++) {
      double s = 0.0;
      for (int k = 0; k < NVAR; k++) s += v[i * NVAR + k];
      CHECK(f[i] == FLUX_WEIGHT * s);
    }
    // a kernel file's includes: from OP2_KERNEL_PATH too
    op_par_loop(op_kernel_file("by_file.h"), "by_file", set,
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_WRITE));
    std::vector<double> g(n);
    op_fetch_data(pf, g.data());
    for (int i = 0; i < n; i++) CHECK(g[i] == f[i] + NVAR);
    // an include found nowhere: the compile error names it, its line and where it was looked for
    op_set_error_handler(keep_going, nullptr);
    op_par_loop(op_kernel_file("missing.h"), "k_missing", set,
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(pf, g.data());
    std::string msg = op_last_error();
    std::fprintf(stderr, "expected error: %s\n", msg.c_str());
    CHECK(has(msg, "op_par_loop 'k_missing'"));
    CHECK(has(msg, "nowhere.h"));
    CHECK(has(msg, "missing.h:3") || has(msg, "missing.h line 3"));
    CHECK(has(msg, "then OP2_KERNEL_PATH's "));
    op_set_error_handler(nullptr, nullptr);
  } else {
    CHECK(run == "includes");
  }
  // misc.h's kernel, found through the calling file's includes, with what const.h brings
  op_par_loop(init_vars, "init_vars", set, op_arg_dat(pw, -1, OP_ID, NVAR, "double", OP_WRITE),
              op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ));
  op_fetch_data(pw, w.data());
  for (int i = 0; i < n * NVAR; i++) CHECK(w[i] == v[i]);
  if (run == "includes") {  // texts.h's kernel: C++, built with the calling file's <sstream>
    op_par_loop(text_len, "text_len", set, op_arg_dat(px, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(pf, -1, OP_ID, 1, "double", OP_WRITE));
    op_fetch_data(pf, f.data());
    for (int i = 0; i < n; i++) {
      double want;
      text_len(&x[i], &want);
      CHECK(f[i] == want);
    }
  }
  t754_report(run.c_str());
  CHECK(t754_reports == 1);
  op_printf("kernel headers that include headers: %s passed\n", run.c_str());
  op_exit();
  return 0;
}
