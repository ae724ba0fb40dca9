! SPDX-License-Identifier: BSD-3-Clause
! op2jit's Fortran API: OP2's module op2_fortran_rt_support, the run-time calls programs use
! (the rank that prints, the distribution of the mesh, renumbering).
module op2_fortran_rt_support
  use, intrinsic :: iso_c_binding
  use op2_fortran_declarations
  implicit none

  interface
    ! 1 on the rank that prints (rank 0, or the only process).
    integer(c_int) function op_is_root() bind(C, name='op_is_root')
      import :: c_int
    end function op_is_root
    subroutine op2_c_partition(lib, routine, set, map, coords) bind(C, name='op_partition')
      import :: c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: lib, routine
      type(c_ptr), value :: set, map, coords
    end subroutine
    subroutine op2_c_renumber(map) bind(C, name='op_renumber')
      import :: c_ptr
      type(c_ptr), value :: map
    end subroutine
  end interface


contains

  ! OP2's explicit distribution under MPI ("PTSCOTCH", "PARMETIS" with "KWAY", "GEOMKWAY" or
  ! "GEOM", "INERTIAL", "EXTERNAL", "BLOCK": docs/MPI.md); handles never declared (a coords dat
  ! OP2 programs pass undeclared) go as none. Nothing happens on one process.
  subroutine op_partition(lib_name, lib_routine, prime_set, prime_map, coords)
    character(len=*), intent(in) :: lib_name, lib_routine
    type(op_set), intent(in) :: prime_set
    type(op_map), intent(in) :: prime_map
    type(op_dat), intent(in) :: coords
    call op2_c_partition(trim(lib_name) // c_null_char, trim(lib_routine) // c_null_char, &
                         prime_set%setCptr, prime_map%mapCptr, coords%dataCptr)
  end subroutine op_partition

  ! Reorders the sets for locality (reverse Cuthill-McKee on the graph `base` induces).
  subroutine op_renumber(base)
    type(op_map), intent(in) :: base
    call op2_c_renumber(base%mapCptr)
  end subroutine op_renumber

end module op2_fortran_rt_support
