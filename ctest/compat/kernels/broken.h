inline void broken(double *y) {
  y[0] = 1.0;
  y[0] = this is not C;
}
