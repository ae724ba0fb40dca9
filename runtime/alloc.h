/* SPDX-License-Identifier: BSD-3-Clause */
/* The one allocator of the mesh's arrays (dats, maps, halo rows) and the context's growable
 * pointer lists (util.c). */
#ifndef OP2_RUNTIME_ALLOC_H
#define OP2_RUNTIME_ALLOC_H

#include <stddef.h>

typedef struct op2_context op2_context;

typedef struct op2_ptr_list {
  void **items;
  int count, capacity;
} op2_ptr_list;
int op2_list_push(op2_ptr_list *l, void *item);

void *op2_aligned_alloc(size_t bytes); /* zeroed, 64-byte aligned; NULL on failure */
/* The same, not zeroed: for arrays the caller fills whole at once (zeroing would touch every
 * page twice). */
void *op2_aligned_alloc_unzeroed(size_t bytes);
/* Under MPI a rank's arrays of a mesh grow once, by their halo rows, when the mesh is
 * distributed. A new array for that costs more in the kernel's zeroing of its fresh pages than in
 * the copy (it was most of a halo build's time), so the declarations reserve
 * room for the growth: address space only, as pages never touched are never backed, and the
 * room stays on small pages (no huge page is added). op2_halo_room says how much (a quarter
 * under MPI, nothing otherwise); op2_aligned_alloc_room allocates `bytes`, zeroed, with `room`
 * after them; op2_aligned_grow makes an array hold `bytes` (zeroed past them to the end of
 * their last cache line), in place where its room allows, else in a new array with its first
 * `used` bytes (the old one freed): NULL on failure, the old one kept. */
size_t op2_halo_room(const op2_context *ctx, size_t bytes);
void *op2_aligned_alloc_room(size_t bytes, size_t room);
void *op2_aligned_grow(void *p, size_t used, size_t bytes);

#endif /* OP2_RUNTIME_ALLOC_H */
