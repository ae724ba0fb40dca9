/* SPDX-License-Identifier: BSD-3-Clause */
/* A program whose globals carry the names TinyCC's libtcc.a defines (`file`, `next`, `load`,
 * `tok`...: tcc_names.c, generated from libtcc.a at build time) and a `float g` of its own (its
 * gravity, a kernel constant), built as C++ with `pkg-config --cflags --libs op2`: it links (no
 * "multiple definition"), TinyCC compiles its loop (OP2_JIT=tcc, OP2_CACHE=off: in memory), the
 * loop gives the right values, and none of the program's globals changed while TinyCC ran.
 * op2.pc's flags also find and link HDF5, which op2jit uses and OP2 programs include.
 * t761-tcc-names.c is the same program in C. */
#include <hdf5.h> /* op2.pc names HDF5 as it names MPI: programs such as Volna include it */
#include <op_seq.h>

float g = 9.81f;
extern "C" int tcc_names_changed(void);

static const char *fall_src = "void fall(const float *dt, float *v) { *v += g * *dt; }\n";

int main(int argc, char **argv) {
  enum { N = 100, STEPS = 3 };
  op_init(argc, argv, 0);
  op_set nodes = op_decl_set(N, "nodes");
  op_dat v = op_decl_dat(nodes, 1, "float", NULL, "v");
  op_decl_const(1, "float", &g);
  float dt = 0.5f;
  for (int s = 0; s < STEPS; s++)
    op_par_loop(fall_src, "fall", nodes, op_arg_gbl(&dt, 1, "float", OP_READ),
                op_arg_dat(v, -1, OP_ID, 1, "float", OP_RW));
  float out[N];
  op_fetch_data(v, out);
  op_exit();
  float want = 0;
  for (int s = 0; s < STEPS; s++) want += g * dt;
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != want;
  unsigned h5[3] = {0, 0, 0};
  H5get_libversion(&h5[0], &h5[1], &h5[2]);
  int changed = tcc_names_changed();
  printf("t761 (C++): %d of %d values wrong, %d of TinyCC's names changed, g = %g\n", bad, N,
         changed, g);
  return bad || changed || g != 9.81f || h5[0] != 1 ? 1 : 0;
}
