! SPDX-License-Identifier: BSD-3-Clause
! Built by plain gfortran with `pkg-config --cflags --libs op2-fortran`, as OP2's Fortran programs
! are built: MPI's Fortran module (the program starts MPI itself), OP2's modules through
! op2_fortran_reference, 64-bit global map values (op_decl_map_long), a ring of nodes and edges
! each rank declares its block of, an internal kernel reading the host's declared constant.
program t1003
  use mpi
  use op2_fortran_reference
  use op2_fortran_rt_support
  implicit none
  integer(4), parameter :: total = 1000
  integer :: rank, nranks, ierr
  integer(4) :: first, mine, i
  integer(8), allocatable :: ends(:)
  real(8), allocatable :: v(:)
  real(8) :: factor, sum_all
  type(op_set) :: nodes, edges
  type(op_map) :: ring
  type(op_dat) :: p_v, p_s

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call op_init(0)
  first = rank * total / nranks
  mine = (rank + 1) * total / nranks - first
  allocate(ends(2 * mine), v(mine))
  do i = 1, mine ! edge first+i joins node first+i to the next one, around the ring
    ends(2 * i - 1) = first + i
    ends(2 * i) = mod(first + i, total) + 1
    v(i) = first + i
  end do
  call op_decl_set(mine, nodes, "nodes")
  call op_decl_set(mine, edges, "edges")
  call op_decl_map_long(edges, nodes, 2, ends, ring, "ring")
  call op_decl_dat(nodes, 1, "real(8)", v, p_v, "p_v")
  call op_decl_dat_temp(nodes, 1, "real(8)", p_s, "p_s")
  factor = 0.5_8
  call op_decl_const(factor, 1, "real(8)")
  call op_par_loop_3(spread, edges, &
      op_arg_dat(p_v, 1, ring, 1, "real(8)", OP_READ), &
      op_arg_dat(p_s, 1, ring, 1, "real(8)", OP_INC), &
      op_arg_dat(p_s, 2, ring, 1, "real(8)", OP_INC))
  sum_all = 0.0_8
  call op_par_loop_2(add, nodes, op_arg_dat(p_s, -1, OP_ID, 1, "real(8)", OP_READ), &
      op_arg_gbl(sum_all, 1, "real(8)", OP_INC))
  call op_exit()
  deallocate(ends, v)
  ! each node's value spread, half to itself and half to the next: the sum is the values' sum
  if (abs(sum_all - 0.5_8 * total * (total + 1)) > 1.0e-9_8) then
    print *, "t1003: rank ", rank, " sum ", sum_all
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end if
  if (rank == 0) print *, "t1003: sum ", sum_all, " on ", nranks, " ranks"
  call MPI_Finalize(ierr)

contains

  subroutine spread(value, here, next)
    real(8), intent(in) :: value
    real(8), intent(inout) :: here, next
    here = here + factor * value
    next = next + factor * value
  end subroutine spread

  subroutine add(s, total_sum)
    real(8), intent(in) :: s
    real(8), intent(inout) :: total_sum
    total_sum = total_sum + s
  end subroutine add

end program t1003
