! op2jit loop template for a Fortran kernel in groups of lanes (the optimised tier, OP2_SIMD): as
! loop.F90, but op2_range runs the elements in groups of @W@, the kernel applied to a group's lanes
! under !$omp simd (gfortran -fopenmp-simd vectorises the lane loop once the kernel is inlined
! into it, its only call). Besides loop.F90's parts:
!   @GATHER@   per lane op2_l of element op2_n, before the lane loop: data reached through maps
!              copied into the group's lane arrays, (dim, lanes), increments and reductions
!              started from zero (or the current minimum, maximum)
!   @CALL@     the kernel's call on lane op2_l
!   @SCATTER@  per lane in element order, after the lane loop: increments added back, the lanes'
!              reductions folded, so each addition is the one the element loop makes
! A group's lanes are distinct elements: no argument of such a loop writes through a map but by
! increments (the code generator keeps other loops on loop.F90).
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
    integer, parameter :: op2_w = @W@
@RANGE_DECLS@
    integer :: op2_n, op2_n0, op2_l, op2_lanes
    do op2_n0 = op2_begin, op2_end - 1, op2_w
      op2_lanes = min(op2_w, op2_end - op2_n0)
      do op2_l = 1, op2_lanes
        op2_n = op2_n0 + op2_l - 1
@GATHER@
      end do
      !$omp simd
      do op2_l = 1, op2_lanes
        call @CALL@
      end do
      do op2_l = 1, op2_lanes
        op2_n = op2_n0 + op2_l - 1
@SCATTER@
      end do
    end do

  contains

@KERNEL@
  end subroutine op2_range

end module op2jit_loop
