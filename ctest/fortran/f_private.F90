! SPDX-License-Identifier: BSD-3-Clause
! A kernel the optimised tier cannot build: it reads a PRIVATE variable of its module, which a
! loop module outside that module cannot see (gfortran refuses it). The loop runs on its first
! tier (the program's procedure by address) and computes what it should; the library says why
! once (ctest/fortran/meson.build checks the message). Exits 1 on a wrong result.
module f_private_kernels
  implicit none
  private
  public :: scale, set_factor
  real(8) :: factor = 1.0_8

contains

  subroutine set_factor(f)
    real(8), intent(in) :: f
    factor = f
  end subroutine set_factor

  subroutine scale(x)
    real(8), intent(inout) :: x
    x = x * factor
  end subroutine scale

end module f_private_kernels

program f_private
  use op2_fortran_declarations
  use op2_fortran_reference
  use f_private_kernels
  implicit none
  integer(4), parameter :: n = 1000
  real(8) :: x(n)
  integer(4) :: i
  type(op_set) :: s
  type(op_dat) :: p_x

  do i = 1, n
    x(i) = i
  end do
  call op_init(0)
  call op_decl_set(n, s, "s")
  call op_decl_dat(s, 1, "real(8)", x, p_x, "p_x")
  call set_factor(3.0_8)
  do i = 1, 3
    call op_par_loop_1(scale, s, op_arg_dat(p_x, -1, OP_ID, 1, "real(8)", OP_RW))
  end do
  call op_fetch_data(p_x, x)
  call op_exit()
  do i = 1, n
    if (abs(x(i) - 27.0_8 * i) > 1.0e-9_8) stop 1
  end do
end program f_private
