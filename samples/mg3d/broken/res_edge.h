// res_edge.h with a lost increment, as a race between two threads adding to one node would lose
// it: the flux leaves the first node but never reaches the second. Only the test that checks
// mg3d's own checks uses it (OP2_KERNEL_PATH puts this directory first): conservation must fail.
inline void res_edge(const double *u0, const double *u1, const double *ek, double *r0, double *r1) {
  double f = ek[0] > 0.0 ? ek[0] * u0[0] : ek[0] * u1[0];
  f -= ek[1] * (u1[0] - u0[0]);
  *r0 -= f;
  (void)r1;
}
