! SPDX-License-Identifier: BSD-3-Clause
! Airfoil's flow constants as module variables, set at run time and declared with op_decl_const:
! the kernels read them by use association, as the program does. Their values are those of the
! C sample (samples/airfoil/flow.c), OP2's single-precision literals included, so the two
! samples compute the same rms.
module airfoil_constants
  implicit none
  real(8) :: gam, gm1, cfl, eps, mach, alpha
  real(8), dimension(4) :: qinf

contains

  subroutine airfoil_free_stream()
    real(8) :: p, r, u, e
    gam = real(1.4_4, 8)
    gm1 = gam - 1.0_8
    cfl = real(0.9_4, 8)
    eps = real(0.05_4, 8)
    mach = real(0.4_4, 8)
    alpha = 3.0_8 * atan(1.0_8) / 45.0_8
    p = 1.0_8
    r = 1.0_8
    u = sqrt(gam * p / r) * mach
    e = p / (r * gm1) + 0.5_8 * u * u
    qinf = (/ r, r * u, 0.0_8, r * e /)
  end subroutine airfoil_free_stream

end module airfoil_constants
