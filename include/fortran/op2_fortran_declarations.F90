! SPDX-License-Identifier: BSD-3-Clause
! op2jit's Fortran API: OP2's module op2_fortran_declarations, its types, constants and
! declaration calls under OP2's names and argument orders. Every call goes to the C library
! (runtime/fortran/fortran_api.c and the C API of op2.h) through bind(C) interfaces; arrays of any
! type and rank travel as Fortran descriptors (type(*), dimension(..)), so the library checks each
! against its type string ("real(8)", "real(4)", "integer(4)", "integer(8)", "logical").
! Build a program with: gfortran app.F90 $(pkg-config --cflags --libs op2-fortran)
module op2_fortran_declarations
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: output_unit
  implicit none

  ! access codes, as OP2's Fortran numbers them
  integer(c_int), parameter :: OP_READ = 1, OP_WRITE = 2, OP_RW = 3, OP_INC = 4, &
                               OP_MIN = 5, OP_MAX = 6

  ! What a program may read of a set, map and dat: the first fields of the library's objects
  ! (include/op2.h's op_set_core, op_map_core, op_dat_core), read only.
  type, bind(C) :: op_set_core
    integer(c_int) :: index
    integer(c_int) :: size
    type(c_ptr) :: name
    integer(c_int) :: core_size
    integer(c_int) :: exec_size
    integer(c_int) :: nonexec_size
  end type op_set_core

  type, bind(C) :: op_map_core
    integer(c_int) :: index
    type(c_ptr) :: from
    type(c_ptr) :: to
    integer(c_int) :: dim
    type(c_ptr) :: map
    type(c_ptr) :: name
  end type op_map_core

  type, bind(C) :: op_dat_core
    integer(c_int) :: index
    type(c_ptr) :: set
    integer(c_int) :: dim
    integer(c_int) :: size
    type(c_ptr) :: data
    type(c_ptr) :: type
    type(c_ptr) :: name
  end type op_dat_core

  ! The handles: the library's object (Cptr) and the view of it (Ptr), null until declared.
  type :: op_set
    type(op_set_core), pointer :: setPtr => null()
    type(c_ptr) :: setCptr = c_null_ptr
  end type op_set

  type :: op_map
    type(op_map_core), pointer :: mapPtr => null()
    type(c_ptr) :: mapCptr = c_null_ptr
  end type op_map

  type :: op_dat
    type(op_dat_core), pointer :: dataPtr => null()
    type(c_ptr) :: dataCptr = c_null_ptr
  end type op_dat

  ! One argument of op_par_loop_N: include/op2.h's op_arg, whose fields are the library's.
  type, bind(C) :: op_arg
    integer(c_int) :: kind = 0
    integer(c_int) :: opt = 0
    type(c_ptr) :: dat = c_null_ptr
    type(c_ptr) :: map = c_null_ptr
    integer(c_int) :: idx = 0
    integer(c_int) :: dim = 0
    type(c_ptr) :: typ = c_null_ptr
    integer(c_int) :: acc = 0
    type(c_ptr) :: data = c_null_ptr
    integer(c_int) :: tag = 0
  end type op_arg

  ! The identity map (direct access, with index -1) and OP2's global marker: no map at all.
  type(op_map), save :: OP_ID, OP_GBL

  ! op_decl_const(variable, dim, type): a kernel reads the program's variable itself (by use or
  ! host association); the library records where it is, and its value for lazy execution.
  interface op_decl_const
    subroutine op2_fortran_decl_const(data, dim, type) bind(C, name='op2_fortran_decl_const')
      import :: c_int
      type(*), dimension(..), target :: data
      integer(c_int), intent(in) :: dim
      character(len=*), intent(in) :: type
    end subroutine op2_fortran_decl_const
  end interface op_decl_const

  ! The C library, for the module procedures below (op2_c_*: not OP2 calls, not for programs).
  interface
    subroutine op2_c_init(diags, base) bind(C, name='op2_fortran_init')
      import :: c_int
      integer(c_int), value :: diags, base
    end subroutine
    subroutine op_exit_c() bind(C, name='op_exit')
    end subroutine
    type(c_ptr) function op2_c_decl_set(size, name) bind(C, name='op_decl_set')
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: size
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    type(c_ptr) function op2_c_decl_map(from, to, dim, data, name) bind(C, name='op_decl_map')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: from, to
      integer(c_int), value :: dim
      integer(c_int), dimension(*), intent(in) :: data
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    type(c_ptr) function op2_c_decl_map_long(from, to, dim, data, name) &
        bind(C, name='op_decl_map_long')
      import :: c_int, c_ptr, c_char, c_long_long
      type(c_ptr), value :: from, to
      integer(c_int), value :: dim
      integer(c_long_long), dimension(*), intent(in) :: data
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    type(c_ptr) function op2_c_decl_dat(set, dim, type, data, name) &
        bind(C, name='op2_fortran_decl_dat')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: set
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      type(*), dimension(..), intent(in) :: data
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    type(c_ptr) function op2_c_decl_dat_temp(set, dim, type, name) &
        bind(C, name='op2_fortran_decl_dat_temp')
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: set
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      character(kind=c_char), dimension(*), intent(in) :: name
    end function
    integer(c_int) function op2_c_free_dat_temp(dat) bind(C, name='op_free_dat_temp')
      import :: c_int, c_ptr
      type(c_ptr), value :: dat
    end function
    type(op_arg) function op2_c_arg_dat(opt, dat, idx, map, dim, type, access) &
        bind(C, name='op2_fortran_arg_dat')
      import :: c_int, c_ptr, op_arg
      integer(c_int), value :: opt
      type(c_ptr), value :: dat
      integer(c_int), value :: idx
      type(c_ptr), value :: map
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      integer(c_int), value :: access
    end function
    type(op_arg) function op2_c_arg_gbl(opt, data, dim, type, access) &
        bind(C, name='op2_fortran_arg_gbl')
      import :: c_int, op_arg
      integer(c_int), value :: opt
      type(*), dimension(..), target :: data
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      integer(c_int), value :: access
    end function
    type(op_arg) function op2_c_arg_info(data, dim, type, ref) bind(C, name='op2_fortran_arg_info')
      import :: c_int, op_arg
      type(*), dimension(..), target :: data
      integer(c_int), value :: dim
      character(len=*), intent(in) :: type
      integer(c_int), value :: ref
    end function
    type(op_arg) function op2_c_arg_idx(idx, map) bind(C, name='op2_fortran_arg_idx')
      import :: c_int, c_ptr, op_arg
      integer(c_int), value :: idx
      type(c_ptr), value :: map
    end function
    subroutine op2_c_fetch_data(dat, data) bind(C, name='op2_fortran_fetch_data')
      import :: c_ptr
      type(c_ptr), value :: dat
      type(*), dimension(..), intent(inout) :: data
    end subroutine
    subroutine op2_c_fetch_data_idx(dat, data, low, high) bind(C, name='op2_fortran_fetch_data_idx')
      import :: c_ptr, c_int
      type(c_ptr), value :: dat
      type(*), dimension(..), intent(inout) :: data
      integer(c_int), value :: low, high
    end subroutine
    integer(c_long_long) function op2_c_get_size(set) bind(C, name='op2_fortran_get_size')
      import :: c_ptr, c_long_long
      type(c_ptr), value :: set
    end function
    subroutine op2_c_print(line) bind(C, name='op2_fortran_print')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: line
    end subroutine
    subroutine op2_c_timers(cpu, wall) bind(C, name='op_timers')
      import :: c_double
      real(c_double), intent(out) :: cpu, wall
    end subroutine
    subroutine op2_c_memalloc(ptr, bytes) bind(C, name='op2_fortran_memalloc')
      import :: c_intptr_t, c_int
      integer(c_intptr_t), intent(out) :: ptr
      integer(c_int), intent(in) :: bytes
    end subroutine
    subroutine op2_c_print_dat_txt(dat, file) bind(C, name='op_print_dat_to_txtfile')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine
    subroutine op2_c_print_dat_bin(dat, file) bind(C, name='op_print_dat_to_binfile')
      import :: c_ptr, c_char
      type(c_ptr), value :: dat
      character(kind=c_char), dimension(*), intent(in) :: file
    end subroutine
    subroutine op2_c_profile_name(name) bind(C, name='op_profile_start')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine
    subroutine op2_c_profile_enter(name) bind(C, name='op_profile_enter')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine
    subroutine op2_c_profile_next(name) bind(C, name='op_profile_next')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine
    subroutine op2_c_timing_file(name) bind(C, name='op_timing_output_2_file')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine
    subroutine op2_c_timings_csv(name) bind(C, name='op_timings_to_csv')
      import :: c_char
      character(kind=c_char), dimension(*), intent(in) :: name
    end subroutine
  end interface

  ! Calls without arguments: the C library's functions themselves (those that print go through
  ! the module procedures below, which flush the program's own output first).
  interface
    subroutine op_profile_exit() bind(C, name='op_profile_exit')
    end subroutine
    subroutine op_profile_end() bind(C, name='op_profile_end')
    end subroutine
    subroutine op2_c_timing_output() bind(C, name='op_timing_output')
    end subroutine
    subroutine op2_c_diagnostic_output() bind(C, name='op_diagnostic_output')
    end subroutine
    subroutine op2_c_profile_output() bind(C, name='op_profile_output')
    end subroutine
  end interface

  private :: op2_c_string, output_unit

contains

  ! A name for C: trimmed, NUL-terminated; `default` when absent.
  function op2_c_string(s, default) result(c)
    character(len=*), intent(in), optional :: s
    character(len=*), intent(in) :: default
    character(kind=c_char, len=:), allocatable :: c
    if (present(s)) then
      c = trim(s) // c_null_char
    else
      c = default // c_null_char
    end if
  end function op2_c_string

  ! ---- start and end ----

  ! OP2's op_init(diags): map values count from 1.
  subroutine op_init(diags)
    integer(4), intent(in) :: diags
    call op2_c_init(diags, 1)
  end subroutine op_init

  ! Map values count from base_idx (0 or 1).
  subroutine op_init_base(diags, base_idx)
    integer(4), intent(in) :: diags, base_idx
    call op2_c_init(diags, base_idx)
  end subroutine op_init_base

  ! OP2's struct-of-arrays switch: op2jit keeps dats element by element whatever it says.
  subroutine op_init_soa(diags, soa)
    integer(4), intent(in) :: diags, soa
    if (.false.) print *, soa
    call op2_c_init(diags, 1)
  end subroutine op_init_soa

  subroutine op_init_base_soa(diags, base_idx, soa)
    integer(4), intent(in) :: diags, base_idx, soa
    if (.false.) print *, soa
    call op2_c_init(diags, base_idx)
  end subroutine op_init_base_soa

  subroutine op_exit()
    flush(output_unit)
    call op_exit_c()
  end subroutine op_exit

  ! ---- sets, maps, dats ----

  subroutine op_decl_set(size, set, name)
    integer(4), intent(in) :: size
    type(op_set), intent(out) :: set
    character(len=*), intent(in), optional :: name
    set%setCptr = op2_c_decl_set(size, op2_c_string(name, "unnamed"))
    call c_f_pointer(set%setCptr, set%setPtr)
  end subroutine op_decl_set

  ! `data`: from%size * dim values of `to` (from 1 after op_init, from 0 after op_init_base with
  ! base 0), element by element: a rank-1 array or a (dim, size) one.
  subroutine op_decl_map(from, to, dim, data, map, name)
    type(op_set), intent(in) :: from, to
    integer(4), intent(in) :: dim
    integer(4), dimension(*), intent(in) :: data
    type(op_map), intent(out) :: map
    character(len=*), intent(in), optional :: name
    map%mapCptr = op2_c_decl_map(from%setCptr, to%setCptr, dim, data, op2_c_string(name, "unnamed"))
    call c_f_pointer(map%mapCptr, map%mapPtr)
  end subroutine op_decl_map

  ! Global indices in 64 bits (OP2's op_decl_map_long), for sets of 2^31 elements or more.
  subroutine op_decl_map_long(from, to, dim, data, map, name)
    type(op_set), intent(in) :: from, to
    integer(4), intent(in) :: dim
    integer(8), dimension(*), intent(in) :: data
    type(op_map), intent(out) :: map
    character(len=*), intent(in), optional :: name
    map%mapCptr = op2_c_decl_map_long(from%setCptr, to%setCptr, dim, data, &
                                      op2_c_string(name, "unnamed"))
    call c_f_pointer(map%mapCptr, map%mapPtr)
  end subroutine op_decl_map_long

  ! `data`: set%size * dim values of `type`, element by element; the library keeps a copy.
  subroutine op_decl_dat(set, dim, type, data, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    type(*), dimension(..), intent(in) :: data
    type(op_dat), intent(out) :: dat
    character(len=*), intent(in), optional :: name
    dat%dataCptr = op2_c_decl_dat(set%setCptr, dim, type, data, op2_c_string(name, "unnamed"))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat

  subroutine op_decl_dat_temp(set, dim, type, dat, name)
    type(op_set), intent(in) :: set
    integer(4), intent(in) :: dim
    character(len=*), intent(in) :: type
    type(op_dat), intent(out) :: dat
    character(len=*), intent(in), optional :: name
    dat%dataCptr = op2_c_decl_dat_temp(set%setCptr, dim, type, op2_c_string(name, "unnamed"))
    call c_f_pointer(dat%dataCptr, dat%dataPtr)
  end subroutine op_decl_dat_temp

  ! 0 when released, -1 for a dat not from op_decl_dat_temp.
  integer(4) function op_free_dat_temp(dat)
    type(op_dat), intent(inout) :: dat
    op_free_dat_temp = op2_c_free_dat_temp(dat%dataCptr)
    if (op_free_dat_temp == 0) then
      dat%dataCptr = c_null_ptr
      dat%dataPtr => null()
    end if
  end function op_free_dat_temp

  ! ---- loop arguments ----

  ! `idx`: -1 with OP_ID is direct; 1..arity a column of `map`; -k (k >= 2) columns 1..k as one
  ! (dim, k) array.
  type(op_arg) function op_arg_dat(dat, idx, map, dim, type, access)
    type(op_dat), intent(in) :: dat
    integer(4), intent(in) :: idx, dim, access
    type(op_map), intent(in) :: map
    character(len=*), intent(in) :: type
    op_arg_dat = op2_c_arg_dat(1, dat%dataCptr, idx, map%mapCptr, dim, type, access)
  end function op_arg_dat

  ! As op_arg_dat; switched off (opt false) the kernel gets a null reference.
  type(op_arg) function op_opt_arg_dat(opt, dat, idx, map, dim, type, access)
    logical, intent(in) :: opt
    type(op_dat), intent(in) :: dat
    integer(4), intent(in) :: idx, dim, access
    type(op_map), intent(in) :: map
    character(len=*), intent(in) :: type
    integer(c_int) :: on
    on = merge(1, 0, opt)
    op_opt_arg_dat = op2_c_arg_dat(on, dat%dataCptr, idx, map%mapCptr, dim, type, access)
  end function op_opt_arg_dat

  ! `data`: a variable of the program (scalar or array) with dim values of `type`: read by
  ! every element (OP_READ) or reduced into (OP_INC, OP_MIN, OP_MAX). The library keeps its
  ! address and writes the result there when the loop runs: no intent, so that the compiler
  ! reads the variable again after op_par_loop.
  type(op_arg) function op_arg_gbl(data, dim, type, access)
    type(*), dimension(..), target :: data
    integer(4), intent(in) :: dim, access
    character(len=*), intent(in) :: type
    op_arg_gbl = op2_c_arg_gbl(1, data, dim, type, access)
  end function op_arg_gbl

  type(op_arg) function op_opt_arg_gbl(opt, data, dim, type, access)
    logical, intent(in) :: opt
    type(*), dimension(..), target :: data
    integer(4), intent(in) :: dim, access
    character(len=*), intent(in) :: type
    op_opt_arg_gbl = op2_c_arg_gbl(merge(1, 0, opt), data, dim, type, access)
  end function op_opt_arg_gbl

  ! Written by the kernel beside reduction argument `ref` (Airfoil's error location).
  type(op_arg) function op_arg_info(data, dim, type, ref)
    type(*), dimension(..), target :: data
    integer(4), intent(in) :: dim, ref
    character(len=*), intent(in) :: type
    op_arg_info = op2_c_arg_info(data, dim, type, ref)
  end function op_arg_info

  ! The element's number (idx -1 with OP_ID, counting from 1) or map column idx's value.
  type(op_arg) function op_arg_idx(idx, map)
    integer(4), intent(in) :: idx
    type(op_map), intent(in) :: map
    op_arg_idx = op2_c_arg_idx(idx, map%mapCptr)
  end function op_arg_idx

  ! ---- data out, timing, printing ----

  ! What the rank declared comes back: its block, or the whole dat.
  subroutine op_fetch_data(dat, data)
    type(op_dat), intent(in) :: dat
    type(*), dimension(..), intent(inout) :: data
    call op2_c_fetch_data(dat%dataCptr, data)
  end subroutine op_fetch_data

  ! Elements low..high (numbered from 0, as OP2 passes them to its C library).
  subroutine op_fetch_data_idx(dat, data, low, high)
    type(op_dat), intent(in) :: dat
    type(*), dimension(..), intent(inout) :: data
    integer(4), intent(in) :: low, high
    call op2_c_fetch_data_idx(dat%dataCptr, data, low, high)
  end subroutine op_fetch_data_idx

  ! The set's size over all ranks.
  integer(8) function op_get_size(set)
    type(op_set), intent(in) :: set
    op_get_size = op2_c_get_size(set%setCptr)
  end function op_get_size

  ! The library prints through C's stdout, the program through its Fortran unit: the unit is
  ! flushed first, so that lines come out in the order they were written.
  subroutine op_print(line)
    character(len=*), intent(in) :: line
    flush(output_unit)
    call op2_c_print(line // c_null_char)
  end subroutine op_print

  subroutine op_timing_output()
    flush(output_unit)
    call op2_c_timing_output()
  end subroutine op_timing_output

  subroutine op_diagnostic_output()
    flush(output_unit)
    call op2_c_diagnostic_output()
  end subroutine op_diagnostic_output

  subroutine op_profile_output()
    flush(output_unit)
    call op2_c_profile_output()
  end subroutine op_profile_output

  ! Wall-clock seconds.
  subroutine op_timers(et)
    real(8), intent(out) :: et
    real(c_double) :: cpu
    call op2_c_timers(cpu, et)
  end subroutine op_timers

  subroutine op_timers_core(et)
    real(8), intent(out) :: et
    real(c_double) :: cpu
    call op2_c_timers(cpu, et)
  end subroutine op_timers_core

  ! 64-byte aligned memory for a Cray pointer (OP2's op_memalloc).
  subroutine op_memalloc(ptr, bytes)
    integer(c_intptr_t), intent(out) :: ptr
    integer(4), intent(in) :: bytes
    call op2_c_memalloc(ptr, bytes)
  end subroutine op_memalloc

  subroutine op_print_dat_to_txtfile(dat, file_name)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: file_name
    call op2_c_print_dat_txt(dat%dataCptr, trim(file_name) // c_null_char)
  end subroutine op_print_dat_to_txtfile

  subroutine op_print_dat_to_binfile(dat, file_name)
    type(op_dat), intent(in) :: dat
    character(len=*), intent(in) :: file_name
    call op2_c_print_dat_bin(dat%dataCptr, trim(file_name) // c_null_char)
  end subroutine op_print_dat_to_binfile

  subroutine op_timing_output_2_file(file_name)
    character(len=*), intent(in) :: file_name
    call op2_c_timing_file(trim(file_name) // c_null_char)
  end subroutine op_timing_output_2_file

  subroutine op_timings_to_csv(file_name)
    character(len=*), intent(in) :: file_name
    call op2_c_timings_csv(trim(file_name) // c_null_char)
  end subroutine op_timings_to_csv

  ! ---- OP2's application profiling ----

  subroutine op_profile_start(name)
    character(len=*), intent(in) :: name
    call op2_c_profile_name(trim(name) // c_null_char)
  end subroutine op_profile_start

  subroutine op_profile_enter(name)
    character(len=*), intent(in) :: name
    call op2_c_profile_enter(trim(name) // c_null_char)
  end subroutine op_profile_enter

  subroutine op_profile_next(name)
    character(len=*), intent(in) :: name
    call op2_c_profile_next(trim(name) // c_null_char)
  end subroutine op_profile_next

end module op2_fortran_declarations
