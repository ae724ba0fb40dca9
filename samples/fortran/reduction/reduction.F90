! SPDX-License-Identifier: BSD-3-Clause
! Every kind of loop argument of OP2's Fortran API, each checked against the same computation on
! plain arrays: direct and indirect dats of real(8), real(4) and integer(4), a vector argument
! read and one added to (idx -3), global reductions (integer and real sums, minimum, maximum,
! two values at once), op_arg_info, op_arg_idx (the element's number and a map's value), an
! optional argument switched off, a global read. The kernels are module procedures
! (reduction_kernels) and internal ones. Maps count from 1 (op_init). Exits 1 on a mismatch.
! Usage: reduction_f [CELLS]
module reduction_kernels
  implicit none
  private
  public :: spread_mass, cell_stats

contains

  ! each triangle adds its area to its 3 corners, read through a vector argument (idx -3)
  subroutine spread_mass(corners, area, mass, count)
    real(8), dimension(2, 3), intent(in) :: corners
    real(8), intent(out) :: area
    real(8), dimension(1, 3), intent(inout) :: mass
    integer(4), intent(inout) :: count
    integer(4) :: k
    area = 0.5_8 * abs((corners(1, 2) - corners(1, 1)) * (corners(2, 3) - corners(2, 1)) - &
                       (corners(1, 3) - corners(1, 1)) * (corners(2, 2) - corners(2, 1)))
    do k = 1, 3
      mass(1, k) = mass(1, k) + area / 3.0_8
    end do
    count = count + 1
  end subroutine spread_mass

  ! per cell: sums, extremes, where the largest area is, labels from idx arguments
  subroutine cell_stats(area, tag, scale, sums, smallest, largest, where, me, first_corner, label, &
                        skipped, weight)
    real(8), intent(in) :: area
    integer(4), intent(in) :: tag
    real(8), intent(in) :: scale
    real(8), dimension(2), intent(inout) :: sums
    real(8), intent(inout) :: smallest, largest
    integer(4), intent(inout) :: where
    integer(4), intent(in) :: me, first_corner
    integer(4), intent(out) :: label
    real(8), intent(in) :: skipped ! switched off: never touched
    real(4), intent(inout) :: weight
    if (.false.) print *, skipped
    sums(1) = sums(1) + scale * area
    sums(2) = sums(2) + tag
    smallest = min(smallest, area)
    if (area > largest) then
      largest = area
      where = me
    end if
    label = 1000 * me + first_corner
    weight = weight * 0.5_4
  end subroutine cell_stats

end module reduction_kernels

program reduction_f
  use op2_fortran_declarations
  use op2_fortran_reference
  use op2_fortran_rt_support
  use reduction_kernels
  implicit none

  integer(4) :: m, ncell, nnode, i, j, c, status, count, where, bad
  character(len=64) :: arg
  real(8) :: scale, smallest, largest, sums(2), dummy
  integer(4), dimension(:), allocatable :: tri, tags, labels
  real(8), dimension(:), allocatable :: xy, mass, area
  real(4), dimension(:), allocatable :: weights
  real(8), dimension(:), allocatable :: mass_plain, area_plain
  type(op_set) :: nodes, cells
  type(op_map) :: corners
  type(op_dat) :: p_xy, p_mass, p_area, p_tag, p_label, p_weight

  m = 30
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *, iostat=status) m
    if (status /= 0 .or. m < 2) stop "reduction_f: CELLS must be an integer of at least 2"
  end if

  call op_init(0)

  ! an m x m grid of squares, each cut into two triangles, the nodes moved a little
  nnode = (m + 1) * (m + 1)
  ncell = 2 * m * m
  allocate(xy(2 * nnode), tri(3 * ncell), tags(ncell), labels(ncell), weights(ncell))
  do j = 0, m
    do i = 0, m
      xy(2 * node(i, j) - 1) = i + 0.3_8 * sin(1.7_8 * i + 0.9_8 * j)
      xy(2 * node(i, j)) = j + 0.2_8 * cos(0.7_8 * i - 1.3_8 * j)
    end do
  end do
  c = 0
  do j = 0, m - 1
    do i = 0, m - 1
      call add_cell(node(i, j), node(i + 1, j), node(i + 1, j + 1))
      call add_cell(node(i, j), node(i + 1, j + 1), node(i, j + 1))
    end do
  end do
  weights = 1.0_4

  call op_decl_set(nnode, nodes, "nodes")
  call op_decl_set(ncell, cells, "cells")
  call op_decl_map(cells, nodes, 3, tri, corners, "corners")
  call op_decl_dat(nodes, 2, "real(8)", xy, p_xy, "p_xy")
  call op_decl_dat_temp(nodes, 1, "real(8)", p_mass, "p_mass")
  call op_decl_dat_temp(cells, 1, "real(8)", p_area, "p_area")
  call op_decl_dat(cells, 1, "integer(4)", tags, p_tag, "p_tag")
  call op_decl_dat(cells, 1, "integer(4)", labels, p_label, "p_label")
  call op_decl_dat(cells, 1, "real(4)", weights, p_weight, "p_weight")

  count = 0
  call op_par_loop_4(spread_mass, cells, &
      op_arg_dat(p_xy, -3, corners, 2, "real(8)", OP_READ), &
      op_arg_dat(p_area, -1, OP_ID, 1, "real(8)", OP_WRITE), &
      op_arg_dat(p_mass, -3, corners, 1, "real(8)", OP_INC), &
      op_arg_gbl(count, 1, "integer(4)", OP_INC))

  scale = 2.0_8
  sums = 0.0_8
  smallest = huge(1.0_8)
  largest = 0.0_8
  where = 0
  call op_par_loop_12(cell_stats, cells, &
      op_arg_dat(p_area, -1, OP_ID, 1, "real(8)", OP_READ), &
      op_arg_dat(p_tag, -1, OP_ID, 1, "integer(4)", OP_READ), &
      op_arg_gbl(scale, 1, "real(8)", OP_READ), &
      op_arg_gbl(sums, 2, "real(8)", OP_INC), &
      op_arg_gbl(smallest, 1, "real(8)", OP_MIN), &
      op_arg_gbl(largest, 1, "real(8)", OP_MAX), &
      op_arg_info(where, 1, "integer(4)", 6), &
      op_arg_idx(-1, OP_ID), &
      op_arg_idx(1, corners), &
      op_arg_dat(p_label, -1, OP_ID, 1, "integer(4)", OP_WRITE), &
      op_opt_arg_gbl(.false., dummy, 1, "real(8)", OP_READ), &
      op_arg_dat(p_weight, -1, OP_ID, 1, "real(4)", OP_RW))

  ! the same on plain arrays
  allocate(mass(nnode), area(ncell), mass_plain(nnode), area_plain(ncell))
  mass_plain = 0.0_8
  do c = 1, ncell
    area_plain(c) = 0.5_8 * abs((x(2, c) - x(1, c)) * (y(3, c) - y(1, c)) - &
                                (x(3, c) - x(1, c)) * (y(2, c) - y(1, c)))
    do i = 1, 3
      mass_plain(tri(3 * (c - 1) + i)) = mass_plain(tri(3 * (c - 1) + i)) + area_plain(c) / 3.0_8
    end do
  end do
  call op_fetch_data(p_mass, mass)
  call op_fetch_data(p_area, area)
  call op_fetch_data(p_label, labels)
  call op_fetch_data(p_weight, weights)

  bad = 0
  call expect(count == ncell, "the integer sum counts the cells")
  call expect(maxval(abs(mass - mass_plain)) < 1.0e-12_8, "the vector argument's sums")
  call expect(maxval(abs(area - area_plain)) < 1.0e-12_8, "the areas")
  call expect(abs(sums(1) - scale * sum(area_plain)) < 1.0e-9_8, "the real sum")
  call expect(abs(sums(2) - sum(real(tags, 8))) < 1.0e-9_8, "the second component's sum")
  call expect(abs(smallest - minval(area_plain)) <= 0.0_8, "the minimum")
  call expect(abs(largest - maxval(area_plain)) <= 0.0_8, "the maximum")
  call expect(abs(area_plain(where) - largest) <= 0.0_8, "op_arg_info: an element of the largest area")
  do c = 1, ncell
    if (labels(c) /= 1000 * c + tri(3 * (c - 1) + 1)) then
      call expect(.false., "op_arg_idx: the element's number and its first corner")
      exit
    end if
  end do
  call expect(all(abs(weights - 0.5_4) <= 0.0_4), "a real(4) dat")
  if (op_is_root() == 1) write (*, "(A, I0, A, ES22.15, A, I0)") " cells ", count, " area ", &
      sums(1) / scale, " largest at ", where
  call op_exit()
  deallocate(xy, tri, tags, labels, weights, mass, area, mass_plain, area_plain)
  if (bad /= 0) stop 1

contains

  integer(4) function node(i, j)
    integer(4), intent(in) :: i, j
    node = 1 + i + j * (m + 1)
  end function node

  subroutine add_cell(a, b, d)
    integer(4), intent(in) :: a, b, d
    c = c + 1
    tri(3 * c - 2) = a
    tri(3 * c - 1) = b
    tri(3 * c) = d
    tags(c) = mod(c, 7)
  end subroutine add_cell

  real(8) function x(k, cell)
    integer(4), intent(in) :: k, cell
    x = xy(2 * tri(3 * (cell - 1) + k) - 1)
  end function x

  real(8) function y(k, cell)
    integer(4), intent(in) :: k, cell
    y = xy(2 * tri(3 * (cell - 1) + k))
  end function y

  subroutine expect(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) return
    bad = bad + 1
    if (op_is_root() == 1) write (*, "(A, A)") " reduction_f: wrong: ", what
  end subroutine expect

end program reduction_f
