/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_lib_mpi.h
 * @brief The header OP2's MPI programs include: <mpi.h>, op_seq.h and op_hdf5.h, with OP2's
 * MPI_ROOT, the rank that reads and scatters the mesh in every OP2 *_mpi.cpp, which OP2 defines
 * as 0 (MPI's own MPI_ROOT is a special value for inter-communicators, which MPI_Scatterv refuses
 * as the root of MPI_COMM_WORLD).
 */
#ifndef OP2_OP_LIB_MPI_H
#define OP2_OP_LIB_MPI_H

/* MPI's C++ bindings would need libmpi_cxx at link time; OP2 builds without them. (op2.pc's
 * Cflags say the same, for programs that include <mpi.h> before this header.) */
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "op_hdf5.h"
#include "op_seq.h"

#ifdef MPI_ROOT
#undef MPI_ROOT
#endif
#define MPI_ROOT 0

#endif /* OP2_OP_LIB_MPI_H */
