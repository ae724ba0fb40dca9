/* SPDX-License-Identifier: BSD-3-Clause */
/* The C functions OP2's Fortran modules (include/fortran) call through bind(C): the Fortran API's
 * entry points into the library. The installed libop2.a keeps these global beside op2.h's API
 * (tools/public_library.py reads this header as one of the API's), so that libop2f.a's modules
 * link against it; no C program calls them. */
#ifndef OP2_FORTRAN_ENTRY_POINTS_H
#define OP2_FORTRAN_ENTRY_POINTS_H

#include <ISO_Fortran_binding.h>

#include "op2.h"

void op2_fortran_init(int diags, int base_index);
void op2_fortran_decl_const(const CFI_cdesc_t *data, const int *dim, const CFI_cdesc_t *type);
op_dat op2_fortran_decl_dat(op_set set, int dim, const CFI_cdesc_t *type, const CFI_cdesc_t *data,
                            const char *name);
op_dat op2_fortran_decl_dat_hdf5(op_set set, int dim, const CFI_cdesc_t *type, const char *file,
                                 const char *name);
op_dat op2_fortran_decl_dat_temp(op_set set, int dim, const CFI_cdesc_t *type, const char *name);
op_arg op2_fortran_arg_dat(int opt, op_dat dat, int idx, op_map map, int dim,
                           const CFI_cdesc_t *type, int access);
op_arg op2_fortran_arg_gbl(int opt, const CFI_cdesc_t *data, int dim, const CFI_cdesc_t *type,
                           int access);
op_arg op2_fortran_arg_idx(int idx, op_map map);
op_arg op2_fortran_arg_info(const CFI_cdesc_t *data, int dim, const CFI_cdesc_t *type, int ref);
void op2_fortran_fetch_data(op_dat dat, const CFI_cdesc_t *out);
void op2_fortran_fetch_data_idx(op_dat dat, const CFI_cdesc_t *out, int low, int high);
long long op2_fortran_get_size(op_set set);
void op2_fortran_memalloc(void **ptr, const int *bytes);
void op2_fortran_print(const char *line);
void op2_fortran_par_loop(void (*kernel)(void), op_set set, int nargs, const op_arg *args);

#endif /* OP2_FORTRAN_ENTRY_POINTS_H */
