#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# bench/gpu.sh without a GPU, on any machine (the environment forces each way of having none):
# it is valid bash (and clean under shellcheck when installed), says why it cannot run and exits
# 77 before building anything; its list of real-driver tests is every emulator test of the suite
# with OP2_BACKEND=cuda and no emulator settings; its bandwidth probe builds with -Werror and
# names the failing step when the driver is missing or cannot initialise.
# Usage: t608-gpu-script.sh GPU_SH BUILD_DIR CUDA_ROOT
set -u
script=$1 build=$2 cuda_home=$3
stub=$cuda_home/lib64/stubs/libcuda.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "t608: $*" >&2
  exit 1
}

bash -n "$script" || fail "bash -n rejects $script"
if command -v shellcheck >/dev/null; then shellcheck "$script" || fail "shellcheck rejects $script"; fi

# expect_no_gpu MESSAGE ENV...: gpu.sh exits 77 saying MESSAGE, and builds nothing
expect_no_gpu() {
  local want=$1 out rc
  shift
  out=$(env "$@" GPU_BUILD_DIR="$tmp/never-built" "$script" 2>&1)
  rc=$?
  [ "$rc" -eq 77 ] || fail "with $*: exit $rc, expected 77; output: $out"
  case $out in *"no NVIDIA GPU here"*"$want"*) ;; *) fail "with $*: '$out' lacks '$want'" ;; esac
  [ ! -e "$tmp/never-built" ] || fail "with $*: a build directory was made"
}
printf '#!/bin/sh\nexit 0\n' >"$tmp/smi-none"
printf '#!/bin/sh\necho "GPU 0: Test GPU (UUID: GPU-test)"\n' >"$tmp/smi-one"
chmod +x "$tmp/smi-none" "$tmp/smi-one"
expect_no_gpu "not found" NVIDIA_SMI="$tmp/no-such-nvidia-smi"
expect_no_gpu "lists no GPU" NVIDIA_SMI="$tmp/smi-none"
expect_no_gpu "does not load" NVIDIA_SMI="$tmp/smi-one" OP2_CUDA_DRIVER="$tmp/no-libcuda.so.1"
if [ -f "$stub" ]; then # the toolkit's stub driver loads, and its cuInit fails
  expect_no_gpu "cuInit fails" NVIDIA_SMI="$tmp/smi-one" OP2_CUDA_DRIVER="$stub"
fi

out=$("$script" --bogus 2>&1)
[ $? -eq 2 ] || fail "an unknown argument does not exit 2"
case $out in *"unknown argument '--bogus'"*) ;; *) fail "unknown argument message: $out" ;; esac

GPU_BUILD_DIR=$build "$script" --list >"$tmp/list" || fail "--list failed"
emu=$(meson introspect "$build" --tests | python3 -c '
import json, sys
print(sum(t["env"].get("OP2_BACKEND") == "cuda-emu" for t in json.load(sys.stdin)))')
[ "$emu" -gt 0 ] || fail "the build has no cuda-emu tests"
[ "$(wc -l <"$tmp/list")" -eq "$emu" ] || fail "--list gives $(wc -l <"$tmp/list") tests, expected $emu"
! grep -v ' OP2_BACKEND=cuda ' "$tmp/list" | grep -q . || fail "a listed test is not on OP2_BACKEND=cuda"
! grep -q 'OP2_CUDA_EMU_\|OP2_BACKEND=cuda-emu' "$tmp/list" || fail "emulator settings in the list"
! cut -d' ' -f1 "$tmp/list" | grep -q 'cuda-emu' || fail "a listed name still says cuda-emu"
for s in atomics global hierarchical; do
  grep -q "OP2_CUDA_STRATEGY=$s " "$tmp/list" || fail "no test on strategy $s"
done

probe=$(dirname "$script")/gpu_bandwidth.c
cc -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$cuda_home/include" "$probe" -ldl \
  -o "$tmp/probe" || fail "the bandwidth probe does not build"
out=$("$tmp/probe" "$tmp/no-libcuda.so.1" 2>&1) && fail "the probe ran without a driver"
case $out in *"cannot load the CUDA driver"*) ;; *) fail "probe without a driver: $out" ;; esac
if [ -f "$stub" ]; then
  out=$("$tmp/probe" "$stub" 2>&1) && fail "the probe ran on the stub driver"
  case $out in *"cuInit failed"*) ;; *) fail "probe on the stub driver: $out" ;; esac
fi
out=$("$tmp/probe" "$tmp/x" 0 2>&1) && fail "the probe accepted 0 MiB"
case $out in *"MIB must be a positive integer"*) ;; *) fail "probe with 0 MiB: $out" ;; esac

# The rms check and the timing table, on an output made of the reference's own 720k values and a
# timing table as op_timing_output prints it.
# shellcheck source=/dev/null
source "$script" || fail "cannot source $script"
set +e +o pipefail # gpu.sh sets both; this script checks each status itself
# shellcheck disable=SC2034 # read by check_rms
ITERS=1000
RMS_FILE=$(dirname "$script")/../../shared/meshes/airfoil_rms.txt
awk '$1 == "720k" { printf " %d  %s\n", $2, $3 }' "$RMS_FILE" | head -10 >"$tmp/good"
[ "$(wc -l <"$tmp/good")" -eq 10 ] || fail "the reference has no 720k values to 1000"
check_rms "$tmp/good" >/dev/null || fail "check_rms rejects the reference itself"
sed '3s/e-04/e-03/' "$tmp/good" >"$tmp/bad"
check_rms "$tmp/bad" >"$tmp/why" && fail "check_rms accepts a wrong rms"
grep -q "rms at 300" "$tmp/why" || fail "check_rms does not name the wrong iteration: $(cat "$tmp/why")"
head -9 "$tmp/good" >"$tmp/short"
check_rms "$tmp/short" >/dev/null && fail "check_rms accepts 9 of 10 rms lines"
cat >"$tmp/timing" <<'TABLE'
  loop               calls   time (s)   ms/call     GB/s  jit (ms) plan (ms)   calls tcc/opt  kernel from
  res_calc            2000     1.0000    0.5000   800.00     2.385     1.393            0/0  compiled
  total                        1.0000
TABLE
print_timing "$tmp/timing" 1600 | grep -q "res_calc .* 0.5000 .*800.00 .*50.0%" ||
  fail "print_timing: $(print_timing "$tmp/timing" 1600)"
echo "t608: ok"
