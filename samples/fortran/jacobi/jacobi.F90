! SPDX-License-Identifier: BSD-3-Clause
! A Jacobi solver for the 5-point Laplacian on an n x n grid (fixed values on the border), on
! op2jit's Fortran API: its kernels are internal procedures of the program (after `contains`),
! two of which read the host variable `omega`, declared with op_decl_const. The program runs
! the same iterations on plain arrays and checks that both agree (to 1e-12), then the edges'
! fluxes of the solution (each added to both ends, the steepest difference taken), then exits 0.
! Maps count from 1 (op_init). Usage: jacobi_f [N] [ITERATIONS]
program jacobi_f
  use op2_fortran_declarations
  use op2_fortran_reference
  use op2_fortran_rt_support
  implicit none

  integer(4) :: n, niter, nnode, nedge, i, j, e, iter, status
  character(len=64) :: arg
  real(8) :: omega, change, residual, lowest, worst, steepest, steepest_plain
  logical :: root
  integer(4), dimension(:), allocatable :: ends
  real(8), dimension(:), allocatable :: u, b, w, u_plain, du_plain, f, f_plain
  type(op_set) :: nodes, edges
  type(op_map) :: pedge
  type(op_dat) :: p_u, p_du, p_b, p_w, p_f

  n = 24
  niter = 40
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) n
    if (status /= 0 .or. n < 3) stop "jacobi_f: N must be an integer of at least 3"
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *, iostat=status) niter
    if (status /= 0 .or. niter < 1) stop "jacobi_f: ITERATIONS must be a positive integer"
  end if

  call op_init(0)
  root = op_is_root() == 1

  ! nodes numbered row by row from 1; an edge to each right and upper neighbour
  nnode = n * n
  nedge = 2 * n * (n - 1)
  allocate(ends(2 * nedge), u(nnode), b(nnode), w(nedge), f(nnode), f_plain(nnode))
  e = 0
  do j = 1, n
    do i = 1, n
      if (i < n) call add_edge(node(i, j), node(i + 1, j))
      if (j < n) call add_edge(node(i, j), node(i, j + 1))
    end do
  end do
  ! the border's fixed values enter as the right-hand side of the nodes next to it
  do j = 1, n
    do i = 1, n
      u(node(i, j)) = 0.0_8
      b(node(i, j)) = 0.0_8
      if (i == 1) b(node(i, j)) = b(node(i, j)) + 1.0_8
      if (j == n) b(node(i, j)) = b(node(i, j)) + 0.5_8 * real(i, 8) / n
    end do
  end do

  call op_decl_set(nnode, nodes, "nodes")
  call op_decl_set(nedge, edges, "edges")
  call op_decl_map(edges, nodes, 2, ends, pedge, "pedge")
  call op_decl_dat(nodes, 1, "real(8)", u, p_u, "p_u")
  call op_decl_dat(nodes, 1, "real(8)", b, p_b, "p_b")
  call op_decl_dat(edges, 1, "real(8)", w, p_w, "p_w")
  call op_decl_dat_temp(nodes, 1, "real(8)", p_du, "p_du")
  f = 0.0_8
  call op_decl_dat(nodes, 1, "real(8)", f, p_f, "p_f")

  omega = 0.8_8
  call op_decl_const(omega, 1, "real(8)")

  allocate(u_plain(nnode), du_plain(nnode))
  u_plain = u
  do iter = 1, niter
    call op_par_loop_4(gather, edges, &
        op_arg_dat(p_w, -1, OP_ID, 1, "real(8)", OP_READ), &
        op_arg_dat(p_u, -2, pedge, 1, "real(8)", OP_READ), &
        op_arg_dat(p_du, 1, pedge, 1, "real(8)", OP_INC), &
        op_arg_dat(p_du, 2, pedge, 1, "real(8)", OP_INC))
    change = 0.0_8
    residual = 0.0_8
    lowest = huge(1.0_8)
    call op_par_loop_6(relax, nodes, &
        op_arg_dat(p_b, -1, OP_ID, 1, "real(8)", OP_READ), &
        op_arg_dat(p_du, -1, OP_ID, 1, "real(8)", OP_RW), &
        op_arg_dat(p_u, -1, OP_ID, 1, "real(8)", OP_RW), &
        op_arg_gbl(residual, 1, "real(8)", OP_INC), &
        op_arg_gbl(change, 1, "real(8)", OP_MAX), &
        op_arg_gbl(lowest, 1, "real(8)", OP_MIN))
    call plain_iteration()
    if (mod(iter, 10) == 0 .and. root) &
      write (*, "(1X, I0, 3ES24.15)") iter, sqrt(residual), change, lowest
  end do

  call op_fetch_data(p_u, u)
  worst = maxval(abs(u - u_plain))
  if (root) write (*, "(A, ES10.3)") " largest difference from the plain iterations: ", worst

  steepest = 0.0_8
  call op_par_loop_6(flux, edges, &
      op_arg_dat(p_w, -1, OP_ID, 1, "real(8)", OP_READ), &
      op_arg_dat(p_u, 1, pedge, 1, "real(8)", OP_READ), &
      op_arg_dat(p_u, 2, pedge, 1, "real(8)", OP_READ), &
      op_arg_dat(p_f, 1, pedge, 1, "real(8)", OP_INC), &
      op_arg_dat(p_f, 2, pedge, 1, "real(8)", OP_INC), &
      op_arg_gbl(steepest, 1, "real(8)", OP_MAX))
  call op_fetch_data(p_f, f)
  f_plain = 0.0_8
  steepest_plain = 0.0_8
  do e = 1, nedge
    call flux(w(e), u_plain(ends(2 * e - 1)), u_plain(ends(2 * e)), f_plain(ends(2 * e - 1)), &
              f_plain(ends(2 * e)), steepest_plain)
  end do
  worst = max(worst, maxval(abs(f - f_plain)), abs(steepest - steepest_plain))
  if (root) write (*, "(A, ES24.15, A, ES10.3)") " steepest difference ", steepest, &
      ", largest difference from the plain fluxes and iterations: ", worst
  call op_exit()
  deallocate(ends, u, b, w, f, f_plain, u_plain, du_plain)
  if (worst > 1.0e-12_8) stop 1

contains

  integer(4) function node(i, j)
    integer(4), intent(in) :: i, j
    node = i + (j - 1) * n
  end function node

  subroutine add_edge(from, to)
    integer(4), intent(in) :: from, to
    e = e + 1
    ends(2 * e - 1) = from
    ends(2 * e) = to
    w(e) = 0.25_8
  end subroutine add_edge

  ! the neighbours' contributions, through both ends of each edge (a vector argument)
  subroutine gather(weight, ends_u, du_from, du_to)
    real(8), intent(in) :: weight
    real(8), dimension(1, 2), intent(in) :: ends_u
    real(8), intent(inout) :: du_from, du_to
    du_from = du_from + weight * ends_u(1, 2)
    du_to = du_to + weight * ends_u(1, 1)
  end subroutine gather

  ! a damped Jacobi step; reads the host's omega (declared with op_decl_const)
  subroutine relax(rhs, du, u, residual, change, lowest)
    real(8), intent(in) :: rhs
    real(8), intent(inout) :: du, u, residual, change, lowest
    real(8) :: step
    step = omega * (0.25_8 * rhs + du - u)
    u = u + step
    du = 0.0_8
    residual = residual + step * step
    change = max(change, abs(step))
    lowest = min(lowest, u)
  end subroutine relax

  ! an edge's flux, added to one end and taken from the other; reads omega too
  subroutine flux(weight, u_from, u_to, f_from, f_to, steepest)
    real(8), intent(in) :: weight, u_from, u_to
    real(8), intent(inout) :: f_from, f_to, steepest
    real(8) :: d
    d = omega * weight * (u_to - u_from)
    f_from = f_from + d
    f_to = f_to - d
    steepest = max(steepest, abs(u_to - u_from))
  end subroutine flux

  ! the same iteration on plain arrays, in the same order of operations
  subroutine plain_iteration()
    integer(4) :: k
    real(8) :: step
    du_plain = 0.0_8
    do k = 1, nedge
      du_plain(ends(2 * k - 1)) = du_plain(ends(2 * k - 1)) + w(k) * u_plain(ends(2 * k))
      du_plain(ends(2 * k)) = du_plain(ends(2 * k)) + w(k) * u_plain(ends(2 * k - 1))
    end do
    do k = 1, nnode
      step = omega * (0.25_8 * b(k) + du_plain(k) - u_plain(k))
      u_plain(k) = u_plain(k) + step
    end do
  end subroutine plain_iteration

end program jacobi_f
