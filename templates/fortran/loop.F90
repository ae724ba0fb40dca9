! op2jit loop template for a Fortran kernel (the optimised tier). The code generator replaces each
! @NAME@ line or word:
!   @CONTEXT@        the kernel's module's or host program's USE and IMPLICIT statements, and
!                    the host's parameters the kernel names
!   @HOST_POINTERS@  one pointer per host variable the kernel reads (op2_host_NAME), set by
!                    the library to the program's variable when the code is loaded
!   @LOOP_LOCALS@    op2_loop's pointers to the loop's data, maps and host variables
!   @LOOP_BIND@      their c_f_pointer calls
!   @RANGE_ACTUALS@  op2_range's arguments: the first element of each
!   @RANGE_DUMMIES@  op2_range's dummy arguments (dats as (dim, 0:*), maps as (arity, 0:*))
!   @RANGE_DECLS@    their declarations, and the element's locals (gathered vectors, indices)
!   @ELEMENT@        per element, before the call: index values, gathered vectors
!   @CALL@           the kernel's call on element op2_n
!   @AFTER@          per element, after the call: vectors written back
!   @KERNEL@         the kernel, verbatim, as an internal procedure of op2_range
! op2_loop has the C entry of every generated loop: op2_loop(args, maps, begin, end) over the
! elements [begin, end), numbered from 0; the runtime schedules the ranges (threads, colours,
! MPI phases), so this code has no threading of its own.
module op2jit_loop
  use, intrinsic :: iso_c_binding, only: op2_c_ptr => c_ptr, op2_c_int => c_int, &
                                         op2_c_f_pointer => c_f_pointer, &
                                         op2_c_associated => c_associated
@CONTEXT@
@HOST_POINTERS@
  private
  public :: op2_loop

contains

  subroutine op2_loop(op2_args, op2_maps, op2_begin, op2_end) bind(C, name='op2_loop')
    type(op2_c_ptr), intent(in) :: op2_args(*), op2_maps(*)
    integer(op2_c_int), value :: op2_begin, op2_end
    ! the runtime's arrays, whose sizes this code does not know: contiguous pointers of any
    ! length, passed whole to op2_range's assumed-size dummies (no copy)
    integer(op2_c_int), parameter :: op2_all = huge(1_op2_c_int)
@LOOP_LOCALS@
@LOOP_BIND@
    call op2_range(op2_begin, op2_end@RANGE_ACTUALS@)
  end subroutine op2_loop

  subroutine op2_range(op2_begin, op2_end@RANGE_DUMMIES@)
    integer(op2_c_int), value :: op2_begin, op2_end
@RANGE_DECLS@
    integer :: op2_n
    do op2_n = op2_begin, op2_end - 1
@ELEMENT@
      call @CALL@
@AFTER@
    end do

  contains

@KERNEL@
  end subroutine op2_range

end module op2jit_loop
