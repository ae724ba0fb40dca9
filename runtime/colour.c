/* SPDX-License-Identifier: BSD-3-Clause */
/* Block colouring (OP2's plan colouring): blocks of one colour never write the same element
 * through any written (map, column). Greedy, 32 colours per pass held as bit masks per target
 * element; blocks that find all 32 taken wait for the next pass, which offers the next 32. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/mesh.h"

typedef struct colour_job {
  int begin, end;
  int part_size, nwrites;
  const op_map *maps;
  const int *idx;
  uint32_t **masks; /* per written (map, column): the to-set's masks, shared per to-set */
} colour_job;

static uint32_t block_mask(const colour_job *job, int b) {
  int begin = job->begin + b * job->part_size, end = begin + job->part_size;
  if (end > job->end) end = job->end;
  uint32_t m = 0;
  for (int w = 0; w < job->nwrites; w++) {
    const op_map map = job->maps[w];
    int lo = job->idx[w] < 0 ? 0 : job->idx[w];
    int hi = job->idx[w] < 0 ? -job->idx[w] : job->idx[w] + 1;
    const uint32_t *mask = job->masks[w];
    for (int e = begin; e < end; e++)
      for (int c = lo; c < hi; c++) m |= mask[map->values[(size_t)e * map->dim + c]];
  }
  return m;
}

static void mark_block(const colour_job *job, int b, uint32_t bit) {
  int begin = job->begin + b * job->part_size, end = begin + job->part_size;
  if (end > job->end) end = job->end;
  for (int w = 0; w < job->nwrites; w++) {
    const op_map map = job->maps[w];
    int lo = job->idx[w] < 0 ? 0 : job->idx[w];
    int hi = job->idx[w] < 0 ? -job->idx[w] : job->idx[w] + 1;
    uint32_t *mask = job->masks[w];
    for (int e = begin; e < end; e++)
      for (int c = lo; c < hi; c++) mask[map->values[(size_t)e * map->dim + c]] |= bit;
  }
}

int op2_colour_blocks(int begin, int end, int part_size, int nwrites, const op_map *maps,
                      const int *idx, int nblocks, int *colour) {
  colour_job job = {
      begin, end, part_size, nwrites, maps, idx, calloc((size_t)nwrites, sizeof(void *))};
  int ok = job.masks != NULL;
  /* Writes into the same to-set share one mask array: different maps may reach one element. */
  for (int w = 0; ok && w < nwrites; w++) {
    for (int v = 0; v < w && !job.masks[w]; v++)
      if (maps[v]->to == maps[w]->to) job.masks[w] = job.masks[v];
    if (!job.masks[w])
      ok = (job.masks[w] = calloc(op2_set_local_count(maps[w]->to) + 1, sizeof(uint32_t))) != NULL;
  }
  int ncolours = 0, coloured = 0;
  for (int b = 0; b < nblocks; b++) colour[b] = -1;
  for (int base = 0; ok && coloured < nblocks; base += 32) {
    for (int b = 0; b < nblocks; b++) {
      if (colour[b] >= 0) continue;
      uint32_t taken = block_mask(&job, b);
      if (taken == UINT32_MAX) continue;
      int c = __builtin_ctz(~taken);
      mark_block(&job, b, 1u << c);
      colour[b] = base + c;
      if (base + c + 1 > ncolours) ncolours = base + c + 1;
      coloured++;
    }
    for (int w = 0; w < nwrites; w++) {
      int first = 1;
      for (int v = 0; v < w; v++) first &= job.masks[v] != job.masks[w];
      if (first) memset(job.masks[w], 0, (op2_set_local_count(maps[w]->to) + 1) * sizeof(uint32_t));
    }
  }
  for (int w = 0; job.masks && w < nwrites; w++) {
    int first = 1;
    for (int v = 0; v < w; v++) first &= job.masks[v] != job.masks[w];
    if (first) free(job.masks[w]);
  }
  free(job.masks);
  return ok ? ncolours : -1;
}
