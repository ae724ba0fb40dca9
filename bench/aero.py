#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The aero sample (samples/aero: Newton steps, each a conjugate-gradient solve) on seq and
openmp, untiled and with sparse tiling of its lazy chains.

  bench/aero.py [--build-dir build] [--ij 240x80] [--threads 2] [--repeat 1] [--tile auto]

Generates the mesh with aero-mesh --ij (kept in bench/results/, which git ignores), then runs aero
on seq, seq tiled, openmp with --threads threads and openmp tiled (OP2_LAZY=on OP2_TILE=--tile,
docs/OPTIONS.md#op2_tile), once to fill the kernel cache and --repeat times measured (the fastest
kept). Times are aero's own "Max total runtime" (its Newton steps: no start-up, no mesh reading).
Each tiled row is followed by its time over the untiled row of the same backend ("x untiled").
aero's chains: res_calc and dirichlet; each solve iteration's updateP, spMV and dirichlet (dotPV's
and dotR's reductions end the chains). Exit status 1 when a run fails its own check (PASSED) or its
final potential differs from seq's by more than 1e-10 of the largest value. Sizes: aero's solves
stop at 200 conjugate-gradient iterations; 240x80 (19,521 nodes) needs at most 64, at 480x160
(77,441 nodes) they reach 200 and its check fails.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, env=None):
    full = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full)
    if p.returncode != 0 or (cmd[0].endswith('aero') and 'PASSED' not in p.stdout):
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s' % (p.returncode, ' '.join(cmd)))
    return p.stdout


def potential(path):
    """The numbers of op_print_dat_to_txtfile's file after its header line."""
    with open(path) as f:
        f.readline()
        return [float(x) for x in f.read().split()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--ij', default='240x80', help="aero-mesh's cells along and across (IxJ)")
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--repeat', type=int, default=1)
    ap.add_argument('--tile', default='auto', help="the tiled rows' OP2_TILE (auto)")
    a = ap.parse_args()
    if not re.fullmatch(r'\d+x\d+', a.ij):
        ap.error('--ij wants IxJ, e.g. 240x80')

    bin_dir = os.path.join(a.build_dir, 'samples', 'aero')
    work = os.path.join(ROOT, 'bench', 'results')
    os.makedirs(work, exist_ok=True)
    mesh = os.path.join(work, 'aero-%s.dat' % a.ij)
    if not os.path.exists(mesh):
        print(run([os.path.join(bin_dir, 'aero-mesh'), '--ij', a.ij, mesh]).strip())
    aero = os.path.join(bin_dir, 'aero')
    op2 = {'OP2_KERNEL_PATH': os.path.join(ROOT, 'samples', 'aero'),
           'OP2_CACHE_DIR': os.path.join(work, 'aero-kernel-cache')}
    tiled = {'OP2_LAZY': 'on', 'OP2_TILE': a.tile}
    seq = dict(op2, OP2_BACKEND='seq', OMP_NUM_THREADS='1')
    omp = dict(op2, OP2_BACKEND='openmp', OMP_NUM_THREADS=str(a.threads))
    omp_name = 'openmp x%d' % a.threads
    # name, environment, untiled twin
    configs = [('seq', seq, None), ('seq tiled', dict(seq, **tiled), 'seq'),
               (omp_name, omp, None), (omp_name + ' tiled', dict(omp, **tiled), omp_name)]
    phi = {name: os.path.join(work, 'aero-%s-%s.phi' % (a.ij, name.replace(' ', '-')))
           for name, _, _ in configs}
    for name, env, _ in configs:  # kernels compiled once, outside the measurements
        run([aero, mesh, phi[name]], env)
    best = {}
    for _ in range(a.repeat):
        for name, env, _ in configs:
            out = run([aero, mesh, phi[name]], env)
            t = float(re.search(r'Max total runtime = ([0-9.]+)', out).group(1))
            best[name] = min(best.get(name, t), t)
    want = potential(phi['seq'])
    scale = max(abs(w) for w in want)
    nodes = len(want)
    print('\naero mesh %s (%s nodes), best of %d' % (os.path.basename(mesh), format(nodes, ','),
                                                     a.repeat))
    print('%-18s %10s %12s' % ('config', 'time (s)', 'x untiled'))
    bad = 0
    for name, _, twin in configs:
        got = potential(phi[name])
        differs = len(got) != nodes or any(abs(g - w) > 1e-10 * scale for g, w in zip(got, want))
        bad += differs
        print('%-18s %10.3f %12s%s' % (name, best[name],
                                       '%.3f' % (best[name] / best[twin]) if twin else '',
                                       '  DIFFERS from seq' if differs else ''))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
