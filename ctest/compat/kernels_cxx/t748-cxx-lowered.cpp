/* SPDX-License-Identifier: BSD-3-Clause */
// Kernels in OP2's C++ (kernels_cxx/flow.h: references, functional casts, a structure without
// `struct`, an include guard) give g++'s results: this program's own build of the same kernels.
// Those whose C++ has a C form run TinyCC code at once (not the C++ tier); the others (a float
// bound to `const double &`, a shadowed parameter, `auto`) are built by the C++ tier.
#include "op_seq.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "flow.h"
#include "flow_cxx.h"

#include "cxx_check.h"

// stderr into a file while the loops run: the OP2_DIAGS=1 report of each kernel's tier
static int saved_fd = -1;
static char diag_path[64];
static std::string capture_end();
// an op2 error exits the program inside a loop: what was captured is shown then
static void show_captured() {
  if (saved_fd >= 0) capture_end(); /* it copies the text to stderr */
}

static void capture_begin() {
  static bool registered = false;
  if (!registered) registered = std::atexit(show_captured) == 0;
  std::fflush(stderr);
  std::snprintf(diag_path, sizeof diag_path, "/tmp/op2-t748-diag-XXXXXX");
  int fd = mkstemp(diag_path);
  CHECK(fd >= 0);
  saved_fd = dup(2);
  CHECK(saved_fd >= 0 && dup2(fd, 2) == 2);
  close(fd);
}
static std::string capture_end() {
  std::fflush(stderr);
  CHECK(dup2(saved_fd, 2) == 2);
  close(saved_fd);
  saved_fd = -1;
  std::string text;
  FILE *f = std::fopen(diag_path, "r");
  CHECK(f != NULL);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  std::fclose(f);
  unlink(diag_path);
  std::fputs(text.c_str(), stderr);
  return text;
}

static bool is_cxx(const std::string &diag, const char *kernel) {
  return diag.find(std::string("kernel '") + kernel + "' is C++") != std::string::npos;
}

static void run(int argc, char **argv) {
  op_init(argc, argv, 1);
  const int n = 997;
  std::vector<double> w(n), vars(5 * n), a(n);
  std::vector<float> f(n);
  for (int i = 0; i < n; i++) {
    w[i] = 0.01 + (i % 13) / 130.0;
    for (int d = 0; d < 5; d++) vars[5 * i + d] = 1.0 + 0.1 * ((i * (d + 3)) % 17);
    a[i] = (i % 29) * 0.37 - 3.0;
    f[i] = (float)((i % 31) * 0.173 - 2.0);
  }
  // the same kernels, built by g++ into this program
  std::vector<double> want_flux(2 * n), want_vars(vars), want_float(n), want_shadow(n),
      want_auto(n);
  for (int stage = 0; stage < 3; stage++)
    for (int i = 0; i < n; i++) {
      flow_flux(&w[i], &want_vars[5 * i], &want_flux[2 * i]);
      flow_step(&stage, &want_flux[2 * i], &want_vars[5 * i]);
    }
  for (int i = 0; i < n; i++) {
    flow_float(&f[i], &want_float[i]);
    flow_shadow(&a[i], &want_shadow[i]);
    flow_auto(&a[i], &want_auto[i]);
  }

  op_set set = op_decl_set(n, "cells");
  op_dat pw = op_decl_dat(set, 1, "double", w.data(), "w");
  op_dat pvars = op_decl_dat(set, 5, "double", vars.data(), "vars");
  op_dat pflux = op_decl_dat(set, 2, "double", (double *)NULL, "flux");
  op_dat pa = op_decl_dat(set, 1, "double", a.data(), "a");
  op_dat pf = op_decl_dat(set, 1, "float", f.data(), "f");
  op_dat pfloat = op_decl_dat(set, 1, "double", (double *)NULL, "out_float");
  op_dat pshadow = op_decl_dat(set, 1, "double", (double *)NULL, "out_shadow");
  op_dat pauto = op_decl_dat(set, 1, "double", (double *)NULL, "out_auto");
  capture_begin();
  for (int stage = 0; stage < 3; stage++) {
    op_par_loop(flow_flux, "flow_flux", set, op_arg_dat(pw, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(pvars, -1, OP_ID, 5, "double", OP_READ),
                op_arg_dat(pflux, -1, OP_ID, 2, "double", OP_WRITE));
    op_par_loop(flow_step, "flow_step", set, op_arg_gbl(&stage, 1, "int", OP_READ),
                op_arg_dat(pflux, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(pvars, -1, OP_ID, 5, "double", OP_RW));
  }
  op_par_loop(flow_float, "flow_float", set, op_arg_dat(pf, -1, OP_ID, 1, "float", OP_READ),
              op_arg_dat(pfloat, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(flow_shadow, "flow_shadow", set, op_arg_dat(pa, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(pshadow, -1, OP_ID, 1, "double", OP_WRITE));
  op_par_loop(flow_auto, "flow_auto", set, op_arg_dat(pa, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(pauto, -1, OP_ID, 1, "double", OP_WRITE));
  std::vector<double> got_flux(2 * n), got_vars(5 * n), got(n);
  op_fetch_data(pflux, got_flux.data());  // lazy execution: the queued calls compile and run here
  std::string diag = capture_end();

  op_fetch_data(pvars, got_vars.data());
  CHECK(std::memcmp(got_flux.data(), want_flux.data(), got_flux.size() * sizeof(double)) == 0);
  CHECK(std::memcmp(got_vars.data(), want_vars.data(), got_vars.size() * sizeof(double)) == 0);
  op_fetch_data(pfloat, got.data());
  CHECK(std::memcmp(got.data(), want_float.data(), n * sizeof(double)) == 0);
  op_fetch_data(pshadow, got.data());
  CHECK(std::memcmp(got.data(), want_shadow.data(), n * sizeof(double)) == 0);
  op_fetch_data(pauto, got.data());
  CHECK(std::memcmp(got.data(), want_auto.data(), n * sizeof(double)) == 0);

  // which tier ran the first calls (a second run finds them in the cache: the same tiers)
  CHECK(!is_cxx(diag, "flow_flux"));
  CHECK(!is_cxx(diag, "flow_step"));
  CHECK(is_cxx(diag, "flow_float"));
  CHECK(is_cxx(diag, "flow_shadow"));
  CHECK(is_cxx(diag, "flow_auto"));
  op_exit();
}

int main(int argc, char **argv) {
  // a fresh kernel cache: compiled, then loaded from it, with the same results and tiers
  char cache[] = "/tmp/op2-t748-XXXXXX";
  CHECK(mkdtemp(cache) != NULL && setenv("OP2_CACHE_DIR", cache, 1) == 0);
  run(argc, argv);
  run(argc, argv);
  std::string rm = std::string("rm -rf ") + cache;
  CHECK(std::system(rm.c_str()) == 0);
  std::printf("C++ kernels lowered to C: passed\n");
  return 0;
}
