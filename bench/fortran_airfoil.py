#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Airfoil in Fortran (samples/fortran/airfoil) against Airfoil in C (samples/airfoil), on op2jit.

Configurations, each on seq and on openmp with --threads threads:
  c          the C sample, its kernels' optimised builds loaded from a warm cache (OP2_SIMD=auto)
  fortran-2  the Fortran sample on its second tier: the loops gfortran built around the kernels'
             source, loaded from a warm cache
  fortran-1  the Fortran sample on its first tier (OP2_JIT=tcc): the program's own compiled
             kernels called by address, no compiler at all

A first round fills the caches (OP2_JIT=cc: every optimised build made before its loop's first
call) and is not counted. Then --repeat rounds run every configuration once each, in turn, so a
slow spell of a busy machine falls on one run of each configuration rather than on all the runs
of one; the fastest of each is kept. Each run is made twice, with --iterations and with
--baseline iterations: the difference of the two processes' CPU times (user + system) over the
difference of iterations is the CPU time of one iteration, without the start (mesh, caches),
and on a machine other work keeps busy a steadier measure than the wall clock. Reported per
configuration: the sum of the loops' times (op_timing_output's total, wall clock), the CPU time
of an iteration, ms per call of each loop (wall clock), and each configuration's ratios to c on
the same backend. Every run's rms lines must agree with the C sample's within 1e-12 (exit status
1 otherwise).

Usage: bench/fortran_airfoil.py [--build-dir build] [--mesh-cells 720000|45000 | --mesh FILE]
                                [--iterations 200] [--baseline 20] [--repeat 3] [--threads 2]
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOOP_ROW = re.compile(r"^\s+(\w+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)\s+")
RMS_ROW = re.compile(r"^\s*(\d+)\s+([-+0-9.]+e[-+]\d+)\s*$")


def run(cmd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, check=False)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if out.returncode != 0:
        sys.exit("fortran_airfoil: %s failed (%d):\n%s" % (" ".join(cmd), out.returncode, out.stdout))
    loops, total, rms = {}, None, {}
    for line in out.stdout.splitlines():
        m = LOOP_ROW.match(line)
        if m and m.group(1) != "loop":
            loops[m.group(1)] = float(m.group(4))
        if line.strip().startswith("total") and len(line.split()) == 2:
            total = float(line.split()[1])
        m = RMS_ROW.match(line)
        if m:
            rms[int(m.group(1))] = float(m.group(2))
    return {"loops": loops, "total": total, "cpu": cpu, "wall": wall, "rms": rms,
            "log": out.stdout}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--mesh-cells", type=int, default=720000)
    ap.add_argument("--mesh")
    ap.add_argument("--iterations", type=int, default=200)
    ap.add_argument("--baseline", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    mesh = a.mesh or os.path.join(ROOT, "..", "shared", "meshes",
                                  "new_grid_%dk.dat.gz" % (a.mesh_cells // 1000))
    c_exe = os.path.join(a.build_dir, "samples", "airfoil", "airfoil")
    f_exe = os.path.join(a.build_dir, "samples", "fortran", "airfoil", "airfoil_f")
    for f in (mesh, c_exe, f_exe):
        if not os.path.exists(f):
            sys.exit("fortran_airfoil: %s not found (build first, or see --build-dir, --mesh)" % f)
    work = tempfile.mkdtemp(prefix="op2-fortran-bench-")
    base = {k: v for k, v in os.environ.items() if not k.startswith("OP2_")}
    base.update({"OP2_KERNEL_PATH": os.path.join(ROOT, "samples", "fortran", "airfoil"),
                 "OMP_NUM_THREADS": str(a.threads), "OP2_TUNE": "off"})
    iters = str(a.iterations)
    configs = []
    for backend in ("seq", "openmp"):
        for name, exe, extra in (("c", c_exe, {}), ("fortran-2", f_exe, {}),
                                 ("fortran-1", f_exe, {"OP2_JIT": "tcc"})):
            env = dict(base, OP2_BACKEND=backend,
                       OP2_CACHE_DIR=os.path.join(work, "%s-%s" % (name, backend)), **extra)
            configs.append(("%s-%s" % (name, backend), backend, name, [exe, mesh, iters], env))
    print("mesh %s, %d iterations, %d rounds, openmp %d threads; work dir %s" %
          (mesh, a.iterations, a.repeat, a.threads, work))
    for label, _, name, cmd, env in configs:  # the warm-up: caches filled, not counted
        if name != "fortran-1":
            run(cmd[:2] + ["20"], dict(env, OP2_JIT="cc"))
    if a.baseline >= a.iterations:
        sys.exit("fortran_airfoil: --baseline must be fewer than --iterations")
    best, per_iter = {}, {}
    for r in range(a.repeat):
        for label, _, _, cmd, env in configs:
            res = run(cmd, env)
            base = run(cmd[:2] + [str(a.baseline)], env)
            cpu = 1e3 * (res["cpu"] - base["cpu"]) / (a.iterations - a.baseline)
            keep = best.get(label)
            if keep is None or res["total"] < keep["total"]:
                best[label] = res
            per_iter[label] = min(cpu, per_iter.get(label, cpu))
            print("  round %d %-18s loops %.3f s, cpu %.2f ms per iteration" %
                  (r + 1, label, res["total"], cpu), flush=True)
    bad = False
    print("\n%-18s %9s %7s %9s %7s  %s" % ("configuration", "loops (s)", "ratio", "cpu/iter",
                                           "ratio", "ms per call (wall)"))
    for label, backend, name, _, _ in configs:
        res, ref = best[label], best["c-" + backend]
        for it, v in ref["rms"].items():
            w = res["rms"].get(it)
            if w is None or abs(w / v - 1) > 1e-12:
                bad = True
                print("  %s: rms at iteration %d is %r, the C sample's %r" % (label, it, w, v))
        per = "  ".join("%s %.2f" % (k, v) for k, v in sorted(res["loops"].items()))
        print("%-18s %9.3f %7.2f %7.2f ms %7.2f  %s" %
              (label, res["total"], res["total"] / ref["total"], per_iter[label],
               per_iter[label] / per_iter["c-" + backend], per))
    shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
