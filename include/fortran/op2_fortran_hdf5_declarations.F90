! SPDX-License-Identifier: BSD-3-Clause
! op2jit's Fortran API: OP2's module op2_fortran_hdf5_declarations, declarations read from OP2's
! HDF5 files and dumps into them (with everything of op2_fortran_declarations).
module op2_fortran_hdf5_declarations
  use, intrinsic :: iso_c_binding
  use op2_fortran_declarations
  implicit none

  interface op_decl_set_hdf5
    module procedure op_decl_set_hdf5_sized, op_decl_set_hdf5_unsized
  end interface op_decl_set_hdf5

  interface
    type(c_ptr) function op2_c_decl_set_hdf5(file, name) bind(C, name='op_decl_set_hdf5')
      import :: c_ptr, c_char
      character(kind=c_char), dimension(*), intent(in) :: file, name
    end function
    type(c_ptr) function op2_c_decl_map_hdf5(from, to, dim, file, name) &
        bind(C, name='op_decl_map_hdf5')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: from, to
      integer(c_int), value :: dim
      character(kind=c_char), dimension(*), intent(in) :: file, name
    end function
    type(c_ptr) function op2_c_decl_dat_hdf5(set, dim, type, file, name) &
        bind(C, name='op2_fortran_decl_dat_hdf5')
      import :: c_ptr, c_char, c_int
      type(c_ptr), value :: set
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      character(kind=c_char), dimension(*), intent(in) :: file, name
    end function
    subroutine op2_c_dump_to_hdf5(file) bind(C, name='op_dump_to_hdf5')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine
    subroutine op2_c_fetch_data_hdf5_file(dat, file) bind(C, name='op_fetch_data_hdf5_file')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine
  end interface

  private :: op_decl_set_hdf5_sized, op_decl_set_hdf5_unsized

contains

  ! The set named `name` in `file`; its size (over all ranks) also into `size`.
  subroutine op_decl_set_hdf5_sized(size, set, file, name)
    integer(4), intent(out) :: size
    type(op_set), intent(out) :: set
    character(len=*), intent(in) :: file, name
    call op_decl_set_hdf5_unsized(set, file, name)
    size = -1
    if (associated(set%setPtr)) size = int(op_get_size(set), 4)
  end subroutine op_decl_set_hdf5_sized

  subroutine op_decl_set_hdf5_unsized(set, file, name)
    type(op_set), intent(out) :: set
    character(len=*), intent(in) :: file, name
    set%setCptr = op2_c_decl_set_hdf5(trim(file) // c_null_char, trim(name) // c_null_char)
    call c_f_pointer(set%setCptr, set%setPtr)
  end subroutine op_decl_set_hdf5_unsized

  ! `status`: the from set's size on this rank when declared, -1 when not.
  subroutine op_decl_map_hdf5(from, to, dim, map, file, name, status)
    type(op_set), intent(in) :: from, to
    integer(4), intent(in) :: dim
    type(op_map), intent(out) :: map
    character(len=*), intent(in) :: file, name
    integer(4), intent(out) :: status
    map%mapCptr = op2_c_decl_map_hdf5(from%setCptr, to%setCptr, dim, trim(file) // c_null_char, &
                                      trim(name) // c_null_char)
    call c_f_pointer(map%mapCptr, map%mapPtr)
    status = -1
    if (associated(map%mapPtr)) status = from%setPtr%size
  end subroutine op_decl_map_hdf5

  ! `status`: the set's size on this rank when declared, -1 when not.
  subroutine op_decl_dat_hdf5(set, dim, dat, type, file, name, status)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    type(op_dat), intent(out) :: dat
    character(len=*), intent(in) :: type, file, name
    integer(4), intent(out) :: status
    dat%dataCptr = op2_c_decl_dat_hdf5(set%setCptr, dim, type, trim(file) // c_null_char, &
                                       trim(name) // c_null_char)
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
    status = -1
    if (associated(dat%dataPtr)) status = set%setPtr%size
  end subroutine op_decl_dat_hdf5

  ! Every set, map, dat and constant the C API knows into `file` (atomically).
  subroutine op_dump_to_hdf5(file)
    character(len=*), intent(in) :: file
    call op2_c_dump_to_hdf5(trim(file) // c_null_char)
  end subroutine op_dump_to_hdf5

  subroutine op_fetch_data_hdf5_file(dat, file)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: file
    call op2_c_fetch_data_hdf5_file(dat%dataCptr, trim(file) // c_null_char)
  end subroutine op_fetch_data_hdf5_file

end module op2_fortran_hdf5_declarations
