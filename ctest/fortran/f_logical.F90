! SPDX-License-Identifier: BSD-3-Clause
! A logical dat (OP2's "logical", gfortran's 4-byte LOGICAL) written by a kernel, with an integer
! reduction: 50 of the 100 values are above 0.5, on either form of the optimised tier's loop.
module f_logical_kernels
  implicit none
contains
  subroutine flip(f, x, n)
    logical, intent(inout) :: f
    real(8), intent(in) :: x
    integer(4), intent(inout) :: n
    f = x > 0.5_8
    if (f) n = n + 1
  end subroutine flip
end module f_logical_kernels

program f_logical
  use op2_fortran_declarations
  use op2_fortran_reference
  use f_logical_kernels
  implicit none
  integer(4), parameter :: nn = 100
  logical :: f(nn)
  real(8) :: x(nn)
  integer(4) :: i, cnt
  type(op_set) :: s
  type(op_dat) :: pf, px
  call op_init(0)
  do i = 1, nn
    x(i) = real(i, 8) / nn
  end do
  f = .false.
  call op_decl_set(nn, s, "s")
  call op_decl_dat(s, 1, "logical", f, pf, "f")
  call op_decl_dat(s, 1, "real(8)", x, px, "x")
  cnt = 0
  call op_par_loop_3(flip, s, op_arg_dat(pf, -1, OP_ID, 1, "logical", OP_RW), &
       op_arg_dat(px, -1, OP_ID, 1, "real(8)", OP_READ), op_arg_gbl(cnt, 1, "integer(4)", OP_INC))
  call op_fetch_data(pf, f)
  print *, "count", cnt, count(f)
  call op_exit()
end program f_logical
