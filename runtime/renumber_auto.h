/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2_RENUMBER=auto (renumber_auto.c): renumber only a mesh that is too big for the cache and
 * numbered with poor locality. */
#ifndef OP2_RUNTIME_RENUMBER_AUTO_H
#define OP2_RUNTIME_RENUMBER_AUTO_H

#include <stdbool.h>
#include <stddef.h>

#include "runtime/context.h"

/* One core's L2 on current servers (1 to 2 MB): data within this span of the targets a loop
 * just touched is likely still in cache. */
#define OP2_AUTO_WINDOW_BYTES (1L << 20)
/* Smaller than 8 windows (8 MB) the data reached through the map stays mostly in L2/L3 however
 * it is numbered: such meshes (all the test meshes) are never touched. */
#define OP2_AUTO_MIN_BYTES (8.0 * 1024 * 1024)
/* A well-numbered mesh has almost no far jumps (a few % where rows wrap around); a numbering at
 * random has most of them. */
#define OP2_AUTO_FAR 0.25
/* How the base map's targets are numbered, on the elements this process holds. */
typedef struct op2_locality {
  double bytes;  /* the dats on the map's to-set (the data reached through it), this process's */
  long window;   /* to-set elements whose dats fill OP2_AUTO_WINDOW_BYTES */
  double far;    /* share of targets farther than `window` from every target of the row before */
  bool renumber; /* the decision: bytes over OP2_AUTO_MIN_BYTES and far over OP2_AUTO_FAR */
} op2_locality;

/* The bytes of the dats on `set`, this process's elements. */
double op2_renumber_auto_bytes(const op2_context *ctx, op_set set);
/* Measures `base` whose targets, as local indices (-1: not held here), are `targets`. */
void op2_renumber_auto_measure(const op2_context *ctx, op_map base, const int *targets,
                               op2_locality *out);
/* The measure and decision in words (one line, no newline) for OP2_DIAGS=1. */
void op2_renumber_auto_describe(const op2_locality *l, char *buf, size_t size);
/* The renumbering OP2_RENUMBER asks for before the first loop on one process: on and blocks
 * renumber through `base`, auto when the measure says so (with a line at OP2_DIAGS=1). */
int op2_renumber_by_option(op2_context *ctx, op_map base);

/* OP2_RENUMBER's renumbering of the whole mesh on one process, once: from op_partition, or
 * before the first loop when the program does not call it. */
int op2_renumber_once(op2_context *ctx);

#endif /* OP2_RUNTIME_RENUMBER_AUTO_H */
