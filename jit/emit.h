/* SPDX-License-Identifier: BSD-3-Clause */
/* The one emitter of generated kernels: argument descriptors (op2_arg_desc) become the argument
 * macros a target's loop template expands (templates/c/loop.c, the .cu templates of
 * templates/cuda). One piece of code decides, per argument and strategy, where its data lives
 * during an element (in place, increments in registers, staged in shared memory) and spells
 * declarations, per-element access and call arguments from that; what differs between targets
 * (how arguments and maps are passed, the restrict keyword, counting memory traffic for the
 * emulator) is a row of a small table in emit.c, and the code around the macros is the
 * templates'. */
#ifndef OP2_EMIT_H
#define OP2_EMIT_H

#include <stdint.h>

#include "base/cuda_layout.h"
#include "jit.h"

typedef enum op2_emit_strategy {
  OP2_EMIT_C_RANGE,      /* C: the template loops over an element range, data used in place */
  OP2_EMIT_CUDA_ELEMENT, /* CUDA, a thread per element: direct, or indirect increments summed in
                            registers and added to global memory atomically */
  OP2_EMIT_CUDA_GLOBAL,  /* CUDA, a thread per element of one colour: data used in place */
  OP2_EMIT_CUDA_HIER,    /* CUDA, blocks staged in shared memory, thread colours take turns */
  OP2_EMIT_C_SIMD,       /* C, optimised tier: groups of OP2_SIMD_W elements, direct data in
                            place, indirect data gathered into local lane arrays, the kernel run
                            on every lane under `#pragma omp simd`, increments scattered in
                            element order */
} op2_emit_strategy;

/* ---- the emitter (emit.c) ---- */
typedef struct op2_emitter {
  op2_buf *b;
  const op2_loop_desc *loop;
  op2_emit_strategy strategy;
  const op2_cuda_layout *lay; /* CUDA strategies only */
  uint64_t lanes_cm; /* SIMD: arguments (bit i) gathered component-major, [component][lane],
                        for the kernel's copy op2_lanes_NAME (kernel_lanes.c) */
} op2_emitter;

/* OP2_KERNEL, OP2_DECLARE, OP2_ELEMENT and OP2_CALL_ARGS, then what follows the call: OP2_FINISH
 * (C: reductions written back) or OP2_AFTER (CUDA: atomic adds). */
void op2_emit_arg_macros(const op2_emitter *e);
/* SIMD: OP2_SIMD_GATHER, OP2_SIMD_LANE, OP2_SIMD_CALL_ARGS and OP2_SIMD_SCATTER (the names
 * templates/c/loop_simd.c expects), after the C macros of the same loop. */
void op2_emit_simd_macros(const op2_emitter *e);
/* SIMD: the arguments that may be gathered component-major (bit i: argument i), single columns
 * of indirect dats; the kernel's copy decides which of them it can take that way. */
uint64_t op2_simd_lanes_wanted(const op2_loop_desc *loop);
/* 0 when the SIMD strategy gives the scalar loop's results for this loop, else -1 and why not. */
int op2_simd_check(const op2_loop_desc *loop, char *why, size_t len);
/* OP2_SIMD=auto's rule: 0 when SIMD groups of `width` lanes, with the arguments `lanes_cm`
 * component-major, are expected to beat the scalar loop and give its results bit for bit (the
 * kernel, of `kernel` (kernel_facts.h), adding through a map as op2_kernel_adds_once can prove),
 * else -1 and why not (the loop stays scalar; an explicit width runs it in groups all the same). */
struct op2_kernel_facts;
int op2_simd_pays(const op2_loop_desc *loop, const struct op2_kernel_facts *kernel,
                  uint64_t lanes_cm, int width, char *why, size_t len);
/* The same rule for a kernel that is not C (the Fortran target's): `adds_once` (bit i) the
 * arguments its own analysis proves to add to each component once. */
int op2_simd_pays_once(const op2_loop_desc *loop, uint64_t adds_once, uint64_t lanes_cm, int width,
                       char *why, size_t len);
/* Hierarchical: OP2_INC_ADD, the increment registers added into shared memory. */
void op2_emit_inc_add(const op2_emitter *e);
/* CUDA: OP2_STAGE_IN and OP2_STAGE_OUT (hierarchical), OP2_REDUCE (emit_cuda.c). */
void op2_emit_cuda_stage(const op2_emitter *e);
void op2_emit_cuda_reduce(const op2_emitter *e);

/* The first argument of a dat group or of a map group (emit.c). */
int op2_first_arg_of_dat_group(const op2_loop_desc *loop, int group);
int op2_first_arg_of_map_group(const op2_loop_desc *loop, int group);

/* ---- whole files (codegen.c) ---- */
#define OP2_CODEGEN_VERSION 1

typedef struct op2_generated {
  op2_buf source;
  op2_buf signature;     /* the signature in words, one line per item */
  int kernel_first_line; /* line of the generated file where the user's kernel begins */
  /* C: how the optimised tier runs the loop, in a few words ("8 lanes", "scalar: argument 3 adds
   * through a map"), for the kernel's one line at OP2_DIAGS=2; "" for other targets */
  char variant[96];
} op2_generated;

/* The C source with the SIMD loop added (used by op2_codegen_c when OP2_SIMD is not off, and
 * for a loop the SIMD strategy cannot run: the scalar source, with `why` set). */
int op2_codegen_c_simd(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                       op2_generated *out, char *why, size_t whylen);
/* The C loop (templates/c/loop.c, and loop_simd.c when `lanes` is not NULL) around a kernel
 * compiled apart and joined to it by link-time optimisation (the Fortran target's optimised
 * tier): `decls` declares the kernel as the C function or function-like macro `kernel`; `lanes`
 * its copy for the SIMD loop, op2_lanes_<kernel>, taking the arguments `lanes_cm` component-major.
 * The signature names the loop as `kernel`. */
int op2_codegen_c_external(op2_jit *jit, const op2_loop_desc *loop, const char *kernel,
                           const char *decls, const char *lanes, uint64_t lanes_cm,
                           op2_generated *out);
/* The .cu source of a loop: prelude, params, constants, the user's kernel as a device function,
 * argument #defines, the strategy's template. */
int op2_codegen_cuda(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                     const op2_cuda_layout *lay, op2_generated *out);
/* The halo gather kernel for rows of `row_bytes` (templates/cuda/halo_gather.cu). */
int op2_codegen_cuda_halo_gather(op2_jit *jit, size_t row_bytes, op2_generated *out);

#endif
