/* SPDX-License-Identifier: BSD-3-Clause */
/* op2jit SIMD loop for the optimised tier (compiled only where the compiler's flags define
 * OP2_SIMD_W, the lanes per group: -fopenmp-simd -fno-math-errno -DOP2_SIMD_W=W; TinyCC skips it).
 * Besides the scalar loop's macros, the code generator defines:
 *   OP2_SIMD_KERNEL     the kernel, or its copy indexing component-major lane arrays
 *   OP2_SIMD_GATHER     local copies of a group's indirect data (increments: zero)
 *   OP2_SIMD_LANE       per lane, inside the vectorised loop: vector arguments' pointer arrays
 *   OP2_SIMD_CALL_ARGS  the kernel's arguments for lane op2_l
 *   OP2_SIMD_SCATTER    writes and increments put back, reductions folded, in element order
 * The scalar loop (templates/c/loop.c, following) becomes op2_loop_scalar and runs the
 * remainder, starting from the reductions this loop has written back. */
#ifdef OP2_SIMD_W
/* Moving rows of doubles (an element's data) to and from component-major lane arrays
 * g[component][lane]. For groups of 8 (AVX-512) and 4 (AVX2) these are register transposes: one
 * wide load or add per row, a few shuffles, one store per component. Copied one double at a
 * time, a group of Airfoil's res_calc made 44 scalar stores per element, and the store port, not
 * the arithmetic, set its speed. Each add is the same IEEE addition the scalar loop makes. */
#if (OP2_SIMD_W == 8 || OP2_SIMD_W == 4) && defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
#define OP2_ROWS_IN_REGISTERS 1
#endif
#endif
#ifdef OP2_ROWS_IN_REGISTERS
typedef double op2_v8d __attribute__((vector_size(64), aligned(8)));
typedef double op2_v4d __attribute__((vector_size(32), aligned(8)));
typedef double op2_v2d __attribute__((vector_size(16), aligned(8)));
#define OP2_SHUF __builtin_shufflevector

/* A 4x4 transpose in 256-bit registers: unpacks within 128-bit halves, then half swaps. Both
 * kinds are single-cycle on AVX2 machines; 512-bit cross-lane shuffles cost more, which is why
 * 8 lanes leave their kernel through two of these (Airfoil's res_calc ran faster that way than with
 * one 8x4 transpose in 512-bit registers). */
static inline void op2_transpose_4x4(op2_v4d o[4], op2_v4d a, op2_v4d b, op2_v4d c, op2_v4d d) {
  op2_v4d ab0 = OP2_SHUF(a, b, 0, 4, 2, 6), ab1 = OP2_SHUF(a, b, 1, 5, 3, 7);
  op2_v4d cd0 = OP2_SHUF(c, d, 0, 4, 2, 6), cd1 = OP2_SHUF(c, d, 1, 5, 3, 7);
  o[0] = OP2_SHUF(ab0, cd0, 0, 1, 4, 5);
  o[1] = OP2_SHUF(ab1, cd1, 0, 1, 4, 5);
  o[2] = OP2_SHUF(ab0, cd0, 2, 3, 6, 7);
  o[3] = OP2_SHUF(ab1, cd1, 2, 3, 6, 7);
}

#if OP2_SIMD_W == 8
static inline void op2_rows_to_lanes_2(double (*restrict g)[8], const double *restrict base,
                                       const int *restrict idx, int stride) {
  op2_v2d r[8];
  for (int l = 0; l < 8; l++) r[l] = *(const op2_v2d *)(base + 2 * idx[l * stride]);
  op2_v4d p0 = OP2_SHUF(r[0], r[1], 0, 1, 2, 3), p1 = OP2_SHUF(r[2], r[3], 0, 1, 2, 3);
  op2_v4d p2 = OP2_SHUF(r[4], r[5], 0, 1, 2, 3), p3 = OP2_SHUF(r[6], r[7], 0, 1, 2, 3);
  op2_v8d a = OP2_SHUF(p0, p1, 0, 1, 2, 3, 4, 5, 6, 7),
          b = OP2_SHUF(p2, p3, 0, 1, 2, 3, 4, 5, 6, 7);
  *(op2_v8d *)g[0] = OP2_SHUF(a, b, 0, 2, 4, 6, 8, 10, 12, 14);
  *(op2_v8d *)g[1] = OP2_SHUF(a, b, 1, 3, 5, 7, 9, 11, 13, 15);
}

static inline void op2_lanes_to_rows_2(double (*restrict r)[2], double (*restrict g)[8]) {
  op2_v8d k0 = *(const op2_v8d *)g[0], k1 = *(const op2_v8d *)g[1];
  *(op2_v8d *)r[0] = OP2_SHUF(k0, k1, 0, 8, 1, 9, 2, 10, 3, 11);
  *(op2_v8d *)r[4] = OP2_SHUF(k0, k1, 4, 12, 5, 13, 6, 14, 7, 15);
}

#else /* 4 lanes */
static inline void op2_rows_to_lanes_2(double (*restrict g)[4], const double *restrict base,
                                       const int *restrict idx, int stride) {
  op2_v2d r[4];
  for (int l = 0; l < 4; l++) r[l] = *(const op2_v2d *)(base + 2 * idx[l * stride]);
  op2_v4d r02 = OP2_SHUF(r[0], r[2], 0, 1, 2, 3), r13 = OP2_SHUF(r[1], r[3], 0, 1, 2, 3);
  *(op2_v4d *)g[0] = OP2_SHUF(r02, r13, 0, 4, 2, 6);
  *(op2_v4d *)g[1] = OP2_SHUF(r02, r13, 1, 5, 3, 7);
}

static inline void op2_lanes_to_rows_2(double (*restrict r)[2], double (*restrict g)[4]) {
  op2_v4d k0 = *(const op2_v4d *)g[0], k1 = *(const op2_v4d *)g[1];
  *(op2_v4d *)r[0] = OP2_SHUF(k0, k1, 0, 4, 1, 5);
  *(op2_v4d *)r[2] = OP2_SHUF(k0, k1, 2, 6, 3, 7);
}

#endif

/* Rows of other lengths (MG-CFD's 5 flow variables): each run of 4 components moves through
 * the same transposes as a row of 4, loaded and stored unaligned inside the longer row; the
 * components left over (fewer than 4) are put together in a register lane by lane. */
#if OP2_SIMD_W == 8
static inline void op2_quad_to_lanes(double (*restrict g)[8], const double *restrict base,
                                     int rowlen, const int *restrict idx, int stride) {
  op2_v4d r[8];
  for (int l = 0; l < 8; l++) r[l] = *(const op2_v4d *)(base + rowlen * idx[l * stride]);
  op2_v8d a01 = OP2_SHUF(r[0], r[1], 0, 1, 2, 3, 4, 5, 6, 7);
  op2_v8d a23 = OP2_SHUF(r[2], r[3], 0, 1, 2, 3, 4, 5, 6, 7);
  op2_v8d a45 = OP2_SHUF(r[4], r[5], 0, 1, 2, 3, 4, 5, 6, 7);
  op2_v8d a67 = OP2_SHUF(r[6], r[7], 0, 1, 2, 3, 4, 5, 6, 7);
  op2_v8d b0 = OP2_SHUF(a01, a23, 0, 4, 8, 12, 1, 5, 9, 13);
  op2_v8d b1 = OP2_SHUF(a01, a23, 2, 6, 10, 14, 3, 7, 11, 15);
  op2_v8d c0 = OP2_SHUF(a45, a67, 0, 4, 8, 12, 1, 5, 9, 13);
  op2_v8d c1 = OP2_SHUF(a45, a67, 2, 6, 10, 14, 3, 7, 11, 15);
  *(op2_v8d *)g[0] = OP2_SHUF(b0, c0, 0, 1, 2, 3, 8, 9, 10, 11);
  *(op2_v8d *)g[1] = OP2_SHUF(b0, c0, 4, 5, 6, 7, 12, 13, 14, 15);
  *(op2_v8d *)g[2] = OP2_SHUF(b1, c1, 0, 1, 2, 3, 8, 9, 10, 11);
  *(op2_v8d *)g[3] = OP2_SHUF(b1, c1, 4, 5, 6, 7, 12, 13, 14, 15);
}

static inline void op2_lanes_to_quad(double *restrict r, int rowlen, double (*restrict g)[8]) {
  op2_v8d k[4];
  for (int c = 0; c < 4; c++) k[c] = *(const op2_v8d *)g[c];
  op2_v4d o[4];
  op2_transpose_4x4(o, OP2_SHUF(k[0], k[0], 0, 1, 2, 3), OP2_SHUF(k[1], k[1], 0, 1, 2, 3),
                    OP2_SHUF(k[2], k[2], 0, 1, 2, 3), OP2_SHUF(k[3], k[3], 0, 1, 2, 3));
  for (int l = 0; l < 4; l++) *(op2_v4d *)(r + rowlen * l) = o[l];
  op2_transpose_4x4(o, OP2_SHUF(k[0], k[0], 4, 5, 6, 7), OP2_SHUF(k[1], k[1], 4, 5, 6, 7),
                    OP2_SHUF(k[2], k[2], 4, 5, 6, 7), OP2_SHUF(k[3], k[3], 4, 5, 6, 7));
  for (int l = 0; l < 4; l++) *(op2_v4d *)(r + rowlen * (4 + l)) = o[l];
}

static inline void op2_component_to_lanes(double *restrict g, const double *restrict base,
                                          int rowlen, const int *restrict idx, int stride) {
  op2_v8d v = {base[rowlen * idx[0]],          base[rowlen * idx[stride]],
               base[rowlen * idx[2 * stride]], base[rowlen * idx[3 * stride]],
               base[rowlen * idx[4 * stride]], base[rowlen * idx[5 * stride]],
               base[rowlen * idx[6 * stride]], base[rowlen * idx[7 * stride]]};
  *(op2_v8d *)g = v;
}
#else /* 4 lanes */
static inline void op2_quad_to_lanes(double (*restrict g)[4], const double *restrict base,
                                     int rowlen, const int *restrict idx, int stride) {
  op2_v4d r[4], o[4];
  for (int l = 0; l < 4; l++) r[l] = *(const op2_v4d *)(base + rowlen * idx[l * stride]);
  op2_transpose_4x4(o, r[0], r[1], r[2], r[3]);
  for (int c = 0; c < 4; c++) *(op2_v4d *)g[c] = o[c];
}

static inline void op2_lanes_to_quad(double *restrict r, int rowlen, double (*restrict g)[4]) {
  op2_v4d o[4];
  op2_transpose_4x4(o, *(const op2_v4d *)g[0], *(const op2_v4d *)g[1], *(const op2_v4d *)g[2],
                    *(const op2_v4d *)g[3]);
  for (int l = 0; l < 4; l++) *(op2_v4d *)(r + rowlen * l) = o[l];
}

static inline void op2_component_to_lanes(double *restrict g, const double *restrict base,
                                          int rowlen, const int *restrict idx, int stride) {
  op2_v4d v = {base[rowlen * idx[0]], base[rowlen * idx[stride]], base[rowlen * idx[2 * stride]],
               base[rowlen * idx[3 * stride]]};
  *(op2_v4d *)g = v;
}
#endif

/* rows of 4 (Airfoil's q and res): the same moves, rows side by side (measured: as fast as two
 * 4x4 transposes joined) */
static inline void op2_rows_to_lanes_4(double (*restrict g)[OP2_SIMD_W],
                                       const double *restrict base, const int *restrict idx,
                                       int stride) {
  op2_quad_to_lanes(g, base, 4, idx, stride);
}

static inline void op2_lanes_to_rows_4(double (*restrict r)[4], double (*restrict g)[OP2_SIMD_W]) {
  op2_lanes_to_quad(r[0], 4, g);
}

static inline void op2_rows_to_lanes_n(double (*restrict g)[OP2_SIMD_W],
                                       const double *restrict base, int dim,
                                       const int *restrict idx, int stride) {
  int k = 0;
  for (; k + 4 <= dim; k += 4) op2_quad_to_lanes(g + k, base + k, dim, idx, stride);
  for (; k < dim; k++) op2_component_to_lanes(g[k], base + k, dim, idx, stride);
}

static inline void op2_lanes_to_rows_n(double *restrict r, int dim,
                                       double (*restrict g)[OP2_SIMD_W]) {
  int k = 0;
  for (; k + 4 <= dim; k += 4) op2_lanes_to_quad(r + k, dim, g + k);
  for (; k < dim; k++)
    for (int l = 0; l < OP2_SIMD_W; l++) r[dim * l + k] = g[k][l];
}

static inline void op2_add_row_n(double *restrict p, const double *restrict r, int dim) {
  int k = 0;
  for (; k + 4 <= dim; k += 4)
    *(op2_v4d *)(p + k) = *(op2_v4d *)(p + k) + *(const op2_v4d *)(r + k);
  for (; k < dim; k++) p[k] += r[k];
}

static inline void op2_add_row_2(double *restrict p, const double *restrict r) {
  *(op2_v2d *)p = *(op2_v2d *)p + *(const op2_v2d *)r;
}

static inline void op2_add_row_4(double *restrict p, const double *restrict r) {
  *(op2_v4d *)p = *(op2_v4d *)p + *(const op2_v4d *)r;
}
#undef OP2_SHUF
#else
#define OP2_ROWS_GENERIC(D)                                                                      \
  static inline void op2_rows_to_lanes_##D(double(*restrict g)[OP2_SIMD_W],                      \
                                           const double *restrict base, const int *restrict idx, \
                                           int stride) {                                         \
    for (int l = 0; l < OP2_SIMD_W; l++)                                                         \
      for (int k = 0; k < D; k++) g[k][l] = base[D * idx[l * stride] + k];                       \
  }                                                                                              \
  static inline void op2_lanes_to_rows_##D(double(*restrict r)[D],                               \
                                           double(*restrict g)[OP2_SIMD_W]) {                    \
    for (int l = 0; l < OP2_SIMD_W; l++)                                                         \
      for (int k = 0; k < D; k++) r[l][k] = g[k][l];                                             \
  }                                                                                              \
  static inline void op2_add_row_##D(double *restrict p, const double *restrict r) {             \
    for (int k = 0; k < D; k++) p[k] += r[k];                                                    \
  }
OP2_ROWS_GENERIC(2)
OP2_ROWS_GENERIC(4)
#undef OP2_ROWS_GENERIC
static inline void op2_rows_to_lanes_n(double (*restrict g)[OP2_SIMD_W],
                                       const double *restrict base, int dim,
                                       const int *restrict idx, int stride) {
  for (int l = 0; l < OP2_SIMD_W; l++)
    for (int k = 0; k < dim; k++) g[k][l] = base[dim * idx[l * stride] + k];
}
static inline void op2_lanes_to_rows_n(double *restrict r, int dim,
                                       double (*restrict g)[OP2_SIMD_W]) {
  for (int l = 0; l < OP2_SIMD_W; l++)
    for (int k = 0; k < dim; k++) r[dim * l + k] = g[k][l];
}
static inline void op2_add_row_n(double *restrict p, const double *restrict r, int dim) {
  for (int k = 0; k < dim; k++) p[k] += r[k];
}
#endif

void op2_loop_scalar(void *const *op2_args, const int *const *op2_maps, int op2_begin, int op2_end);
/* flatten: the kernel must be inlined into the lane loop for it to vectorise, and gcc's inliner
 * declines to for an exported kernel of Airfoil's size. */
__attribute__((flatten)) void op2_loop(void *const *op2_args, const int *const *op2_maps,
                                       int op2_begin, int op2_end) {
  int op2_n0 = op2_begin;
  {
    OP2_DECLARE
    for (; op2_n0 + OP2_SIMD_W <= op2_end; op2_n0 += OP2_SIMD_W) {
      OP2_SIMD_GATHER
#pragma omp simd
      for (int op2_l = 0; op2_l < OP2_SIMD_W; op2_l++) {
        OP2_SIMD_LANE
        OP2_SIMD_KERNEL(OP2_SIMD_CALL_ARGS);
      }
      OP2_SIMD_SCATTER
    }
    OP2_FINISH
  }
  op2_loop_scalar(op2_args, op2_maps, op2_n0, op2_end);
}
#define op2_loop op2_loop_scalar
#endif
