#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# OP2_TILE on one thread keeps each loop's elements in element order across tiles: every chain the
# program tiles must report "updates in element order" (OP2_DIAGS=1), and with OP2_DIAGS=2 no
# loop may be cut into more runs than twice the chain's tiles (Airfoil's res_calc was cut into
# runs of 1.5 edges on average, each a kernel call, which made tiling slower than no tiling).
# Usage: tile_in_order.sh TILE COMMAND... (the command runs a program of lazy chains)
set -eu
tile=$1
shift
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
OP2_LAZY=on OP2_TILE=$tile OP2_DIAGS=2 "$@" >/dev/null 2>"$tmp"
chains=$(grep -c 'OP2_TILE: chain of' "$tmp" || true)
if [ "$chains" -eq 0 ]; then
  echo "OP2_TILE=$tile tiled no chain; its diagnostics:" >&2
  cat "$tmp" >&2
  exit 1
fi
if grep 'OP2_TILE: chain of' "$tmp" | grep -v 'updates in element order' >&2; then
  echo "these chains' updates did not come in element order" >&2
  exit 1
fi
# Each loop line precedes its chain's line: compare the loop's runs with that chain's tiles.
if ! awk '
  /OP2_TILE: loop / { for (i = 1; i < NF; i++) if ($i == "runs,") runs[++n] = $(i - 1); line[n] = $0; next }
  /OP2_TILE: chain of/ { for (i = 1; i < NF; i++) if ($(i + 1) == "tiles") t = $i
    for (k = 1; k <= n; k++) if (runs[k] > 2 * t) { print line[k] " (" t " tiles)"; bad = 1 }
    n = 0 }
  END { exit bad }' "$tmp" >&2; then
  echo "a loop was cut into more runs than twice its chain's tiles" >&2
  exit 1
fi
echo "OP2_TILE=$tile: $chains chains tiled, each loop in element order and in few runs"
