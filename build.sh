#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# One entry point for users and CI. Idempotent: installs only what is missing, reuses build dirs.
#   ./build.sh airfoil [CELLS] [ITERATIONS]  install, build, generate a mesh, run Airfoil
#   ./build.sh test                          install, build, run every test, the errors suite
#                                            again from a build directory outside the checkout,
#                                            then every test under AddressSanitizer + UBSan
#   ./build.sh deps | build                  only install / only build
set -euo pipefail
cd "$(dirname "$0")"

PACKAGES=(gcc g++ gfortran pkg-config meson ninja-build python3 tcc libtcc-dev libxxhash-dev libcjson-dev
          zlib1g-dev libopenmpi-dev openmpi-bin libptscotch-dev libscotch-dev libhdf5-openmpi-dev
          hdf5-tools clang-format)

deps() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# setup DIR [meson options...]: configure once; later runs let ninja reconfigure as needed.
setup() {
  local dir=$1
  shift
  [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@" >/dev/null
}

# compile DIR: builds quietly; on failure shows the compiler's messages (ninja writes them to
# stdout, which a quiet build would otherwise swallow: CI then printed nothing at all).
compile() {
  local log="$1/compile.log"
  if ! meson compile -C "$1" >"$log" 2>&1; then
    grep -E "error|FAILED" "$log" | head -40 >&2 || true
    tail -n 5 "$log" >&2
    echo "build failed in $1 (whole log: $log)" >&2
    return 1
  fi
}

build() {
  setup build
  compile build
}

# A build directory outside the checkout, for the errors suite only (its messages carry source
# paths, which must not depend on where the build directory is): one per checkout, under $TMPDIR,
# unoptimised, and only the suite's programs built (the library and a few dozen tests, not the
# whole tree again).
outside_build() {
  OUTSIDE="${TMPDIR:-/tmp}/op2jit-outside-$(id -u)-$(pwd | cksum | cut -d' ' -f1)"
  setup "$OUTSIDE" -Doptimization=0
  ninja -C "$OUTSIDE" build.ninja >/dev/null # reconfigured first when meson.build changed
  local targets
  targets=$(python3 - "$OUTSIDE" <<'PY'
import json, os, sys
info = os.path.join(sys.argv[1], "meson-info")
tests = json.load(open(os.path.join(info, "intro-tests.json")))
files = {t["id"]: t["filename"] for t in json.load(open(os.path.join(info, "intro-targets.json")))}
needed = {d for t in tests if any(s.endswith(":errors") for s in t["suite"]) for d in t["depends"]}
for d in sorted(needed):
    for f in files.get(d, []):
        print(os.path.relpath(f, sys.argv[1]))
PY
)
  local log="$OUTSIDE/compile.log"
  # shellcheck disable=SC2086 # one target per word
  if ! ninja -C "$OUTSIDE" $targets >"$log" 2>&1; then
    grep -E "error|FAILED" "$log" | head -40 >&2 || true
    echo "build failed in $OUTSIDE (whole log: $log)" >&2
    return 1
  fi
}

# Runs one suite build (more meson test arguments may follow) and adds its counts to
# PASSED/FAILED/SKIPPED.
run_tests() {
  local dir=$1 label=$2
  shift 2
  echo "== tests: $label"
  meson test -C "$dir" --print-errorlogs --num-processes 2 "$@" || true
  local counts
  counts=$(python3 - "$dir/meson-logs/testlog.json" <<'PY'
import json, sys
ok = bad = skipped = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["result"] in ("OK", "EXPECTEDFAIL"):
        ok += 1
    elif r["result"] == "SKIP":
        skipped += 1
    else:
        bad += 1
print(ok, bad, skipped)
PY
)
  read -r ok bad skipped <<<"$counts"
  PASSED=$((PASSED + ok))
  FAILED=$((FAILED + bad))
  SKIPPED=$((SKIPPED + skipped))
}

cmd=${1:-airfoil}
case "$cmd" in
  deps) deps ;;
  build) deps && build ;;
  airfoil)
    deps && build
    cells=${2:-720000}
    iters=${3:-1000}
    mesh="build/airfoil-${cells}.dat"
    [ -f "$mesh" ] || build/samples/airfoil/airfoil-mesh --cells "$cells" "$mesh"
    build/samples/airfoil/airfoil "$mesh" "$iters"
    ;;
  test)
    deps && build
    setup build-sanitize -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized
    compile build-sanitize
    PASSED=0
    FAILED=0
    SKIPPED=0
    run_tests build "release build"
    outside_build
    run_tests "$OUTSIDE" "errors suite, build directory outside the source tree" --no-rebuild \
      --suite errors
    # Full stacks on malloc so leak suppressions can tell test-harness frames from library ones.
    # intercept_tls_get_addr=0: Open MPI dlopens and dlcloses plugins that have thread-local
    # storage; LeakSanitizer's record of such a block outlives it and its exit-time scan of that
    # stale range crashes ("Tracer caught signal 11", seen in the Airfoil run under mpiexec -np 1).
    # Without the interception dynamic TLS is not scanned; this library has no thread-locals.
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export ASAN_OPTIONS=detect_leaks=1:fast_unwind_on_malloc=0:intercept_tls_get_addr=0
    export LSAN_OPTIONS=suppressions=$PWD/ctest/lsan.supp
    # Suite 'slow' (second emulator schedules, emulated Airfoil) ran in the release build; under
    # the sanitizers it would add most of the run's time and check no memory the others miss.
    run_tests build-sanitize "AddressSanitizer + UndefinedBehaviorSanitizer" --no-suite slow
    # Skipped: tests that cannot apply here (read-only directories do not stop root).
    echo "$PASSED passed, $FAILED failed, $SKIPPED skipped"
    [ "$FAILED" -eq 0 ]
    ;;
  *)
    echo "usage: $0 airfoil [CELLS] [ITERATIONS] | test | deps | build" >&2
    exit 2
    ;;
esac
