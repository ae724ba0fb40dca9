/* SPDX-License-Identifier: BSD-3-Clause */
/* Calls a Fortran procedure with n references: Fortran passes every argument of an OP2 kernel by
 * reference (explicit-shape arrays and scalars, no hidden arguments), so the procedure is a C
 * function of n pointers. One case per count, up to OP2_FORTRAN_MAX_ARGS (the largest
 * op_par_loop_N of include/fortran). */
#include "runtime/fortran/fortran.h"

/* the parameter list of a procedure of n pointers, and its call with p[0..n) */
#define P1 void *
#define A1 p[0]
#define P2 P1, void *
#define A2 A1, p[1]
#define P3 P2, void *
#define A3 A2, p[2]
#define P4 P3, void *
#define A4 A3, p[3]
#define P5 P4, void *
#define A5 A4, p[4]
#define P6 P5, void *
#define A6 A5, p[5]
#define P7 P6, void *
#define A7 A6, p[6]
#define P8 P7, void *
#define A8 A7, p[7]
#define P9 P8, void *
#define A9 A8, p[8]
#define P10 P9, void *
#define A10 A9, p[9]
#define P11 P10, void *
#define A11 A10, p[10]
#define P12 P11, void *
#define A12 A11, p[11]
#define P13 P12, void *
#define A13 A12, p[12]
#define P14 P13, void *
#define A14 A13, p[13]
#define P15 P14, void *
#define A15 A14, p[14]
#define P16 P15, void *
#define A16 A15, p[15]
#define P17 P16, void *
#define A17 A16, p[16]
#define P18 P17, void *
#define A18 A17, p[17]
#define P19 P18, void *
#define A19 A18, p[18]
#define P20 P19, void *
#define A20 A19, p[19]
#define P21 P20, void *
#define A21 A20, p[20]
#define P22 P21, void *
#define A22 A21, p[21]
#define P23 P22, void *
#define A23 A22, p[22]
#define P24 P23, void *
#define A24 A23, p[23]
#define P25 P24, void *
#define A25 A24, p[24]
#define P26 P25, void *
#define A26 A25, p[25]
#define P27 P26, void *
#define A27 A26, p[26]
#define P28 P27, void *
#define A28 A27, p[27]
#define P29 P28, void *
#define A29 A28, p[28]
#define P30 P29, void *
#define A30 A29, p[29]
#define P31 P30, void *
#define A31 A30, p[30]
#define P32 P31, void *
#define A32 A31, p[31]
#define P33 P32, void *
#define A33 A32, p[32]
#define P34 P33, void *
#define A34 A33, p[33]
#define P35 P34, void *
#define A35 A34, p[34]
#define P36 P35, void *
#define A36 A35, p[35]
#define P37 P36, void *
#define A37 A36, p[36]
#define P38 P37, void *
#define A38 A37, p[37]
#define P39 P38, void *
#define A39 A38, p[38]
#define P40 P39, void *
#define A40 A39, p[39]
#define P41 P40, void *
#define A41 A40, p[40]
#define P42 P41, void *
#define A42 A41, p[41]
#define P43 P42, void *
#define A43 A42, p[42]
#define P44 P43, void *
#define A44 A43, p[43]
#define P45 P44, void *
#define A45 A44, p[44]
#define P46 P45, void *
#define A46 A45, p[45]
#define P47 P46, void *
#define A47 A46, p[46]
#define P48 P47, void *
#define A48 A47, p[47]
#define P49 P48, void *
#define A49 A48, p[48]
#define P50 P49, void *
#define A50 A49, p[49]
#define P51 P50, void *
#define A51 A50, p[50]
#define P52 P51, void *
#define A52 A51, p[51]
#define P53 P52, void *
#define A53 A52, p[52]
#define P54 P53, void *
#define A54 A53, p[53]
#define P55 P54, void *
#define A55 A54, p[54]
#define P56 P55, void *
#define A56 A55, p[55]
#define P57 P56, void *
#define A57 A56, p[56]
#define P58 P57, void *
#define A58 A57, p[57]
#define P59 P58, void *
#define A59 A58, p[58]
#define P60 P59, void *
#define A60 A59, p[59]
#define P61 P60, void *
#define A61 A60, p[60]
#define P62 P61, void *
#define A62 A61, p[61]
#define P63 P62, void *
#define A63 A62, p[62]
#define P64 P63, void *
#define A64 A63, p[63]
#define CASE(n)                                        \
  case n:                                              \
    ((void (*)(P##n))(void (*)(void))procedure)(A##n); \
    return;

void op2_fortran_call(void (*procedure)(void), int n, void *const *p) {
  switch (n) {
    CASE(1)
    CASE(2)
    CASE(3)
    CASE(4)
    CASE(5)
    CASE(6)
    CASE(7)
    CASE(8)
    CASE(9)
    CASE(10)
    CASE(11)
    CASE(12)
    CASE(13)
    CASE(14)
    CASE(15)
    CASE(16)
    CASE(17)
    CASE(18)
    CASE(19)
    CASE(20)
    CASE(21)
    CASE(22)
    CASE(23)
    CASE(24)
    CASE(25)
    CASE(26)
    CASE(27)
    CASE(28)
    CASE(29)
    CASE(30)
    CASE(31)
    CASE(32)
    CASE(33)
    CASE(34)
    CASE(35)
    CASE(36)
    CASE(37)
    CASE(38)
    CASE(39)
    CASE(40)
    CASE(41)
    CASE(42)
    CASE(43)
    CASE(44)
    CASE(45)
    CASE(46)
    CASE(47)
    CASE(48)
    CASE(49)
    CASE(50)
    CASE(51)
    CASE(52)
    CASE(53)
    CASE(54)
    CASE(55)
    CASE(56)
    CASE(57)
    CASE(58)
    CASE(59)
    CASE(60)
    CASE(61)
    CASE(62)
    CASE(63)
    CASE(64)
    default:
      return; /* refused when the loop was made */
  }
}
