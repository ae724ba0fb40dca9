! SPDX-License-Identifier: BSD-3-Clause
! Airfoil in Fortran on op2jit's Fortran API: the C sample's solver (samples/airfoil), its kernels
! module procedures (airfoil_kernels.F90) reading module variables declared as constants
! (airfoil_constants.F90). It reads the same meshes through the C sample's reader (under MPI
! each rank its block, map values from 0: op_init_base(diags, 0)) and prints " ITER  RMS" every
! 100 iterations on the rank that prints, as the C sample does.
! Usage: airfoil_f MESH [ITERATIONS]
program airfoil_f
  use, intrinsic :: iso_c_binding
  use op2_fortran_declarations
  use op2_fortran_reference
  use op2_fortran_rt_support
  use airfoil_constants
  use airfoil_kernels
  implicit none

  interface
    type(c_ptr) function airfoil_f_mesh_read(path, nnode, ncell, nedge, nbedge, ncell_total) &
        bind(C, name='airfoil_f_mesh_read')
      import :: c_ptr, c_char, c_int, c_double
      character(kind=c_char), dimension(*), intent(in) :: path
      integer(c_int), intent(out) :: nnode, ncell, nedge, nbedge
      real(c_double), intent(out) :: ncell_total
    end function
    subroutine airfoil_f_mesh_take(mesh, x, cell, edge, ecell, bedge, becell, bound) &
        bind(C, name='airfoil_f_mesh_take')
      import :: c_ptr, c_int, c_double
      type(c_ptr), value :: mesh
      real(c_double), dimension(*), intent(out) :: x
      integer(c_int), dimension(*), intent(out) :: cell, edge, ecell, bedge, becell, bound
    end subroutine
  end interface

  character(len=4096) :: path, arg
  integer(4) :: niter, iter, k, nnode, ncell, nedge, nbedge, status
  real(8) :: ncell_total, rms, last_rms
  logical :: root
  type(c_ptr) :: mesh
  real(8), dimension(:), allocatable :: x, q
  integer(4), dimension(:), allocatable :: cell, edge, ecell, bedge, becell, bound
  type(op_set) :: nodes, edges, bedges, cells
  type(op_map) :: pedge, pecell, pbedge, pbecell, pcell
  type(op_dat) :: p_bound, p_x, p_q, p_qold, p_adt, p_res

  if (command_argument_count() < 1) then
    write (*, "(A)") "usage: airfoil_f MESH [ITERATIONS]"
    stop 2
  end if
  call get_command_argument(1, path)
  niter = 1000
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=status) niter
    if (status /= 0 .or. niter < 1) then
      write (*, "(A, A, A)") "airfoil_f: ITERATIONS must be a positive integer, got '", trim(arg), "'"
      stop 2
    end if
  end if

  call op_init_base(0, 0)

  mesh = airfoil_f_mesh_read(trim(path) // c_null_char, nnode, ncell, nedge, nbedge, ncell_total)
  if (.not. c_associated(mesh)) then
    call op_exit()
    stop 1
  end if
  allocate(x(2 * nnode), cell(4 * ncell), edge(2 * nedge), ecell(2 * nedge), &
           bedge(2 * nbedge), becell(nbedge), bound(nbedge), q(4 * ncell))
  call airfoil_f_mesh_take(mesh, x, cell, edge, ecell, bedge, becell, bound)

  call airfoil_free_stream()
  do k = 1, ncell
    q(4 * k - 3:4 * k) = qinf
  end do

  call op_decl_set(nnode, nodes, "nodes")
  call op_decl_set(nedge, edges, "edges")
  call op_decl_set(nbedge, bedges, "bedges")
  call op_decl_set(ncell, cells, "cells")
  call op_decl_map(edges, nodes, 2, edge, pedge, "pedge")
  call op_decl_map(edges, cells, 2, ecell, pecell, "pecell")
  call op_decl_map(bedges, nodes, 2, bedge, pbedge, "pbedge")
  call op_decl_map(bedges, cells, 1, becell, pbecell, "pbecell")
  call op_decl_map(cells, nodes, 4, cell, pcell, "pcell")
  call op_decl_dat(bedges, 1, "integer(4)", bound, p_bound, "p_bound")
  call op_decl_dat(nodes, 2, "real(8)", x, p_x, "p_x")
  call op_decl_dat(cells, 4, "real(8)", q, p_q, "p_q")
  call op_decl_dat_temp(cells, 4, "real(8)", p_qold, "p_qold")
  call op_decl_dat_temp(cells, 1, "real(8)", p_adt, "p_adt")
  call op_decl_dat_temp(cells, 4, "real(8)", p_res, "p_res")
  deallocate(x, cell, edge, ecell, bedge, becell, bound, q) ! the library keeps its copies

  call op_decl_const(gam, 1, "real(8)")
  call op_decl_const(gm1, 1, "real(8)")
  call op_decl_const(cfl, 1, "real(8)")
  call op_decl_const(eps, 1, "real(8)")
  call op_decl_const(mach, 1, "real(8)")
  call op_decl_const(alpha, 1, "real(8)")
  call op_decl_const(qinf, 4, "real(8)")

  call op_partition("PTSCOTCH", "KWAY", cells, pecell, p_x)

  root = op_is_root() == 1
  last_rms = 0.0_8
  do iter = 1, niter
    call op_par_loop_2(save_soln, cells, &
        op_arg_dat(p_q, -1, OP_ID, 4, "real(8)", OP_READ), &
        op_arg_dat(p_qold, -1, OP_ID, 4, "real(8)", OP_WRITE))
    do k = 1, 2
      call op_par_loop_6(adt_calc, cells, &
          op_arg_dat(p_x, 1, pcell, 2, "real(8)", OP_READ), &
          op_arg_dat(p_x, 2, pcell, 2, "real(8)", OP_READ), &
          op_arg_dat(p_x, 3, pcell, 2, "real(8)", OP_READ), &
          op_arg_dat(p_x, 4, pcell, 2, "real(8)", OP_READ), &
          op_arg_dat(p_q, -1, OP_ID, 4, "real(8)", OP_READ), &
          op_arg_dat(p_adt, -1, OP_ID, 1, "real(8)", OP_WRITE))
      call op_par_loop_8(res_calc, edges, &
          op_arg_dat(p_x, 1, pedge, 2, "real(8)", OP_READ), &
          op_arg_dat(p_x, 2, pedge, 2, "real(8)", OP_READ), &
          op_arg_dat(p_q, 1, pecell, 4, "real(8)", OP_READ), &
          op_arg_dat(p_q, 2, pecell, 4, "real(8)", OP_READ), &
          op_arg_dat(p_adt, 1, pecell, 1, "real(8)", OP_READ), &
          op_arg_dat(p_adt, 2, pecell, 1, "real(8)", OP_READ), &
          op_arg_dat(p_res, 1, pecell, 4, "real(8)", OP_INC), &
          op_arg_dat(p_res, 2, pecell, 4, "real(8)", OP_INC))
      call op_par_loop_6(bres_calc, bedges, &
          op_arg_dat(p_x, 1, pbedge, 2, "real(8)", OP_READ), &
          op_arg_dat(p_x, 2, pbedge, 2, "real(8)", OP_READ), &
          op_arg_dat(p_q, 1, pbecell, 4, "real(8)", OP_READ), &
          op_arg_dat(p_adt, 1, pbecell, 1, "real(8)", OP_READ), &
          op_arg_dat(p_res, 1, pbecell, 4, "real(8)", OP_INC), &
          op_arg_dat(p_bound, -1, OP_ID, 1, "integer(4)", OP_READ))
      rms = 0.0_8
      call op_par_loop_5(update, cells, &
          op_arg_dat(p_qold, -1, OP_ID, 4, "real(8)", OP_READ), &
          op_arg_dat(p_q, -1, OP_ID, 4, "real(8)", OP_WRITE), &
          op_arg_dat(p_res, -1, OP_ID, 4, "real(8)", OP_RW), &
          op_arg_dat(p_adt, -1, OP_ID, 1, "real(8)", OP_READ), &
          op_arg_gbl(rms, 1, "real(8)", OP_INC))
    end do
    rms = sqrt(rms / ncell_total)
    if (mod(iter, 100) == 0 .and. root) then
      write (arg, "(ES21.15E2)") rms ! as C's %.15e: lower-case exponent
      k = index(arg, "E")
      if (k > 0) arg(k:k) = "e"
      write (*, "(1X, I0, 2X, A)") iter, trim(adjustl(arg))
    end if
    last_rms = rms
  end do

  call op_timing_output()
  call op_exit()
end program airfoil_f
