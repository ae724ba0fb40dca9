#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Sparse tiling keeps Airfoil's results within rounding: the program run lazily with OP2_TILE=N
# and with OP2_TILE=off must print as many rms lines, each equal within 1e-12 relative, and the
# tiled run must have tiled its chains (OP2_DIAGS=2 reports each tiling and its loops); with
# TILED_LOOP set, that loop must be among the tiled ones (Airfoil's update, whose rms reduction
# ends its chain).
# Usage: tile_same_rms.sh ITERATIONS TILE COMMAND... (the command prints Airfoil's output)
set -eu
iters=$1
tile=$2
shift 2
pick() { grep -E '^ *[0-9]+ +[0-9.]+e[-+][0-9]+$' || true; }
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
plain=$(OP2_LAZY=on OP2_TILE=off "$@" | pick)
tiled=$(OP2_LAZY=on OP2_TILE=$tile OP2_DIAGS=2 "$@" 2>"$tmp" | pick)
if ! grep -q 'OP2_TILE: chain of' "$tmp"; then
  echo "OP2_TILE=$tile tiled no chain; its diagnostics:" >&2
  cat "$tmp" >&2
  exit 1
fi
if [ -n "${TILED_LOOP:-}" ] && ! grep -q "OP2_TILE: loop '$TILED_LOOP'" "$tmp"; then
  echo "OP2_TILE=$tile tiled no chain with loop '$TILED_LOOP'; its diagnostics:" >&2
  grep 'OP2_TILE' "$tmp" >&2
  exit 1
fi
lines=$(printf '%s\n' "$plain" | grep -c 'e[-+]' || true)
if [ "$lines" -ne $((iters / 100)) ]; then
  echo "expected $((iters / 100)) rms lines from the untiled run, got:" >&2
  printf '%s\n' "$plain" >&2
  exit 1
fi
if ! printf '%s\n%s\n' "$plain" "$tiled" | awk -v n="$lines" '
  NR <= n { want[NR] = $2; next }
  { k = NR - n; d = $2 - want[k]; if (d < 0) d = -d;
    if (d > 1e-12 * want[k]) { printf "rms %s: %s tiled, %s untiled\n", $1, $2, want[k]; bad = 1 } }
  END { if (NR != 2 * n) { print "the tiled run printed another number of rms lines"; bad = 1 }
        exit bad }' >&2; then
  printf 'untiled:\n%s\ntiled:\n%s\n' "$plain" "$tiled" >&2
  exit 1
fi
printf 'OP2_TILE=%s and off print the same rms within 1e-12:\n%s\n' "$tile" "$tiled"
