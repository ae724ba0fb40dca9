! SPDX-License-Identifier: BSD-3-Clause
! Mistakes in OP2 Fortran calls, one per run (the case is the first argument): the library's
! default error handler prints "op2: error: ..." naming what is wrong and exits 1, before
! anything runs. ctest/fortran/expect_error.py checks the message.
program f_errors
  use op2_fortran_declarations
  use op2_fortran_reference
  implicit none
  character(len=32) :: which
  type(op_set) :: nodes, edges
  type(op_map) :: pedge
  type(op_dat) :: p_x, p_i
  integer(4) :: ends(4) = (/1, 2, 2, 3/), ivals(3) = (/1, 2, 3/)
  real(8) :: x(3) = (/1.0_8, 2.0_8, 3.0_8/), total
  real(4) :: single(3)

  call get_command_argument(1, which)
  call op_init(0)
  call op_decl_set(3, nodes, "nodes")
  call op_decl_set(2, edges, "edges")
  call op_decl_map(edges, nodes, 2, ends, pedge, "pedge")
  select case (trim(which))
  case ("dat-type-mismatch") ! a real(8) array declared as integer(4)
    call op_decl_dat(nodes, 1, "integer(4)", x, p_x, "p_x")
  case ("dat-type-unknown")
    call op_decl_dat(nodes, 1, "complex(8)", x, p_x, "p_x")
  case ("dat-too-small")
    call op_decl_dat(nodes, 2, "real(8)", x, p_x, "p_x")
  case ("arg-type-mismatch")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_1(touch, nodes, op_arg_dat(p_x, -1, OP_ID, 1, "real(4)", OP_RW))
  case ("arg-column-zero")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_1(touch, edges, op_arg_dat(p_x, 0, pedge, 1, "real(8)", OP_RW))
  case ("arg-minus-one-map")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_1(touch, edges, op_arg_dat(p_x, -1, pedge, 1, "real(8)", OP_READ))
  case ("arg-column-out")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_1(touch, edges, op_arg_dat(p_x, 3, pedge, 1, "real(8)", OP_RW))
  case ("gbl-type-mismatch")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_2(add, nodes, op_arg_dat(p_x, -1, OP_ID, 1, "real(8)", OP_READ), &
                       op_arg_gbl(total, 1, "integer(4)", OP_INC))
  case ("gbl-access")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_2(add, nodes, op_arg_dat(p_x, -1, OP_ID, 1, "real(8)", OP_READ), &
                       op_arg_gbl(total, 1, "real(8)", OP_WRITE))
  case ("info-ref")
    call op_decl_dat(nodes, 1, "real(8)", x, p_x, "p_x")
    call op_par_loop_2(add, nodes, op_arg_dat(p_x, -1, OP_ID, 1, "real(8)", OP_READ), &
                       op_arg_info(total, 1, "real(8)", 1))
  case ("fetch-type")
    call op_decl_dat(nodes, 1, "integer(4)", ivals, p_i, "p_i")
    call op_fetch_data(p_i, single)
  case ("const-dim")
    call op_decl_const(x, 0, "real(8)")
  case default
    print *, "f_errors: no case '", trim(which), "'"
    stop 2
  end select
  call op_exit()
  print *, "f_errors: no error for ", trim(which)
  stop 3

contains

  subroutine touch(v)
    real(8), intent(inout) :: v
    v = v + 1.0_8
  end subroutine touch

  subroutine add(v, s)
    real(8), intent(in) :: v
    real(8), intent(inout) :: s
    s = s + v
  end subroutine add

end program f_errors
