#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# SIMD groups give the scalar loop's results bit for bit: Airfoil run with OP2_SIMD=W and with
# OP2_SIMD=off (both on the optimised tier) must print the same rms lines, character for character.
# Usage: simd_same_rms.sh W AIRFOIL MESH ITERATIONS
set -eu
w=$1 airfoil=$2 mesh=$3 iters=$4
simd=$(OP2_JIT=cc OP2_SIMD=$w "$airfoil" "$mesh" "$iters" | grep -E '^ *[0-9]+ +[0-9.]+e[-+][0-9]+$')
scalar=$(OP2_JIT=cc OP2_SIMD=off "$airfoil" "$mesh" "$iters" | grep -E '^ *[0-9]+ +[0-9.]+e[-+][0-9]+$')
lines=$(printf '%s\n' "$scalar" | wc -l)
if [ "$lines" -ne $((iters / 100)) ]; then
  echo "expected $((iters / 100)) rms lines from the scalar run, got $lines" >&2
  exit 1
fi
if [ "$simd" != "$scalar" ]; then
  echo "rms with OP2_SIMD=$w differs from OP2_SIMD=off:" >&2
  printf 'simd:\n%s\nscalar:\n%s\n' "$simd" "$scalar" >&2
  exit 1
fi
printf 'OP2_SIMD=%s and off print the same rms:\n%s\n' "$w" "$simd"
