#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The CUDA backend on a real NVIDIA GPU, in one command (docs/CUDA.md, "On a real GPU"):
#   1. builds op2jit into its own build directory (meson, release, CUDA required);
#   2. runs the CUDA test suite as everywhere (emulator, fake drivers), then every test that the
#      suite runs on the emulator again with OP2_BACKEND=cuda, against the real driver;
#   3. measures the device's copy bandwidth (bench/gpu_bandwidth.c, driver API);
#   4. runs Airfoil on the 720k mesh under each strategy, checks its rms against the reference and
#      prints per loop the time per call and GB/s, and that as a share of the measured bandwidth;
#   5. when compute-sanitizer is present, runs the loop tests on the driver under its racecheck,
#      memcheck and synccheck tools.
#
# Usage: bench/gpu.sh            everything above
#        bench/gpu.sh --list     the real-driver test commands only (configures the build if it
#                                is not, builds nothing; no GPU needed)
# Environment: GPU_BUILD_DIR (default build-gpu), GPU_AIRFOIL_ITERS (1000, a multiple of 100),
#   GPU_RMS_TOL (relative, 1e-10), OP2_CUDA_DRIVER (libcuda.so.1, as the library reads it),
#   NVIDIA_SMI (nvidia-smi), CUDA_HOME (/usr/local/cuda), COMPUTE_SANITIZER
#   ($CUDA_HOME/bin/compute-sanitizer).
# Exit status: 0 all passed; 1 something failed (named above the summary); 77 no NVIDIA GPU here
# (nothing was built or run; 77 is what meson and automake read as "skipped").
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${GPU_BUILD_DIR:-$ROOT/build-gpu}
ITERS=${GPU_AIRFOIL_ITERS:-1000}
RMS_TOL=${GPU_RMS_TOL:-1e-10}
DRIVER=${OP2_CUDA_DRIVER:-libcuda.so.1}
NVIDIA_SMI=${NVIDIA_SMI:-nvidia-smi}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
SANITIZER=${COMPUTE_SANITIZER:-$CUDA_HOME/bin/compute-sanitizer}
MESH=$ROOT/../shared/meshes/new_grid_720k.dat.gz
RMS_FILE=$ROOT/../shared/meshes/airfoil_rms.txt
STRATEGIES=(atomics global hierarchical)
EXIT_NO_GPU=77
FAILED=()

say() { printf '\n== %s\n' "$*"; }

no_gpu() {
  echo "gpu.sh: no NVIDIA GPU here: $1. Nothing was built or run (exit $EXIT_NO_GPU)." >&2
  exit "$EXIT_NO_GPU"
}

# A GPU counts when nvidia-smi lists one and the driver library loads.
detect_gpu() {
  command -v "$NVIDIA_SMI" >/dev/null 2>&1 || no_gpu "'$NVIDIA_SMI' not found"
  local gpus
  gpus=$("$NVIDIA_SMI" -L 2>/dev/null | grep -c '^GPU ' || true)
  [ "${gpus:-0}" -ge 1 ] || no_gpu "'$NVIDIA_SMI -L' lists no GPU"
  local why
  why=$(python3 -c '
import ctypes, sys
try:
    cu = ctypes.CDLL(sys.argv[1])
except OSError:
    sys.exit("the CUDA driver library %s does not load" % sys.argv[1])
n = ctypes.c_int(0)
rc = cu.cuInit(0)
if rc != 0:
    sys.exit("cuInit fails in %s (CUresult %d)" % (sys.argv[1], rc))
if cu.cuDeviceGetCount(ctypes.byref(n)) != 0 or n.value < 1:
    sys.exit("the CUDA driver %s sees no device" % sys.argv[1])
' "$DRIVER" 2>&1) || no_gpu "$why"
  "$NVIDIA_SMI" -L
}

configure() {
  [ -f "$BUILD/build.ninja" ] ||
    meson setup "$BUILD" "$ROOT" -Dbuildtype=release -Dcuda=enabled >/dev/null
}

build() {
  say "building into $BUILD"
  configure
  meson compile -C "$BUILD" >/dev/null
}

build_probe() {
  cc -std=c11 -D_POSIX_C_SOURCE=200809L -O2 -Wall -Wextra -Werror -I"$CUDA_HOME/include" \
    "$ROOT/bench/gpu_bandwidth.c" -ldl -o "$BUILD/gpu_bandwidth"
}

# Runs (or with --list prints) every test the meson suite runs with OP2_BACKEND=cuda-emu, with
# OP2_BACKEND=cuda, the emulator's own settings dropped and a cache directory of its own.
# Arguments: MODE (run|list), NAME_REGEX, then a command prefix (e.g. compute-sanitizer ...).
driver_tests() {
  meson introspect "$BUILD" --tests |
    python3 -c '
import json, os, re, subprocess, sys
mode, pattern, prefix = sys.argv[1], re.compile(sys.argv[2]), sys.argv[3:]
failed = ran = 0
for t in json.load(sys.stdin):
    if t["env"].get("OP2_BACKEND") != "cuda-emu" or not pattern.search(t["name"]):
        continue
    if prefix and os.path.basename(t["cmd"][0]).startswith("mpiexec"):
        continue  # a sanitizer wraps one process, not mpiexec
    name = t["name"].replace("cuda-emu", "cuda")
    env = {k: v for k, v in t["env"].items() if not k.startswith("OP2_CUDA_EMU_")}
    env["OP2_BACKEND"] = "cuda"
    env["OP2_CACHE_DIR"] = env.get("OP2_CACHE_DIR", "/tmp/op2jit-gpu") + "-gpu"
    cmd = prefix + t["cmd"]
    if mode == "list":
        print(name, " ".join(k + "=" + v for k, v in sorted(env.items())), " ".join(cmd))
        continue
    ran += 1
    timeout = (t["timeout"] or 300) * (10 if prefix else 1)
    try:
        r = subprocess.run(cmd, env={**os.environ, **env}, cwd=t["workdir"], timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        ok, out = r.returncode == 0, r.stdout
    except subprocess.TimeoutExpired as e:
        ok, out = False, "timed out after %d s\n" % timeout
    print("%-4s %s" % ("ok" if ok else "FAIL", name), flush=True)
    if not ok:
        failed += 1
        sys.stdout.write(out[-4000:])
if mode == "run":
    print("%d of %d failed" % (failed, ran))
    if ran == 0:
        print("no test matched: is CUDA enabled in this build?")
sys.exit(1 if failed or (mode == "run" and ran == 0) else 0)
' "$@"
}

# The rms lines of an Airfoil run against the reference for the 720k mesh.
check_rms() {
  awk -v tol="$RMS_TOL" -v iters="$ITERS" '
    FNR == NR { if ($1 == "720k") ref[$2] = $3; next }
    NF == 2 && $1 ~ /^[0-9]+$/ && ($1 in ref) {
      n++; rel = ($2 - ref[$1]) / ref[$1]; if (rel < 0) rel = -rel
      if (rel > tol) { printf "  rms at %d: %s, reference %s (rel %.2e)\n", $1, $2, ref[$1], rel; bad++ }
    }
    END { if (n != int(iters / 100)) { printf "  %d rms lines, expected %d\n", n, int(iters / 100); bad++ }
          if (!bad) printf "  rms matches the reference at %d points (tol %s)\n", n, tol; exit bad > 0 }
  ' "$RMS_FILE" "$1"
}

# op_timing_output's table with the share of the measured bandwidth per loop.
print_timing() {
  awk -v bw="$2" '
    $1 == "loop" && $2 == "calls" { on = 1; printf "  %-12s %8s %10s %8s %10s\n", "loop", "calls", "ms/call", "GB/s", "of probe"; next }
    on && $1 == "total" { on = 0 }
    on && NF >= 5 { printf "  %-12s %8s %10s %8s %9.1f%%\n", $1, $2, $4, $5, 100 * $5 / bw }
  ' "$1"
  grep 'total wall time' "$1" || true
}

airfoil() {
  local bw=$1 dir mesh out s
  dir=$(mktemp -d)
  mesh=$dir/new_grid_720k.dat
  gunzip -c "$MESH" >"$mesh"
  for s in "${STRATEGIES[@]}"; do
    say "Airfoil 720k, $ITERS iterations, OP2_BACKEND=cuda OP2_CUDA_STRATEGY=$s"
    out=$dir/airfoil-$s.txt
    export OP2_BACKEND=cuda OP2_CUDA_STRATEGY=$s OP2_CACHE_DIR=$BUILD/gpu-cache/airfoil-$s
    # a short run first fills the kernel cache, so the timed run measures loops, not NVRTC
    if ! "$BUILD/samples/airfoil/airfoil" "$mesh" 100 >/dev/null 2>"$out" ||
      ! "$BUILD/samples/airfoil/airfoil" "$mesh" "$ITERS" >"$out" 2>&1; then
      tail -20 "$out"
      FAILED+=("airfoil-$s")
      continue
    fi
    check_rms "$out" || FAILED+=("airfoil-$s rms")
    print_timing "$out" "$bw"
  done
  unset OP2_BACKEND OP2_CUDA_STRATEGY OP2_CACHE_DIR
  rm -rf "$dir"
}

sanitize() {
  local tool
  if [ ! -x "$SANITIZER" ]; then
    say "compute-sanitizer not found at $SANITIZER: sanitizer runs left out"
    return 0
  fi
  for tool in racecheck memcheck synccheck; do
    say "loop tests on the driver under compute-sanitizer --tool $tool"
    driver_tests run '^(?!t150-)t[0-9]+-[a-z0-9-]*-cuda-emu-(atomics|global|hierarchical)$' \
      "$SANITIZER" --tool "$tool" --error-exitcode 1 --print-limit 20 ||
      FAILED+=("compute-sanitizer $tool")
  done
}

main() {
  case "${1:-}" in
  --list)
    configure
    driver_tests list .
    return 0
    ;;
  -h | --help)
    sed -n '2,22p' "$0"
    return 0
    ;;
  "") ;;
  *)
    echo "gpu.sh: unknown argument '$1' (try --help)" >&2
    return 2
    ;;
  esac
  detect_gpu
  [ -f "$MESH" ] || {
    echo "gpu.sh: mesh $MESH not found" >&2
    return 1
  }
  build
  build_probe
  say "CUDA suite as everywhere (emulator, fake drivers)"
  meson test -C "$BUILD" --suite cuda --print-errorlogs >/dev/null || FAILED+=("meson cuda suite")
  say "CUDA suite on the driver (OP2_BACKEND=cuda)"
  driver_tests run . || FAILED+=("driver tests")
  say "device bandwidth (device-to-device copy, bench/gpu_bandwidth.c)"
  local bw
  bw=$("$BUILD/gpu_bandwidth" "$DRIVER" | awk '$1 == "bandwidth_gbs" { print $2 }')
  echo "  $bw GB/s"
  airfoil "$bw"
  sanitize
  say "summary"
  if [ ${#FAILED[@]} -gt 0 ]; then
    printf '  FAILED: %s\n' "${FAILED[@]}"
    return 1
  fi
  echo "  all passed"
}

# sourced (by ctest/cuda/t608-gpu-script.sh): functions only
if [ "${BASH_SOURCE[0]}" = "$0" ]; then main "$@"; fi
