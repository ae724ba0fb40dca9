#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The 3-D multigrid sample (samples/mg3d) against its hand-written serial baseline.

  bench/mg3d.py [--build-dir build] [--cells 72] [--levels 4] [--tets] [--cycles 10]
                [--threads 2] [--ranks 2] [--repeat 1]

Generates the mesh with mg3d-mesh (kept in bench/results/, which git ignores), compiles the
baseline with the optimised tier's flags (cc -O3 -march=native -ffp-contract=off), then runs the
baseline, mg3d on seq, on openmp with --threads threads and on --ranks MPI ranks (seq), once to
fill the kernel cache and --repeat times measured (the fastest kept). Times are mg3d's own
"N cycles in T s" (setup and cycles; no start-up, no file reading). Exit status 1 when a run
fails or its result figures differ from the baseline's by more than 1e-10 relative.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_ENV = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_pml': 'ob1', 'OMPI_MCA_btl': 'self,vader'}


def run(cmd, env=None):
    full = dict(os.environ, **(env or {}))
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s' % (p.returncode, ' '.join(cmd)))
    return p.stdout


def figures(out):
    seconds = float(re.search(r'cycles in ([0-9.]+) s', out).group(1))
    res = {m.group(1): float(m.group(2)) for m in re.finditer(r'result (\w+) (\S+)', out)}
    return seconds, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--cells', type=int, default=72)
    ap.add_argument('--levels', type=int, default=4)
    ap.add_argument('--tets', action='store_true')
    ap.add_argument('--cycles', type=int, default=10)
    ap.add_argument('--threads', type=int, default=2)
    ap.add_argument('--ranks', type=int, default=2)
    ap.add_argument('--repeat', type=int, default=1)
    a = ap.parse_args()

    bin_dir = os.path.join(a.build_dir, 'samples', 'mg3d')
    work = os.path.join(ROOT, 'bench', 'results')
    os.makedirs(work, exist_ok=True)
    kind = 'tets' if a.tets else 'hex'
    mesh = os.path.join(work, 'mg3d-%d-%s-L%d.h5' % (a.cells, kind, a.levels))
    if not os.path.exists(mesh):
        n = str(a.cells)
        print(run([os.path.join(bin_dir, 'mg3d-mesh'), '--levels', str(a.levels), '--perturb',
                   '0.2'] + (['--tets'] if a.tets else []) + [n, n, n, mesh]).strip())
    baseline = os.path.join(work, 'mg3d-baseline')
    cflags = run(['pkg-config', '--cflags', '--libs', 'hdf5-openmpi']).split()
    run(['cc', '-std=c11', '-D_GNU_SOURCE', '-O3', '-march=native', '-ffp-contract=off',
         '-fgnu89-inline', '-I' + os.path.join(ROOT, 'samples', 'mg3d'),
         os.path.join(ROOT, 'samples', 'mg3d', 'mg3d_baseline.c'), '-o', baseline] + cflags +
        ['-lm'])

    mg3d = os.path.join(bin_dir, 'mg3d')
    cache = os.path.join(work, 'mg3d-kernel-cache')
    op2 = {'OP2_KERNEL_PATH': os.path.join(ROOT, 'samples', 'mg3d'), 'OP2_CACHE_DIR': cache}
    cyc = str(a.cycles)
    configs = [
        ('baseline', [baseline, mesh, cyc], {}),
        ('seq', [mg3d, mesh, cyc], dict(op2, OP2_BACKEND='seq', OMP_NUM_THREADS='1')),
        ('openmp x%d' % a.threads, [mg3d, mesh, cyc],
         dict(op2, OP2_BACKEND='openmp', OMP_NUM_THREADS=str(a.threads))),
        ('mpi x%d' % a.ranks, ['mpirun', '--oversubscribe', '--bind-to', 'none', '-np',
                               str(a.ranks), mg3d, mesh, cyc],
         dict(op2, OP2_BACKEND='seq', OMP_NUM_THREADS='1', **MPI_ENV)),
    ]
    for name, cmd, env in configs[1:]:  # kernels compiled once, outside the measurements
        run(cmd[:-1] + ['2'], env)
    best, res = {}, {}
    for _ in range(a.repeat):
        for name, cmd, env in configs:
            t, r = figures(run(cmd, env))
            best[name] = min(best.get(name, t), t)
            res[name] = r
    base = best['baseline']
    print('mesh %s, %d cycles, best of %d' % (os.path.basename(mesh), a.cycles, a.repeat))
    print('%-12s %10s %12s' % ('config', 'time (s)', 'x baseline'))
    bad = 0
    for name, _, _ in configs:
        want = res['baseline']
        differs = [k for k, w in want.items()
                   if abs(res[name].get(k, float('nan')) - w) > 1e-10 * abs(w)
                   or k not in res[name]]
        bad += bool(differs)
        print('%-12s %10.3f %12.3f%s' % (name, best[name], best[name] / base,
                                         '  DIFFERS: ' + ','.join(differs) if differs else ''))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
