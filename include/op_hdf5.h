/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file op_hdf5.h
 * @brief The header OP2 programs include for declarations from HDF5 files and dumps
 * (op_decl_set_hdf5, op_decl_map_hdf5, op_decl_dat_hdf5, op_get_const_hdf5, op_write_const_hdf5,
 * op_dump_to_hdf5, op_fetch_data_hdf5_file, op_fetch_data_hdf5_file_path). op2jit declares them
 * in op2.h, always available, so this header only brings op2.h in.
 */
#ifndef OP2_OP_HDF5_H
#define OP2_OP_HDF5_H

#include "op2.h"

#endif /* OP2_OP_HDF5_H */
