#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""op2jit speed benchmark: the Airfoil sample against a hand-written C baseline and STREAM.

One command, standard library only:
    bench/run.py                     720k OP2 mesh, 200 iterations (about 2.5 minutes on 2 cores)
    bench/run.py --quick             45k mesh, 200 iterations (15-30 seconds)
    bench/run.py --iterations 1000   the standard OP2 benchmark length (about 11 minutes)
    bench/run.py --sweep             adds a mesh-size sweep, 50k..3.2M cells (about 3 more minutes)

Prints tables and writes bench/results/<timestamp>.json (work files, kernel caches and logs go to
bench/results/<timestamp>/). See bench/README.md for what every number means. Targets are reported
as PASS/MISS and never change the exit status; a failed run or an rms mismatch does (exit 1).
"""

import argparse
import datetime
import gzip
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time

import mdplot  # bench/mdplot.py: gnuplot for the chain plot

BENCH_DIR = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH_DIR)
SHARED_MESHES = os.path.join(os.path.dirname(ROOT), "shared", "meshes")
OP2_MESHES = {45000: "new_grid_45k.dat.gz", 720000: "new_grid_720k.dat.gz"}
LOOPS = ["save_soln", "adt_calc", "res_calc", "bres_calc", "update"]

# Floating-point operations per element, counted in samples/airfoil/kernels.h as written (no
# common subexpressions or loop invariants removed): each +, -, *, /, += , -= and sqrt is one
# flop, fabs none. adt_calc: 1/q0, u, v (3); c = sqrt(gam*gm1*(ri*q3 - 0.5*(u*u+v*v))) (9);
# four sides of dx, dy, u*dy-v*dx, c*sqrt(dx*dx+dy*dy) and the sum (4*11 + 3 +=); /cfl (1) = 60.
# res_calc: dx, dy (2); per side ri, p1 (7), vol (4) = 12, twice (24); mu (3); four fluxes
# 7 + 11 + 11 + 9 and two updates each (8) = 75.
FLOPS_PER_ELEMENT = {"adt_calc": 60, "res_calc": 75}

# Rounding differs between seq and coloured parallel runs (increments land in another order);
# anything beyond this is a wrong answer, not rounding.
RMS_TOLERANCE = 1e-10

TARGETS = {
    "openmp_tiered_ratio": 0.63,
    "seq_tiered_ratio": 1.05,
    "stream_share": 0.70,
    "jit_first_call_ms": 5.0,
    "warm_load_ms": 0.5,
    "jit_plan_share": 0.01,
    # SIMD (issue 11): whole runs against the baseline, the two compute loops against the same
    # backend's scalar configuration of the same run, the two copy loops against STREAM
    "openmp_simd_ratio": 0.40,
    "seq_simd_ratio": 0.80,
    "simd_gflops_gain": 1.8,
    "simd_stream_share": 0.80,
    "mpi_openmp_process_ratio": 1.05,
}

# name, backend, OP2_JIT, cache state, OP2_SIMD. Warm runs reuse the cache their cold run
# filled. The tiered configurations are the scalar optimised tier; the simd ones the same with
# SIMD groups of the CPU's width (OP2_SIMD=auto).
CONFIGS = [
    ("seq-tcc", "seq", "tcc", "cold", "off"),
    ("seq-tiered-cold", "seq", "tiered", "cold", "off"),
    ("seq-tiered-warm", "seq", "tiered", "warm", "off"),
    ("seq-simd-cold", "seq", "tiered", "cold", "auto"),
    ("seq-simd-warm", "seq", "tiered", "warm", "auto"),
    ("openmp-tcc", "openmp", "tcc", "cold", "off"),
    ("openmp-tiered-cold", "openmp", "tiered", "cold", "off"),
    ("openmp-tiered-warm", "openmp", "tiered", "warm", "off"),
    ("openmp-simd-cold", "openmp", "tiered", "cold", "auto"),
    ("openmp-simd-warm", "openmp", "tiered", "warm", "auto"),
    ("seq-simd8-cold", "seq", "tiered", "cold", "8"),
    ("seq-simd8-warm", "seq", "tiered", "warm", "8"),
    ("openmp-simd8-cold", "openmp", "tiered", "cold", "8"),
    ("openmp-simd8-warm", "openmp", "tiered", "warm", "8"),
    ("openmp-tune-cold", "openmp", "tiered", "cold", "off"),
    ("openmp-tune-warm", "openmp", "tiered", "warm", "off"),
    ("cuda-emu-tiered-cold", "cuda-emu", "tiered", "cold", "off"),
    ("cuda-emu-tiered-warm", "cuda-emu", "tiered", "warm", "off"),
    ("cuda-emu-tune-cold", "cuda-emu", "tiered", "cold", "off"),
    ("cuda-emu-tune-warm", "cuda-emu", "tiered", "warm", "off"),
    ("mpi-tiered-cold", "mpi", "tiered", "cold", "off"),
    ("mpi-tiered-warm", "mpi", "tiered", "warm", "off"),
    ("mpi-simd-cold", "mpi", "tiered", "cold", "auto"),
    ("mpi-simd-warm", "mpi", "tiered", "warm", "auto"),
]
# Configurations run with OP2_TUNE=on (every other one with OP2_TUNE=off): the cold run tunes
# (its trial calls count in its time) and writes the records, the warm run starts from them.
TUNED = ("openmp-tune-cold", "openmp-tune-warm", "cuda-emu-tune-cold", "cuda-emu-tune-warm")
# Not run unless named in --configs: the CUDA emulator's times say nothing of a GPU's; simd8 runs
# every loop SIMD keeps exact in groups of 8, also those OP2_SIMD=auto's cost rule leaves scalar.
OPT_IN = ("seq-simd8-cold", "seq-simd8-warm", "openmp-simd8-cold", "openmp-simd8-warm",
          "cuda-emu-tiered-cold", "cuda-emu-tiered-warm", "cuda-emu-tune-cold",
          "cuda-emu-tune-warm", "mpi-tiered-cold", "mpi-tiered-warm", "mpi-simd-cold",
          "mpi-simd-warm")
# The warm mpi configurations run by default when the launcher is there (their target is one of
# issue 11's); the cold ones only add the JIT's first calls, which the openmp ones show already.
MPI_DEFAULT = ("mpi-tiered-warm", "mpi-simd-warm")
# MPI configurations: Airfoil under `MPIRUN -np RANKS --bind-to BIND`, one thread per rank
# (OP2_BACKEND=seq on each rank), compared with the openmp configuration of the same JIT and SIMD
# setting, which is run too when not named.
MPI_TWIN = {"mpi-tiered-cold": "openmp-tiered-cold", "mpi-tiered-warm": "openmp-tiered-warm",
            "mpi-simd-cold": "openmp-simd-cold", "mpi-simd-warm": "openmp-simd-warm"}
# MPI against OpenMP: both add increments in another order than seq, within rounding of each
# other.
MPI_RMS_TOLERANCE = 1e-12
# Open MPI as root, shared-memory transport only; the caller's own OMPI_* values win.
MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1",
           "OMPI_MCA_pml": "ob1", "OMPI_MCA_btl": "self,vader"}
# The harness sets these; any other OP2_* variable (OP2_CFLAGS, OP2_CC, ...) passes through.
HARNESS_OPTIONS = ("OP2_BACKEND", "OP2_JIT", "OP2_CACHE_DIR", "OP2_CACHE", "OP2_PROFILE_JSON",
                   "OP2_SIMD", "OP2_TUNE", "OP2_LAZY")

RMS_LINE = re.compile(r"^\s*(\d+)\s+([-+0-9.eE]+)\s*$")
WALL_LINE = re.compile(r"total wall time\s+([0-9.]+)\s*s")


def log(msg):
    print(msg, flush=True)


def fail(msg):
    sys.stderr.write("bench: " + msg + "\n")
    sys.exit(2)


# ---------------------------------------------------------------- building and running


def compile_tools(bindir):
    os.makedirs(bindir, exist_ok=True)
    cc = os.environ.get("CC", "cc")
    air = os.path.join(ROOT, "samples", "airfoil")
    baseline = os.path.join(bindir, "airfoil_baseline")
    stream = os.path.join(bindir, "stream")
    cmds = [
        # The library's optimised tier compiles kernels with these same flags (OP2_CFLAGS).
        [cc, "-std=c11", "-D_GNU_SOURCE", "-O3", "-march=native", "-ffp-contract=off",
         "-I", air, os.path.join(BENCH_DIR, "airfoil_baseline.c"), os.path.join(air, "mesh_io.c"),
         "-o", baseline, "-lz", "-lm"],
        [cc, "-std=c11", "-D_GNU_SOURCE", "-O3", "-march=native", "-fopenmp",
         os.path.join(BENCH_DIR, "stream.c"), "-o", stream],
    ]
    for cmd in cmds:
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            fail("compile failed: %s\n%s" % (" ".join(cmd), r.stderr))
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout
    return baseline, stream, version.splitlines()[0] if version else cc


def run_process(cmd, env, log_path):
    """Runs cmd; returns (stdout, process wall seconds, return code). Output goes to log_path."""
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    with open(log_path, "w") as f:
        f.write("$ %s\n%s\n--- stderr ---\n%s" % (" ".join(cmd), r.stdout, r.stderr))
    if r.returncode != 0:
        log("  FAILED (exit %d): %s\n%s" % (r.returncode, " ".join(cmd), r.stderr[-2000:]))
    return r.stdout, wall, r.returncode


def parse_output(text):
    rms, wall = {}, None
    for line in text.splitlines():
        m = RMS_LINE.match(line)
        if m:
            rms[int(m.group(1))] = float(m.group(2))
        m = WALL_LINE.search(line)
        if m:
            wall = float(m.group(1))
    return rms, wall


def base_env():
    env = {k: v for k, v in os.environ.items() if k not in HARNESS_OPTIONS}
    return env


def mesh_counts(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        nnode, ncell, nedge, nbedge = (int(v) for v in f.readline().split()[:4])
    return {"nnode": nnode, "ncell": ncell, "nedge": nedge, "nbedge": nbedge}


def bytes_per_call(m):
    """Bytes each loop must move per call at the least: every dat and map it touches read once
    (written once; OP_RW/OP_INC read and written), indirectly reached data once per element
    reached, STREAM's convention (no write-allocate traffic). op2jit's own count (gb_per_s in
    the profile) charges indirect data once per map argument, so it reads higher for adt_calc
    (x four times) and res_calc (x, q, adt, res twice)."""
    nn, nc, ne, nb = m["nnode"], m["ncell"], m["nedge"], m["nbedge"]
    return {
        "save_soln": 64 * nc,  # q r, qold w
        "adt_calc": 16 * nn + 16 * nc + 32 * nc + 8 * nc,  # x r, pcell, q r, adt w
        # x r, pedge + pecell, q r, adt r, res inc
        "res_calc": 16 * nn + 16 * ne + 32 * nc + 8 * nc + 64 * nc,
        # per boundary edge: 2 x, q, adt, res inc, pbedge, pbecell, bound
        "bres_calc": nb * (32 + 32 + 8 + 64 + 8 + 4 + 4),
        "update": nc * (32 + 32 + 64 + 8),  # qold r, q w, res rw, adt r
    }


def rms_diff(rms, ref):
    common = sorted(set(rms) & set(ref))
    if not common:
        return None
    return max(abs(rms[i] - ref[i]) / abs(ref[i]) if ref[i] else abs(rms[i]) for i in common)


# ---------------------------------------------------------------- one configuration


def run_baseline(exe, mesh, iterations, workdir, tag="baseline"):
    prof = os.path.join(workdir, tag + ".json")
    out, pwall, rc = run_process([exe, mesh, str(iterations), "--json", prof], base_env(),
                                 os.path.join(workdir, tag + ".log"))
    if rc != 0:
        return {"name": tag, "error": "exit %d" % rc}
    rms, wall = parse_output(out)
    with open(prof) as f:
        loops = {l["name"]: l for l in json.load(f)["loops"]}
    return {"name": tag, "backend": "baseline", "threads": 1, "wall": wall,
            "process_wall": pwall, "rms": rms, "loops": loops}


def run_airfoil(exe, mesh, iterations, backend, jit, threads, cache, workdir, tag, simd="off",
                tune="off", mpi=None):
    """mpi: (launcher, ranks) for backend "mpi": each rank runs the seq backend on one thread.
    The profile is rank 0's; process_wall includes the launcher and the mesh distribution."""
    prof = os.path.join(workdir, tag + ".json")
    env = base_env()
    env.update({"OP2_BACKEND": "seq" if backend == "mpi" else backend, "OP2_JIT": jit,
                "OP2_CACHE_DIR": cache, "OP2_SIMD": simd, "OP2_PROFILE_JSON": prof,
                "OP2_TUNE": tune, "OMP_NUM_THREADS": str(threads if backend == "openmp" else 1)})
    cmd = [exe, mesh, str(iterations)]
    if backend == "mpi":
        for k, v in MPI_ENV.items():
            env.setdefault(k, v)
        cmd = [mpi[0], "-np", str(mpi[1]), "--bind-to", mpi[2]] + cmd
        threads = mpi[1]
    out, pwall, rc = run_process(cmd, env, os.path.join(workdir, tag + ".log"))
    if rc != 0:
        return {"name": tag, "error": "exit %d" % rc}
    rms, wall = parse_output(out)
    try:
        with open(prof) as f:
            profile = json.load(f)
    except (OSError, ValueError) as e:
        return {"name": tag, "error": "no profile: %s" % e}
    return {"name": tag, "backend": backend, "jit": jit, "simd": simd, "tune": tune,
            "threads": threads if backend in ("openmp", "mpi") else 1,
            "ranks": mpi[1] if backend == "mpi" else 1, "wall": wall,
            "process_wall": pwall, "rms": rms,
            "loops": {l["name"]: l for l in profile["loops"]}, "profile": profile}


def best_of(runs):
    ok = [r for r in runs if "error" not in r and r.get("wall") is not None]
    return min(ok, key=lambda r: r["wall"]) if ok else runs[-1]


def derive(run, base, counts, stream_ref, iterations):
    """Adds ratios, bandwidths, flop rates, JIT and plan shares to a run."""
    if "error" in run:
        return run
    need = bytes_per_call(counts)
    elems = {"save_soln": counts["ncell"], "adt_calc": counts["ncell"],
             "res_calc": counts["nedge"], "bres_calc": counts["nbedge"], "update": counts["ncell"]}
    ref = stream_ref.get(run["threads"])
    in_kernels = 0.0
    per_loop = {}
    for name in LOOPS:
        l = run["loops"].get(name)
        if not l:
            continue
        s, calls = l["seconds"], l["calls"]
        in_kernels += s
        d = {"calls": calls, "seconds": s, "ms_per_call": 1e3 * s / calls if calls else None}
        gbs = need[name] * calls / s / 1e9 if s > 0 else None
        d["gb_per_s"] = gbs
        d["stream_share"] = gbs / ref if gbs and ref else None
        if "gb_per_s" in l:
            d["gb_per_s_library"] = l["gb_per_s"]
        if name in FLOPS_PER_ELEMENT and s > 0:
            d["gflop_per_s"] = FLOPS_PER_ELEMENT[name] * elems[name] * calls / s / 1e9
        if name == "res_calc" and calls:
            d["ns_per_edge"] = 1e9 * s / (calls * counts["nedge"])
        for k in ("calls_tcc", "calls_optimised", "jit_ms", "plan_ms", "optimised_compile_ms",
                  "optimised_in_use_after_ms", "kernels_compiled", "kernels_from_disk"):
            if k in l:
                d[k] = l[k]
        tune = l.get("tune") or {}
        if tune.get("source") in ("tuned", "from record"):
            d["tune"] = "%s%s" % (tune.get("parameters", "?"),
                                  "" if tune["source"] == "tuned" else " (rec)")
            d["tune_trial_calls"] = tune.get("trial_calls", 0)
            d["tune_work_ms"] = tune.get("work_ms", 0)
            d["tune_excess_ms"] = tune.get("trial_excess_ms", 0)
        per_loop[name] = d
    run["per_loop"] = per_loop
    wall = run["wall"]
    # The whole run against the bandwidth limit: the bytes the model says every loop must move,
    # at STREAM triad speed, as a share of the wall time.
    total_bytes = sum(need[n] * run["loops"][n]["calls"] for n in LOOPS if n in run["loops"])
    run["bytes_model_total"] = total_bytes
    run["bandwidth_limit_s"] = total_bytes / (ref * 1e9) if ref else None
    run["bandwidth_limit_share"] = (run["bandwidth_limit_s"] / wall
                                    if ref and wall else None)
    run["seconds_in_kernels"] = in_kernels
    run["outside_kernels_share"] = (wall - in_kernels) / wall if wall else None
    if base is None:
        run["ratio_to_baseline"] = 1.0
    elif "error" not in base and base.get("wall"):
        run["ratio_to_baseline"] = wall / base["wall"]
        run["rms_max_rel_diff"] = rms_diff(run["rms"], base["rms"])
    if "profile" in run:
        jit = sum(d.get("jit_ms", 0) for d in per_loop.values())
        plan = sum(d.get("plan_ms", 0) for d in per_loop.values())
        run["jit_ms_total"] = jit
        run["plan_ms_total"] = plan
        # JIT and planning happen once; the rest scales with iterations. What a 100-iteration
        # run of the same configuration would spend on them:
        once = (jit + plan) / 1e3
        t100 = (wall - once) * 100.0 / iterations + once
        run["jit_plan_share_100_iterations"] = once / t100 if t100 > 0 else None
        run["ns_per_cell_iteration"] = 1e9 * wall / (iterations * counts["ncell"])
        del run["profile"]
    else:
        run["ns_per_cell_iteration"] = 1e9 * wall / (iterations * counts["ncell"])
    return run


# ---------------------------------------------------------------- printing


def fmt(v, spec="%.3f", none="-"):
    return none if v is None else spec % v


def print_summary(runs):
    log("\n%-20s %9s %9s %9s %8s %9s %9s %8s %7s  %s" % (
        "configuration", "wall (s)", "process", "x base", "outside", "jit (ms)", "plan (ms)",
        "tcc/opt", "bw lim", "rms max rel diff vs baseline"))
    for r in runs:
        if "error" in r:
            log("%-20s  FAILED: %s" % (r["name"], r["error"]))
            continue
        tcc = sum(d.get("calls_tcc", 0) for d in r["per_loop"].values())
        opt = sum(d.get("calls_optimised", 0) for d in r["per_loop"].values())
        diff = r.get("rms_max_rel_diff")
        diff_s = "(reference)" if r["name"] == "baseline" else (
            "n/a (no rms lines)" if diff is None else ("0 (identical)" if diff == 0
                                                       else "%.2e" % diff))
        if diff is not None and diff > RMS_TOLERANCE:
            diff_s += "  MISMATCH"
        share = r.get("bandwidth_limit_share")
        log("%-20s %9.3f %9.3f %9s %7.1f%% %9s %9s %8s %7s  %s" % (
            r["name"], r["wall"], r["process_wall"], fmt(r.get("ratio_to_baseline"), "%.3fx"),
            100 * r["outside_kernels_share"], fmt(r.get("jit_ms_total"), "%.2f"),
            fmt(r.get("plan_ms_total"), "%.2f"),
            "%d/%d" % (tcc, opt) if "jit" in r else "-",
            fmt(None if share is None else 100 * share, "%.0f%%"), diff_s))


def print_tune_ratios(runs):
    """Each tuned configuration against its OP2_TUNE=off twin of the same run: wall and the
    per-loop time, and tuning's own cost (trial calls beyond the default's time are in wall)."""
    by = {r["name"]: r for r in runs if "error" not in r}
    for tuned, plain in (("openmp-tune-cold", "openmp-tiered-cold"),
                         ("openmp-tune-warm", "openmp-tiered-warm"),
                         ("cuda-emu-tune-cold", "cuda-emu-tiered-cold"),
                         ("cuda-emu-tune-warm", "cuda-emu-tiered-warm")):
        t, p = by.get(tuned), by.get(plain)
        if not t or not p or not p.get("wall"):
            continue
        parts = []
        for l in LOOPS:
            a, b = t["per_loop"].get(l), p["per_loop"].get(l)
            if a and b and b.get("seconds"):
                parts.append("%s %.3f" % (l, a["seconds"] / b["seconds"]))
        work = sum(d.get("tune_work_ms", 0) + d.get("tune_excess_ms", 0)
                   for d in t["per_loop"].values())
        trials = sum(d.get("tune_trial_calls", 0) for d in t["per_loop"].values())
        log("  %s / %s: wall %.3f; loop time %s; %d trial calls, tuning cost %.2f ms (work + "
            "trial calls beyond the chosen speed: %.3f%% of wall)" % (
                tuned, plain, t["wall"] / p["wall"], ", ".join(parts), trials, work,
                100 * work / 1e3 / t["wall"]))


def mpi_ratios(runs):
    """(mpi run, its openmp twin, wall ratio, process ratio) for each mpi configuration run."""
    by = {r["name"]: r for r in runs if "error" not in r}
    out = []
    for m, o in MPI_TWIN.items():
        a, b = by.get(m), by.get(o)
        if a and b and a.get("wall") and b.get("wall"):
            out.append((a, b, a["wall"] / b["wall"], a["process_wall"] / b["process_wall"]))
    return out


def print_mpi_ratios(runs):
    rows = mpi_ratios(runs)
    if not rows:
        return
    log("\nMPI (%d ranks x 1 thread) against OpenMP (same JIT and SIMD setting, same run): "
        "wall = the timed loop region; process = the whole process, launcher, mesh reading and "
        "distribution included; outside = process - wall" % rows[0][0]["ranks"])
    log("%-18s %-20s %9s %9s %11s %11s %14s" % ("mpi", "openmp", "wall", "process",
                                               "mpi outside", "omp outside", "rms rel diff"))
    for a, b, w, p in rows:
        d = rms_diff(a["rms"], b["rms"])
        log("%-18s %-20s %8.3fx %8.3fx %10.3fs %10.3fs %14s" % (
            a["name"], b["name"], w, p, a["process_wall"] - a["wall"],
            b["process_wall"] - b["wall"],
            "-" if d is None else "%.2e%s" % (d, "  MISMATCH" if d > MPI_RMS_TOLERANCE else "")))


def print_matrix(title, runs, cell, loops=LOOPS):
    log("\n%-20s" % title + "".join(" %14s" % l for l in loops))
    for r in runs:
        if "error" in r:
            continue
        row = "%-20s" % r["name"]
        for l in loops:
            d = r["per_loop"].get(l)
            row += " %14s" % (cell(d, r) if d else "-")
        log(row)


def check(label, ok, value):
    status = "n/a " if ok is None else ("PASS" if ok else "MISS")
    log("  %s  %-58s %s" % (status, label, value))
    return {"target": label, "status": status.strip(), "value": value}


def evaluate_targets(by_name):
    t = TARGETS
    out = []
    log("\ntargets (reported, never enforced):")
    for name, key in (("openmp-tiered-cold", "openmp_tiered_ratio"),
                      ("openmp-tiered-warm", "openmp_tiered_ratio"),
                      ("seq-tiered-cold", "seq_tiered_ratio"),
                      ("seq-tiered-warm", "seq_tiered_ratio")):
        r = by_name.get(name)
        v = r.get("ratio_to_baseline") if r else None
        out.append(check("%s <= %.2fx baseline" % (name, t[key]),
                         None if v is None else v <= t[key], fmt(v, "%.3fx")))
    for name in ("seq-tiered-warm", "openmp-tiered-warm"):
        r = by_name.get(name)
        for loop in ("save_soln", "update"):
            d = r["per_loop"].get(loop) if r and "per_loop" in r else None
            v = d.get("stream_share") if d else None
            out.append(check("%s %s >= %.0f%% of STREAM triad" % (name, loop,
                                                                 100 * t["stream_share"]),
                             None if v is None else v >= t["stream_share"],
                             fmt(None if v is None else 100 * v, "%.1f%%")))
    for name, key in (("openmp-simd-warm", "openmp_simd_ratio"),
                      ("seq-simd-warm", "seq_simd_ratio")):
        r = by_name.get(name)
        v = r.get("ratio_to_baseline") if r else None
        out.append(check("%s <= %.2fx baseline" % (name, t[key]),
                         None if v is None else v <= t[key], fmt(v, "%.3fx")))
    for backend in ("seq", "openmp"):
        simd, scalar = by_name.get(backend + "-simd-warm"), by_name.get(backend + "-tiered-warm")
        for loop in ("adt_calc", "res_calc"):
            a, b = ((r or {}).get("per_loop", {}).get(loop, {}).get("gflop_per_s")
                    for r in (simd, scalar))
            v = a / b if a and b else None
            out.append(check("%s-simd-warm %s GFLOP/s >= %.1fx %s-tiered-warm" % (
                backend, loop, t["simd_gflops_gain"], backend),
                None if v is None else v >= t["simd_gflops_gain"], fmt(v, "%.2fx")))
    r = by_name.get("openmp-simd-warm")
    for loop in ("save_soln", "update"):
        d = r["per_loop"].get(loop) if r and "per_loop" in r else None
        v = d.get("stream_share") if d else None
        out.append(check("openmp-simd-warm %s >= %.0f%% of STREAM triad" % (
            loop, 100 * t["simd_stream_share"]), None if v is None else v >= t["simd_stream_share"],
            fmt(None if v is None else 100 * v, "%.1f%%")))
    for name in ("seq-tcc", "seq-tiered-cold", "openmp-tcc", "openmp-tiered-cold"):
        r = by_name.get(name)
        worst = max(((d.get("jit_ms", 0), l) for l, d in r["per_loop"].items()),
                    default=None) if r and "per_loop" in r else None
        out.append(check("%s JIT first call <= %.1f ms per loop" % (name, t["jit_first_call_ms"]),
                         None if worst is None else worst[0] <= t["jit_first_call_ms"],
                         "-" if worst is None else "worst %.2f ms (%s)" % worst))
    for name in ("seq-tiered-warm", "openmp-tiered-warm"):
        r = by_name.get(name)
        worst = max(((d.get("jit_ms", 0), l) for l, d in r["per_loop"].items()),
                    default=None) if r and "per_loop" in r else None
        out.append(check("%s warm-cache load <= %.1f ms per loop" % (name, t["warm_load_ms"]),
                         None if worst is None else worst[0] <= t["warm_load_ms"],
                         "-" if worst is None else "worst %.3f ms (%s)" % worst))
    for a, b, w, p in mpi_ratios(list(by_name.values())):
        out.append(check("%s process <= %.2fx %s" % (a["name"], t["mpi_openmp_process_ratio"],
                                                      b["name"]),
                         p <= t["mpi_openmp_process_ratio"], "%.3fx" % p))
    for name in ("seq-tiered-cold", "openmp-tiered-cold"):
        r = by_name.get(name)
        v = r.get("jit_plan_share_100_iterations") if r else None
        out.append(check("%s JIT+plan < %.0f%% of a 100-iteration run" % (
            name, 100 * t["jit_plan_share"]), None if v is None else v < t["jit_plan_share"],
            fmt(None if v is None else 100 * v, "%.2f%%")))
    return out


# ---------------------------------------------------------------- size sweep


SWEEP_CELLS = [50000, 100000, 200000, 400000, 800000, 1600000, 3200000]


def sweep(args, exe, mesh_gen, baseline_exe, workdir):
    mdir = os.path.join(workdir, "meshes")
    os.makedirs(mdir, exist_ok=True)
    caches = {(b, simd): os.path.join(workdir, "cache-sweep-%s-%s" % (b, simd))
              for b in ("seq", "openmp") for simd in ("off", "auto")}
    rows = []
    log("\nsize sweep (warm kernel cache; iterations scaled to about %.0e cell-iterations per "
        "run; each figure the lowest of %d runs):" % (args.sweep_work, args.sweep_repeat))
    log("%10s %10s %6s  %-14s %10s %16s %16s" % ("cells", "edges", "iters", "config", "wall (s)",
                                                 "res_calc ns/edge", "ns/cell-iter"))
    warmed = set()
    for target in args.sweep_cells:
        mesh = os.path.join(mdir, "cells-%d.dat" % target)
        # Plain text: the generator's gzip costs ten times its own run time on big meshes.
        r = subprocess.run([mesh_gen, "--cells", str(target), mesh], capture_output=True,
                           text=True)
        if r.returncode != 0:
            log("  mesh generation failed for %d cells: %s" % (target, r.stderr.strip()))
            continue
        counts = mesh_counts(mesh)
        iters = int(min(args.sweep_max_iterations,
                        max(args.sweep_min_iterations, round(args.sweep_work / counts["ncell"]))))
        series = [("baseline", None, None)] + [
            (b + "-" + kind, b, simd) for kind, simd in (("tiered", "off"), ("simd", "auto"))
            for b in ("seq", "openmp")]
        for label, backend, simd in series:
            runs = []
            for attempt in range(args.sweep_repeat):
                tag = "sweep-%d-%s-%d" % (target, label, attempt)
                runs.append(sweep_run(args, exe, baseline_exe, mesh, iters, label, backend, simd,
                                      caches, warmed, workdir, tag))
            ok = [r for r in runs if "error" not in r]
            run = ok[0] if ok else runs[-1]
            row = {"cells": counts["ncell"], "edges": counts["nedge"], "iterations": iters,
                   "config": label}
            if not ok:
                row["error"] = run["error"]
                log("%10d %10d %6d  %-14s FAILED" % (counts["ncell"], counts["nedge"], iters,
                                                     label))
            else:
                per_edge = [1e9 * r["loops"]["res_calc"]["seconds"] /
                            (r["loops"]["res_calc"]["calls"] * counts["nedge"]) for r in ok
                            if r["loops"].get("res_calc", {}).get("calls")]
                row["wall"] = min(r["wall"] for r in ok)
                row["res_calc_ns_per_edge"] = min(per_edge) if per_edge else None
                row["ns_per_cell_iteration"] = 1e9 * row["wall"] / (iters * counts["ncell"])
                row["calls_tcc"] = max(sum(l.get("calls_tcc", 0) for l in r["loops"].values())
                                       for r in ok)
                log("%10d %10d %6d  %-14s %10.3f %16.2f %16.2f" % (
                    counts["ncell"], counts["nedge"], iters, label, row["wall"],
                    row["res_calc_ns_per_edge"] or 0, row["ns_per_cell_iteration"]))
            rows.append(row)
        if not args.keep_meshes:
            os.remove(mesh)
    if not args.keep_meshes:
        shutil.rmtree(mdir, ignore_errors=True)
    report_flatness(rows)
    return rows


def sweep_run(args, exe, baseline_exe, mesh, iters, label, backend, simd, caches, warmed,
              workdir, tag):
    """One run of one sweep configuration; the first of a configuration fills its cache."""
    if backend is None:
        return run_baseline(baseline_exe, mesh, iters, workdir, tag)
    cache = caches[(backend, simd)]
    if (backend, simd) not in warmed:
        # Fills the cache with optimised builds so sweep runs measure steady state.
        # A process that exits drops queued background compiles, so this may take
        # a few rounds; each finishes at least the compile in progress.
        for attempt in range(6):
            w = run_airfoil(exe, mesh, 100, backend, "tiered", args.threads, cache,
                            workdir, "sweep-warmup-%s-%d" % (label, attempt),
                            simd=simd)
            if "error" in w:
                break
            if all(l.get("calls_tcc", 0) == 0 for l in w["loops"].values()):
                break
        warmed.add((backend, simd))
    return run_airfoil(exe, mesh, iters, backend, "tiered", args.threads, cache,
                       workdir, tag, simd=simd)


def report_flatness(rows):
    """The target: res_calc's ns per edge within +-15% of its median over all sizes."""
    log("\nsweep flatness (res_calc ns/edge, largest deviation from the configuration's median):")
    for label in sorted({r["config"] for r in rows}):
        v = sorted(r["res_calc_ns_per_edge"] for r in rows
                   if r["config"] == label and r.get("res_calc_ns_per_edge"))
        if len(v) < 2:
            continue
        med = v[len(v) // 2] if len(v) % 2 else (v[len(v) // 2 - 1] + v[len(v) // 2]) / 2
        dev = max(abs(x - med) for x in v) / med
        log("  %-14s median %7.2f, min %7.2f, max %7.2f: %+5.1f%%  %s" % (
            label, med, v[0], v[-1], 100 * dev, "PASS" if dev <= 0.15 else "MISS"))


def write_svg(rows, path):
    """Two panels, ns per cell-iteration and res_calc ns per edge against cells (log scale)."""
    series = {}
    for r in rows:
        if "error" not in r:
            series.setdefault(r["config"], []).append(r)
    if not series:
        return False
    colours = {"baseline": "#444444", "seq-tiered": "#1f77b4", "openmp-tiered": "#d62728",
               "seq-simd": "#17becf", "openmp-simd": "#ff7f0e"}
    w, h, pad = 420, 300, 55
    cells = [r["cells"] for s in series.values() for r in s]
    lo, hi = math.log10(min(cells)), math.log10(max(cells))
    hi = hi if hi > lo else lo + 1
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
             'font-family="sans-serif" font-size="11">' % (2 * w, h + 30)]
    for panel, (key, title) in enumerate((("ns_per_cell_iteration", "ns per cell-iteration"),
                                          ("res_calc_ns_per_edge", "res_calc ns per edge"))):
        x0 = panel * w
        vals = [r[key] for s in series.values() for r in s if r.get(key)]
        ymax = max(vals) * 1.15 if vals else 1
        px = lambda c: x0 + pad + (math.log10(c) - lo) / (hi - lo) * (w - 2 * pad)
        py = lambda v: h - pad + 20 - v / ymax * (h - 2 * pad)
        parts.append('<text x="%d" y="18" font-size="13">%s</text>' % (x0 + pad, title))
        parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (
            x0 + pad, py(0), x0 + w - pad, py(0)))
        parts.append('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="black"/>' % (
            x0 + pad, py(0), x0 + pad, py(ymax)))
        for i in range(5):
            v = ymax * i / 4
            parts.append('<text x="%d" y="%.1f" text-anchor="end">%.3g</text>' % (
                x0 + pad - 4, py(v) + 4, v))
        for c in sorted(set(cells)):
            parts.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>' % (
                px(c), py(0) + 14, "%.3gk" % (c / 1e3) if c < 1e6 else "%.3gM" % (c / 1e6)))
        parts.append('<text x="%d" y="%d" text-anchor="middle">cells</text>' % (
            x0 + w // 2, py(0) + 30))
        for n, (name, s) in enumerate(sorted(series.items())):
            pts = [(px(r["cells"]), py(r[key])) for r in sorted(s, key=lambda r: r["cells"])
                   if r.get(key)]
            col = colours.get(name, "#2ca02c")
            parts.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>' % (
                col, " ".join("%.1f,%.1f" % p for p in pts)))
            parts.extend('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (x, y, col)
                         for x, y in pts)
            parts.append('<text x="%d" y="%d" fill="%s">%s</text>' % (
                x0 + w - pad - 90, 34 + 14 * n, col, name))
    parts.append("</svg>\n")
    with open(path, "w") as f:
        f.write("\n".join(parts))
    return True


def write_chain_plot(runs, counts, stream_ref, iterations, path):
    """One bar per configuration: milliseconds per Airfoil iteration, stacked by loop (what the
    profile attributes to each loop; the rest of the iteration on top), beside the one-loop
    floor: the bytes every loop of an iteration must move (bytes_per_call) at STREAM triad speed
    for the run's thread count. A run that executes its loops one at a time cannot go below the
    floor. Drawn
    with gnuplot (Debian: gnuplot-nox). Returns False when gnuplot is missing or fails."""
    ok = [r for r in runs if "error" not in r and r.get("wall")]
    if not ok:
        return False
    need = bytes_per_call(counts)
    rows = ["config " + " ".join(LOOPS) + " rest floor"]
    for r in ok:
        per = [1e3 * r["per_loop"].get(n, {}).get("seconds", 0.0) / iterations for n in LOOPS]
        total = 1e3 * r["wall"] / iterations
        calls = {n: r["per_loop"][n]["calls"] / iterations for n in LOOPS if n in r["per_loop"]}
        ref = stream_ref.get(r["threads"])
        floor = (1e3 * sum(need[n] * c for n, c in calls.items()) / (ref * 1e9)
                 if ref else float("nan"))
        rows.append("%s %s %.6f %.6f" % (r["name"], " ".join("%.6f" % v for v in per),
                                         max(total - sum(per), 0.0), floor))
    script = "\n".join([
        "set title 'Airfoil, %d cells: ms per iteration by loop, and the one-loop floor "
        "(bytes / STREAM triad)'" % counts["ncell"],
        "set style data histograms", "set style histogram rowstacked",
        "set style fill solid 0.85 border -1", "set boxwidth 0.7",
        "set key outside right top", "set ylabel 'ms per iteration'", "set yrange [0:*]",
        "set termoption noenhanced", "set xtics nomirror font ',9'", "set grid ytics",
        "set key autotitle columnhead",
        "plot for [i=2:%d] '@DATA@' using i:xtic(1), \\" % (len(LOOPS) + 2),
        "     '' using ($0-0.45):%d:(0.9):(0) with vectors nohead lw 3 lc rgb 'black' "
        "title 'one-loop floor'" % (len(LOOPS) + 3),
        ""])
    try:
        mdplot.gnuplot(script, "\n".join(rows) + "\n", path, size=(300 + 150 * len(ok), 460))
    except SystemExit as e:
        log("note: no chain plot: %s" % e)
        return False
    return True


def run_mg3d(args, result):
    """bench/mg3d.py at --mg3d's sizes with this run's threads, ranks and repeats: its tables and
    target lines printed and kept in the JSON (mg3d). Returns 1 when it failed, else 0."""
    cmd = [sys.executable, os.path.join(BENCH_DIR, "mg3d.py"), "--build-dir", args.build_dir,
           "--cells", args.mg3d, "--threads", str(args.threads), "--ranks", str(args.ranks),
           "--repeat", str(args.repeat)]
    log("\n3-D sample (mg3d) against its baseline: %s" % " ".join(cmd[1:]))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    log(p.stdout.rstrip())
    result["mg3d"] = {"command": cmd[1:], "returncode": p.returncode, "output": p.stdout,
                      "targets": [line.strip() for line in p.stdout.splitlines()
                                  if line.strip().startswith(("PASS ", "MISS "))]}
    return 1 if p.returncode != 0 else 0


def machine_info():
    info = {"cpus": os.cpu_count(), "load_average_at_start": os.getloadavg()}
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        rev = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        info["git"] = rev + (" (uncommitted changes)" if dirty else "")
    except OSError:
        pass
    return info


def choose_mesh(args, workdir, mesh_gen):
    if args.mesh:
        if not os.path.isfile(args.mesh):
            fail("mesh %s not found" % args.mesh)
        return os.path.abspath(args.mesh)
    if args.mesh_cells in OP2_MESHES:
        path = os.path.join(SHARED_MESHES, OP2_MESHES[args.mesh_cells])
        if not os.path.exists(path):
            fail("mesh %s not found" % path)
        return path
    path = os.path.join(workdir, "mesh-%d.dat" % args.mesh_cells)
    r = subprocess.run([mesh_gen, "--cells", str(args.mesh_cells), path], capture_output=True,
                       text=True)
    if r.returncode != 0:
        fail("airfoil-mesh failed: %s" % r.stderr)
    return path


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                   help="meson build directory holding samples/airfoil/airfoil (default: build)")
    p.add_argument("--mesh-cells", type=int, default=720000,
                   help="45000 or 720000 use OP2's meshes from ../shared/meshes; any other "
                        "number generates a mesh with airfoil-mesh (default 720000)")
    p.add_argument("--mesh", help="use this new_grid.dat(.gz) file instead")
    p.add_argument("--iterations", type=int, default=None,
                   help="Airfoil iterations (default 200; rms is printed every 100)")
    p.add_argument("--quick", action="store_true", help="45k mesh, 200 iterations")
    p.add_argument("--threads", type=int, default=2, help="OMP_NUM_THREADS for openmp (2)")
    p.add_argument("--ranks", type=int, default=None,
                   help="MPI ranks of the mpi configurations (default: --threads)")
    p.add_argument("--mpirun", default="mpirun",
                   help="the MPI launcher of the mpi configurations (default mpirun)")
    p.add_argument("--mpi-bind", default="core", choices=("core", "none"),
                   help="the launcher's --bind-to for the mpi configurations: each rank runs one "
                        "thread, so core (Open MPI's own default for 2 ranks) unless the machine "
                        "has fewer cores than ranks (default core)")
    p.add_argument("--repeat", type=int, default=1,
                   help="run each configuration this many times and keep the fastest (1)")
    p.add_argument("--configs",
                   help="comma-separated subset of: " + ", ".join(c[0] for c in CONFIGS) +
                   " (default: all but the opt-in ones, plus " + ", ".join(MPI_DEFAULT) +
                   " when the MPI launcher is found)")
    p.add_argument("--stream-elements", type=int, default=20000000,
                   help="doubles per STREAM array (20M = 160 MB)")
    p.add_argument("--sweep", action="store_true", help="also run the mesh-size sweep")
    p.add_argument("--sweep-only", action="store_true", help="run only the sweep (and STREAM)")
    p.add_argument("--sweep-cells", default=",".join(str(c) for c in SWEEP_CELLS),
                   help="comma-separated cell counts for the sweep")
    p.add_argument("--sweep-work", type=float, default=2e7,
                   help="cell-iterations per sweep run (iterations = this / cells)")
    p.add_argument("--sweep-min-iterations", type=int, default=10)
    p.add_argument("--sweep-repeat", type=int, default=3,
                   help="runs of each sweep point and configuration; each figure is the lowest "
                        "(default 3: single runs on a shared machine move by +-10%%)")
    p.add_argument("--sweep-max-iterations", type=int, default=100)
    p.add_argument("--keep-meshes", action="store_true", help="keep generated sweep meshes")
    p.add_argument("--layout", action="store_true",
                   help="also compare dat layouts (AoS, the library's, against SoA) with "
                        "BUILD/bench/layout on the run's mesh")
    p.add_argument("--mg3d", metavar="SIZES",
                   help="also run the 3-D sample against its baseline at these mesh sizes "
                        "(bench/mg3d.py --cells SIZES, e.g. 72,128; seq, openmp --threads, "
                        "mpi --ranks; prints issue 27's targets)")
    p.add_argument("--out", default=os.path.join(BENCH_DIR, "results"),
                   help="results directory (default bench/results)")
    args = p.parse_args()
    if args.quick:
        args.mesh_cells = 45000
        args.iterations = args.iterations or 200
    args.iterations = args.iterations or 200
    args.ranks = args.ranks or args.threads
    if min(args.iterations, args.repeat, args.sweep_repeat, args.threads, args.ranks) < 1:
        fail("--iterations, --repeat, --sweep-repeat, --threads and --ranks must be positive")
    if args.configs is None:
        wanted = [c[0] for c in CONFIGS if c[0] not in OPT_IN]
        if shutil.which(args.mpirun):
            wanted += list(MPI_DEFAULT)
        else:
            log("note: %s not found, so the mpi configurations do not run" % args.mpirun)
    else:
        wanted = [c.strip() for c in args.configs.split(",") if c.strip()]
    unknown = [c for c in wanted if c not in [x[0] for x in CONFIGS]]
    if unknown:
        fail("unknown configuration(s): %s" % ", ".join(unknown))
    # An mpi configuration is reported against its openmp twin of the same run.
    wanted += [MPI_TWIN[c] for c in wanted if c in MPI_TWIN and MPI_TWIN[c] not in wanted]
    mpi = None
    if any(c in MPI_TWIN for c in wanted):
        launcher = shutil.which(args.mpirun)
        if not launcher:
            fail("%s not found: the mpi configurations need an MPI launcher (--mpirun)" %
                 args.mpirun)
        # more ranks than cores cannot each have its own
        bind = args.mpi_bind if args.ranks <= (os.cpu_count() or 1) else "none"
        mpi = (launcher, args.ranks, bind)
    args.sweep_cells = [int(float(c)) for c in args.sweep_cells.split(",") if c.strip()]
    if args.sweep_only:
        args.sweep = True

    build = os.path.abspath(args.build_dir)
    exe = os.path.join(build, "samples", "airfoil", "airfoil")
    mesh_gen = os.path.join(build, "samples", "airfoil", "airfoil-mesh")
    for f in (exe, mesh_gen):
        if not os.access(f, os.X_OK):
            fail("%s not found: build first (./build.sh build, or meson compile -C %s), or give "
                 "--build-dir" % (f, args.build_dir))

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    out_dir = os.path.abspath(args.out)
    workdir = os.path.join(out_dir, stamp)
    os.makedirs(workdir, exist_ok=True)
    baseline_exe, stream_exe, cc_version = compile_tools(os.path.join(workdir, "bin"))
    info = machine_info()
    passthrough = {k: v for k, v in os.environ.items()
                   if k.startswith("OP2_") and k not in HARNESS_OPTIONS}

    mesh = choose_mesh(args, workdir, mesh_gen)
    counts = mesh_counts(mesh)
    result = {"timestamp": stamp, "machine": info, "compiler": cc_version,
              "mesh": mesh, "mesh_counts": counts, "iterations": args.iterations,
              "openmp_threads": args.threads, "repeat": args.repeat,
              "mpi_launch": {"launcher": mpi[0], "ranks": mpi[1], "bind_to": mpi[2]}
              if mpi else None,
              "op2_environment": passthrough, "targets": TARGETS,
              "flops_per_element": FLOPS_PER_ELEMENT,
              "bytes_per_call_model": bytes_per_call(counts)}
    log("op2jit Airfoil benchmark: %s" % os.path.relpath(mesh))
    log("  %d cells, %d edges, %d boundary edges, %d nodes; %d iterations; openmp with %d "
        "threads; best of %d" % (counts["ncell"], counts["nedge"], counts["nbedge"],
                                 counts["nnode"], args.iterations, args.threads, args.repeat))
    log("  %s, %s CPUs, load average %.2f at start; %s; git %s" % (
        info.get("cpu", "?"), info["cpus"], info["load_average_at_start"][0], cc_version,
        info.get("git", "?")))
    if passthrough:
        log("  passed through to the library: %s" % " ".join(
            "%s=%s" % kv for kv in sorted(passthrough.items())))
    log("  work files: %s" % os.path.relpath(workdir))
    load = info["load_average_at_start"][0]
    if load > 0.5:
        log("  WARNING: the machine is busy (load average %.2f on %s CPUs): timings will be noisy,"
            " OpenMP ones most (a descheduled thread stalls every barrier)" % (load, info["cpus"]))

    # STREAM first: the reference every bandwidth below is a share of.
    thread_counts = sorted({1, args.threads})
    sj = os.path.join(workdir, "stream.json")
    log("\nSTREAM:")
    r = subprocess.run([stream_exe, "--elements", str(args.stream_elements), "--threads",
                        ",".join(map(str, thread_counts)), "--json", sj],
                       capture_output=True, text=True, env=dict(os.environ, OMP_PROC_BIND="close"))
    sys.stdout.write(r.stdout)
    if r.returncode != 0:
        fail("stream failed: %s" % r.stderr)
    with open(sj) as f:
        stream = json.load(f)
    stream_ref = {s["threads"]: s["triad_gb_per_s"] for s in stream["results"]}
    result["stream"] = stream
    result["stream_reference"] = "triad"

    failures = 0
    runs = []
    if not args.sweep_only:
        log("\nrunning (each line is one process; logs and profiles in the work directory):")
        # Repeats run in rounds, each configuration once per round: a slow minute on this shared
        # machine then slows one run of every configuration instead of every run of one, and
        # the best of each compares like with like (a loop's SIMD and scalar figures above all).
        configs = []
        for name, backend, jit, state, simd in CONFIGS:
            if name in wanted:
                tune = "on" if name in TUNED else "off"
                kind = ("tune" if tune == "on" else
                        jit if simd == "off" else "simd" if simd == "auto" else "simd" + simd)
                configs.append((name, backend, jit, state, simd, tune, kind))
        base_runs = []
        reps = {c[0]: [] for c in configs}
        for i in range(args.repeat):
            suffix = "" if i == 0 else "-%d" % i
            log("  baseline%s" % ("" if args.repeat == 1 else " #%d" % (i + 1)))
            base_runs.append(run_baseline(baseline_exe, mesh, args.iterations, workdir,
                                          "baseline" + suffix))
            for name, backend, jit, state, simd, tune, kind in configs:
                cold_name = "%s-%s-cold" % (backend, kind)
                cache = os.path.join(workdir, "cache-%s-%s%s" % (backend, kind, suffix))
                if state == "warm" and not os.path.isdir(cache):
                    # The cold run was not asked for; fill the cache without reporting it.
                    log("  %s (warming the cache)" % cold_name)
                    run_airfoil(exe, mesh, args.iterations, backend, jit, args.threads, cache,
                                workdir, cold_name + suffix + "-unreported", simd, tune, mpi)
                log("  %s%s" % (name, "" if args.repeat == 1 else " #%d" % (i + 1)))
                reps[name].append(run_airfoil(exe, mesh, args.iterations, backend, jit,
                                              args.threads, cache, workdir, name + suffix, simd,
                                              tune, mpi))
        base = best_of(base_runs)
        base["name"] = "baseline"
        if "error" in base:
            failures += 1
        for name, backend, jit, state, simd, tune, kind in configs:
            run = best_of(reps[name])
            run["name"] = name
            if state == "warm" and "error" not in run:
                run["cache_fully_warm"] = all(l.get("calls_tcc", 0) == 0
                                              for l in run["loops"].values())
            runs.append(run)
        all_runs = [base] + runs
        for r in all_runs:
            derive(r, base if r is not base else None, counts, stream_ref, args.iterations)
            if "error" in r:
                failures += 1
            elif (r.get("rms_max_rel_diff") or 0) > RMS_TOLERANCE:
                failures += 1
        ref_rms = reference_rms(mesh, counts)
        if ref_rms and "rms" in base:
            result["baseline_vs_published_rms_max_rel_diff"] = rms_diff(base["rms"], ref_rms)

        log("\nwall = Airfoil's timed loop region ('total wall time'; excludes reading the mesh); "
            "process = whole process as the harness saw it; x base = wall / baseline wall; "
            "outside = share of wall not inside any loop's kernel time; tcc/opt = loop calls "
            "run on TinyCC / optimised code; bw lim = share of the bandwidth limit achieved "
        "(bytes model / STREAM triad at the run's thread count / wall).")
        print_summary(all_runs)
        print_matrix("ms per call", all_runs, lambda d, r: fmt(d["ms_per_call"], "%.4f"))
        print_matrix("GB/s (% STREAM)", all_runs, lambda d, r: "%s (%s)" % (
            fmt(d["gb_per_s"], "%.1f"),
            fmt(None if d["stream_share"] is None else 100 * d["stream_share"], "%.0f%%")))
        print_matrix("GFLOP/s", all_runs, lambda d, r: fmt(d.get("gflop_per_s"), "%.2f"),
                     loops=["adt_calc", "res_calc"])
        lib_runs = [r for r in runs if "error" not in r]
        print_matrix("JIT ms (1st call)", lib_runs, lambda d, r: fmt(d.get("jit_ms"), "%.3f"))
        print_matrix("optimised after ms", [r for r in lib_runs if r.get("jit") == "tiered"],
                     lambda d, r: fmt(d.get("optimised_in_use_after_ms") or None, "%.0f"))
        print_matrix("plan ms", lib_runs, lambda d, r: fmt(d.get("plan_ms"), "%.3f"),
                     loops=["res_calc", "bres_calc"])
        tuned_runs = [r for r in lib_runs if r.get("tune") == "on"]
        if tuned_runs:
            log("\nauto-tuning (OP2_TUNE=on): the parameters each loop ran with after tuning, "
                "'(rec)' when read from the cold run's record; '-': nothing to tune")
            print_matrix("tuned parameters", tuned_runs,
                         lambda d, r: (d.get("tune") or "-").replace("coloured, part size ",
                                                                     "colour/"))
            print_tune_ratios(runs)
        print_mpi_ratios(runs)
        log("\n%s" % "STREAM reference: triad at the run's thread count (%s GB/s)." % ", ".join(
            "%d thread%s %.2f" % (t, "" if t == 1 else "s", g) for t, g in sorted(
                stream_ref.items())))
        for r in runs:
            if r.get("cache_fully_warm") is False:
                log("note: %s still ran some calls on TinyCC code: the cold run ended before all "
                    "background compiles finished (use more iterations)." % r["name"])
        # None when the run printed no rms the reference has (under 100 iterations)
        if result.get("baseline_vs_published_rms_max_rel_diff") is not None:
            log("baseline rms vs ../shared/meshes/airfoil_rms.txt: max rel diff %.2e" %
                result["baseline_vs_published_rms_max_rel_diff"])
        result["mpi_vs_openmp"] = [
            {"mpi": a["name"], "openmp": b["name"], "wall_ratio": w, "process_ratio": p,
             "rms_max_rel_diff": rms_diff(a["rms"], b["rms"])} for a, b, w, p in mpi_ratios(runs)]
        failures += sum(1 for m in result["mpi_vs_openmp"]
                        if (m["rms_max_rel_diff"] or 0) > MPI_RMS_TOLERANCE)
        result["targets_report"] = evaluate_targets(dict({r["name"]: r for r in runs},
                                                         baseline=base))
        for r in all_runs:
            r["rms"] = {str(k): v for k, v in r.get("rms", {}).items()}
            r.pop("loops", None)
        svg = os.path.join(out_dir, stamp + "-chain.svg")
        if write_chain_plot(all_runs, counts, stream_ref, args.iterations, svg):
            result["chain_plot"] = svg
            log("chain plot: %s" % os.path.relpath(svg))
        result["configurations"] = all_runs

    if args.layout:
        failures += run_layout(build, mesh, workdir, result)

    if args.mg3d:
        failures += run_mg3d(args, result)

    if args.sweep:
        rows = sweep(args, exe, mesh_gen, baseline_exe, workdir)
        result["sweep"] = rows
        failures += sum(1 for r in rows if "error" in r)
        svg = os.path.join(out_dir, stamp + "-sweep.svg")
        if write_svg(rows, svg):
            result["sweep_plot"] = svg
            log("sweep plot: %s" % os.path.relpath(svg))

    path = os.path.join(out_dir, stamp + ".json")
    with open(path, "w") as f:
        json.dump(result, f, indent=1, sort_keys=False)
        f.write("\n")
    log("\nresults: %s" % os.path.relpath(path))
    if failures:
        log("bench: %d run(s) failed or disagreed with the baseline's rms" % failures)
    return 1 if failures else 0


def run_layout(build, mesh, workdir, result):
    """bench/layout.c: res_calc and adt_calc in groups of 8 with AoS dats (op_par_loop) and SoA
    dats (the same lane loop written here), in one process. Returns 1 on failure."""
    exe = os.path.join(build, "bench", "layout")
    if not os.access(exe, os.X_OK):
        fail("%s not found: build first" % exe)
    log("\ndat layout (seq, groups of 8 lanes, 40 timed calls of each loop):")
    env = dict(os.environ, OP2_CACHE_DIR=os.path.join(workdir, "cache-layout"))
    out, _, rc = run_process([exe, mesh, "40"], env, os.path.join(workdir, "layout.log"))
    sys.stdout.write(out)
    rows = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 5 and f[0] in ("adt_calc", "res_calc"):
            rows[f[0]] = {"aos_ms": float(f[1]), "soa_ms": float(f[2]), "soa_over_aos": float(f[3]),
                          "results": f[4]}
    result["layout"] = rows
    if rc != 0 or len(rows) != 2:
        log("bench: the layout benchmark failed or its results differ (see layout.log)")
        return 1
    return 0


def reference_rms(mesh, counts):
    """OP2's published rms for its own two meshes, when the run uses one of them."""
    names = {45000: "45k", 720000: "720k"}
    base = os.path.basename(mesh)
    if base not in OP2_MESHES.values() or counts["ncell"] not in names:
        return None
    path = os.path.join(SHARED_MESHES, "airfoil_rms.txt")
    ref = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 3 and parts[0] == names[counts["ncell"]]:
                    ref[int(parts[1])] = float(parts[2])
    except OSError:
        return None
    return ref or None


if __name__ == "__main__":
    sys.exit(main())
