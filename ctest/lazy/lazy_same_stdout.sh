#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lazy execution and fusion keep a program's results bit for bit: COMMAND (which prints a digest of
# its results) must print the same with OP2_LAZY=off, OP2_LAZY=on, and OP2_LAZY=on OP2_FUSE=on.
# Usage: lazy_same_stdout.sh COMMAND...
set -eu
eager=$(OP2_LAZY=off OP2_FUSE=off "$@" | sort)
lazy=$(OP2_LAZY=on OP2_FUSE=off "$@" | sort)
fused=$(OP2_LAZY=on OP2_FUSE=on "$@" | sort)
if [ -z "$eager" ]; then
  echo "the eager run printed nothing" >&2
  exit 1
fi
if [ "$lazy" != "$eager" ] || [ "$fused" != "$eager" ]; then
  printf 'outputs differ:\neager:\n%s\nlazy:\n%s\nlazy and fused:\n%s\n' "$eager" "$lazy" "$fused" >&2
  exit 1
fi
printf 'OP2_LAZY=off, on, and on with OP2_FUSE=on print the same:\n%s\n' "$eager"
