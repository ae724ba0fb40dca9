/* SPDX-License-Identifier: BSD-3-Clause */
/* aero-mesh: writes a quadrilateral finite-element mesh for the aero sample (OP2's FE_grid.dat
 * layout, see aero_mesh_io.h): a channel with a bump on its lower wall.
 * Usage: aero-mesh [--ij IxJ | --cells N] [--bump H] OUT.dat
 *   --ij IxJ    I cells along the channel, J across it (default 96x32)
 *   --cells N   about N cells, three times as many along the channel as across
 *   --bump H    bump height, channel height 1 (default 0.1) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aero_mesh_io.h"

static int usage(const char *prog) {
  fprintf(stderr, "usage: %s [--ij IxJ | --cells N] [--bump H] OUT.dat\n", prog);
  return 2;
}

int main(int argc, char **argv) {
  int ni = 96, nj = 32;
  double bump = 0.1;
  const char *out = NULL;
  for (int a = 1; a < argc; a++) {
    char tail;
    if (strcmp(argv[a], "--ij") == 0 && a + 1 < argc) {
      if (sscanf(argv[++a], "%dx%d%c", &ni, &nj, &tail) != 2) return usage(argv[0]);
    } else if (strcmp(argv[a], "--cells") == 0 && a + 1 < argc) {
      long n;
      if (sscanf(argv[++a], "%ld%c", &n, &tail) != 1 || n < 3) return usage(argv[0]);
      nj = (int)fmax(1.0, floor(sqrt(n / 3.0) + 0.5));
      ni = (int)fmax(1.0, floor((double)n / nj + 0.5));
    } else if (strcmp(argv[a], "--bump") == 0 && a + 1 < argc) {
      if (sscanf(argv[++a], "%lf%c", &bump, &tail) != 1) return usage(argv[0]);
    } else if (argv[a][0] == '-' || out) {
      return usage(argv[0]);
    } else {
      out = argv[a];
    }
  }
  if (!out) return usage(argv[0]);
  aero_mesh m;
  char err[1024];
  if (aero_mesh_channel(ni, nj, bump, &m, err, sizeof err) != 0 ||
      aero_mesh_write(out, &m, err, sizeof err) != 0) {
    fprintf(stderr, "aero-mesh: %s\n", err);
    aero_mesh_free(&m);
    return 1;
  }
  printf("%s: %d nodes, %d cells (%dx%d), %d boundary nodes\n", out, m.nnode, m.ncell, ni, nj,
         m.nbnode);
  aero_mesh_free(&m);
  return 0;
}
