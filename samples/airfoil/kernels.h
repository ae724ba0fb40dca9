/* SPDX-License-Identifier: BSD-3-Clause */
/* Airfoil's five kernels as C source strings, exactly as op_par_loop receives them. Float
 * literals (1.0f, 0.5f) are OP2 Airfoil's own: the reference rms values depend on them. */
#ifndef AIRFOIL_KERNELS_H
#define AIRFOIL_KERNELS_H

static const char save_soln_src[] =
    "void save_soln(const double *q, double *qold) {\n"
    "  for (int n = 0; n < 4; n++) qold[n] = q[n];\n"
    "}\n";

static const char adt_calc_src[] =
    "void adt_calc(const double *x1, const double *x2, const double *x3, const double *x4,\n"
    "              const double *q, double *adt) {\n"
    "  double dx, dy, ri, u, v, c;\n"
    "  ri = 1.0f / q[0];\n"
    "  u = ri * q[1];\n"
    "  v = ri * q[2];\n"
    "  c = sqrt(gam * gm1 * (ri * q[3] - 0.5f * (u * u + v * v)));\n"
    "  dx = x2[0] - x1[0];\n"
    "  dy = x2[1] - x1[1];\n"
    "  *adt = fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);\n"
    "  dx = x3[0] - x2[0];\n"
    "  dy = x3[1] - x2[1];\n"
    "  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);\n"
    "  dx = x4[0] - x3[0];\n"
    "  dy = x4[1] - x3[1];\n"
    "  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);\n"
    "  dx = x1[0] - x4[0];\n"
    "  dy = x1[1] - x4[1];\n"
    "  *adt += fabs(u * dy - v * dx) + c * sqrt(dx * dx + dy * dy);\n"
    "  *adt = (*adt) / cfl;\n"
    "}\n";

static const char res_calc_src[] =
    "void res_calc(const double *x1, const double *x2, const double *q1, const double *q2,\n"
    "              const double *adt1, const double *adt2, double *res1, double *res2) {\n"
    "  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;\n"
    "  dx = x1[0] - x2[0];\n"
    "  dy = x1[1] - x2[1];\n"
    "  ri = 1.0f / q1[0];\n"
    "  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));\n"
    "  vol1 = ri * (q1[1] * dy - q1[2] * dx);\n"
    "  ri = 1.0f / q2[0];\n"
    "  p2 = gm1 * (q2[3] - 0.5f * ri * (q2[1] * q2[1] + q2[2] * q2[2]));\n"
    "  vol2 = ri * (q2[1] * dy - q2[2] * dx);\n"
    "  mu = 0.5f * ((*adt1) + (*adt2)) * eps;\n"
    "  f = 0.5f * (vol1 * q1[0] + vol2 * q2[0]) + mu * (q1[0] - q2[0]);\n"
    "  res1[0] += f;\n"
    "  res2[0] -= f;\n"
    "  f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * q2[1] + p2 * dy) + mu * (q1[1] - q2[1]);\n"
    "  res1[1] += f;\n"
    "  res2[1] -= f;\n"
    "  f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * q2[2] - p2 * dx) + mu * (q1[2] - q2[2]);\n"
    "  res1[2] += f;\n"
    "  res2[2] -= f;\n"
    "  f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (q2[3] + p2)) + mu * (q1[3] - q2[3]);\n"
    "  res1[3] += f;\n"
    "  res2[3] -= f;\n"
    "}\n";

static const char bres_calc_src[] =
    "void bres_calc(const double *x1, const double *x2, const double *q1, const double *adt1,\n"
    "               double *res1, const int *bound) {\n"
    "  double dx, dy, mu, ri, p1, vol1, p2, vol2, f;\n"
    "  dx = x1[0] - x2[0];\n"
    "  dy = x1[1] - x2[1];\n"
    "  ri = 1.0f / q1[0];\n"
    "  p1 = gm1 * (q1[3] - 0.5f * ri * (q1[1] * q1[1] + q1[2] * q1[2]));\n"
    "  if (*bound == 1) {\n"
    "    res1[1] += +p1 * dy;\n"
    "    res1[2] += -p1 * dx;\n"
    "  } else {\n"
    "    vol1 = ri * (q1[1] * dy - q1[2] * dx);\n"
    "    ri = 1.0f / qinf[0];\n"
    "    p2 = gm1 * (qinf[3] - 0.5f * ri * (qinf[1] * qinf[1] + qinf[2] * qinf[2]));\n"
    "    vol2 = ri * (qinf[1] * dy - qinf[2] * dx);\n"
    "    mu = (*adt1) * eps;\n"
    "    f = 0.5f * (vol1 * q1[0] + vol2 * qinf[0]) + mu * (q1[0] - qinf[0]);\n"
    "    res1[0] += f;\n"
    "    f = 0.5f * (vol1 * q1[1] + p1 * dy + vol2 * qinf[1] + p2 * dy) + mu * (q1[1] - qinf[1]);\n"
    "    res1[1] += f;\n"
    "    f = 0.5f * (vol1 * q1[2] - p1 * dx + vol2 * qinf[2] - p2 * dx) + mu * (q1[2] - qinf[2]);\n"
    "    res1[2] += f;\n"
    "    f = 0.5f * (vol1 * (q1[3] + p1) + vol2 * (qinf[3] + p2)) + mu * (q1[3] - qinf[3]);\n"
    "    res1[3] += f;\n"
    "  }\n"
    "}\n";

static const char update_src[] =
    "void update(const double *qold, double *q, double *res, const double *adt, double *rms) {\n"
    "  double del, adti;\n"
    "  adti = 1.0f / (*adt);\n"
    "  for (int n = 0; n < 4; n++) {\n"
    "    del = adti * res[n];\n"
    "    q[n] = qold[n] - del;\n"
    "    res[n] = 0.0f;\n"
    "    *rms += del * del;\n"
    "  }\n"
    "}\n";

#endif
