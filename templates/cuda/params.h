/* SPDX-License-Identifier: BSD-3-Clause */
/* The one argument of every generated CUDA kernel, passed by value. The host side
 * (runtime/cuda/) includes this very file, so the launch code and the kernels cannot disagree on
 * the layout: plain pointers and ints, the same on the host compiler and on NVRTC. */
#ifndef OP2_CUDA_PARAMS_H
#define OP2_CUDA_PARAMS_H

#define OP2_CUDA_MAX_ARGS 64

/* Access kinds the emulator counts, in 32-byte sectors per warp and access site. */
#define OP2_ACCESS_LD 1
#define OP2_ACCESS_ST 2
#define OP2_ACCESS_LDST 3
#define OP2_ACCESS_ATOMIC 4

typedef struct op2_cuda_params {
  void *arg[OP2_CUDA_MAX_ARGS];      /* per argument: dat base, global values, original indices */
  const int *map[OP2_CUDA_MAX_ARGS]; /* per map group: the map's values */
  char *red;        /* reduction partials: one record per block of the whole call */
  int begin, end;   /* the element range of the call */
  int block_offset; /* hierarchical: first blkmap entry of this launch; all: first record */
  int red_smem_off; /* dynamic shared memory bytes before the reduction scratch */
  /* global colouring: this launch runs col_elems[col_begin, col_begin + col_count) */
  const int *col_elems;
  int col_begin, col_count;
  /* hierarchical: blocks of part_size positions; position p runs element thr_elem[p] */
  int part_size, nblocks, npos, pad_;
  const int *blkmap;             /* blocks in colour order */
  const int *thr_elem;           /* position -> element, sorted by thread colour; NULL: identity */
  const unsigned char *thrcol;   /* position -> thread colour; NULL: no thread colouring */
  const int *nthrcol;            /* block -> number of thread colours */
  const int *ind_offs;           /* [group * nblocks + block] -> first entry in ind_map */
  const int *ind_sizes;          /* [group * nblocks + block] -> staged elements */
  const int *ind_map;            /* staged elements, sorted and without repeats, per block */
  const unsigned short *loc_map; /* [slot * npos + position] -> index into the staged elements */
  int goff[OP2_CUDA_MAX_ARGS];   /* per group: byte offset of its staging area in shared memory */
} op2_cuda_params;

#endif
