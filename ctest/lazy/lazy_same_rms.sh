#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Lazy execution keeps Airfoil's results bit for bit: the program run with OP2_LAZY=on and with
# OP2_LAZY=off must print the same rms lines and the same final rms (printed with %a: every bit).
# Usage: lazy_same_rms.sh ITERATIONS COMMAND... (the command prints Airfoil's output)
set -eu
iters=$1
shift
pick() { grep -E '^ *[0-9]+ +[0-9.]+e[-+][0-9]+$|final rms'; }
lazy=$(OP2_LAZY=on "$@" | pick)
eager=$(OP2_LAZY=off "$@" | pick)
lines=$(printf '%s\n' "$eager" | grep -c 'e[-+]' || true)
if [ "$lines" -ne $((iters / 100)) ] || ! printf '%s\n' "$eager" | grep -q 'final rms 0x'; then
  echo "expected $((iters / 100)) rms lines and the final rms from the eager run, got:" >&2
  printf '%s\n' "$eager" >&2
  exit 1
fi
if [ "$lazy" != "$eager" ]; then
  echo "rms with OP2_LAZY=on differs from OP2_LAZY=off:" >&2
  printf 'lazy:\n%s\neager:\n%s\n' "$lazy" "$eager" >&2
  exit 1
fi
printf 'OP2_LAZY=on and off print the same rms:\n%s\n' "$lazy"
