#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Peak memory per MPI rank of the 3-D multigrid sample (samples/mg3d) as the rank count grows.

  bench/mg3d_memory.py [--build-dir build] [--cells 96] [--levels 4] [--ranks 1,2,4,8,16]
                       [--cycles 1] [--partition INERTIAL]
                       [--plot FILE.svg [--from-table docs/MPI.md]]

Generates the mesh with mg3d-mesh (kept in bench/results/, which git ignores), then runs mg3d
under `mpirun --oversubscribe --bind-to none -np P` (one process without mpirun for P = 1) with
OP2_DIAGS=2, each rank wrapped in /usr/bin/time. Every rank reads its block of every dataset
from the HDF5 file (op_decl_*_hdf5), the mesh is partitioned (MG3D_PARTITION, default the
recursive coordinate bisection: no graph, so the figures are the input's and the mesh's, not
PT-Scotch's) and moved, and the cycles run. Prints one Markdown row per rank count: the peak
resident memory of each rank over the whole run (ru_maxrss from /usr/bin/time, min and max over
the ranks), the largest rank's peak at the end of distribution (the library's VmHWM line), and,
for the finest node set, the most rows of one of its datasets a rank read and the most of its
rows a rank held in one array. Exit status 1 when a run fails or its result figures differ from
the first run's by more than 1e-10 relative. --plot FILE.svg draws the rows (peak RSS per rank,
min and max, and the peak after distribution, against the rank count) with gnuplot; with
--from-table DOC it draws the table already in DOC and runs nothing.
"""
import argparse
import os
import re
import subprocess
import sys
import time

import mdplot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_ENV = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_pml': 'ob1', 'OMPI_MCA_btl': 'self,vader'}


def run(cmd, env):
    full = dict(os.environ, **env)
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s' % (p.returncode, ' '.join(cmd)))
    return p.stdout, time.time() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--cells', type=int, default=96)
    ap.add_argument('--levels', type=int, default=4)
    ap.add_argument('--ranks', default='1,2,4,8,16')
    ap.add_argument('--cycles', type=int, default=1)
    ap.add_argument('--partition', default='INERTIAL')
    ap.add_argument('--plot', metavar='FILE.svg')
    ap.add_argument('--from-table', metavar='DOC')
    a = ap.parse_args()
    if a.from_table:
        if not a.plot:
            raise SystemExit('--from-table needs --plot FILE.svg')
        plot(mdplot.read_table(a.from_table, 'ranks')[1:], a.plot)
        return
    results = os.path.join(ROOT, 'bench', 'results')
    os.makedirs(results, exist_ok=True)
    n = a.cells
    mesh = os.path.join(results, 'mg3d_%dx%dx%d_l%d.h5' % (n, n, n, a.levels))
    if not os.path.exists(mesh):
        out, _ = run([os.path.join(a.build_dir, 'samples', 'mg3d', 'mg3d-mesh'), '--levels',
                      str(a.levels), '--perturb', '0.2', str(n), str(n), str(n), mesh], {})
        sys.stdout.write(out)
    exe = os.path.join(a.build_dir, 'samples', 'mg3d', 'mg3d')
    env = dict(MPI_ENV, OP2_KERNEL_PATH=os.path.join(ROOT, 'samples', 'mg3d'), OP2_DIAGS='2',
               OP2_BACKEND='seq', OMP_NUM_THREADS='1', MG3D_PARTITION=a.partition,
               OP2_CACHE_DIR=os.path.join(results, 'mg3d_memory_cache'))
    timer = ['/usr/bin/time', '-f', 'rank-peak-rss-kib %M']
    table = []
    print('| ranks | peak RSS per rank, whole run (MiB, min - max) | peak after distribution, '
          'largest rank (MiB) | finest nodes: rows read / held in one array, most on a rank '
          '(block ceil(N/P)) | run (s) |')
    print('|---|---|---|---|---|')
    first = None
    for p in [int(x) for x in a.ranks.split(',')]:
        launch = [] if p == 1 else ['mpirun', '--oversubscribe', '--bind-to', 'none', '-np', str(p)]
        out, secs = run(launch + timer + [exe, mesh, str(a.cycles)], env)
        rss = [int(m) / 1024.0 for m in re.findall(r'rank-peak-rss-kib (\d+)', out)]
        dist = re.search(r'peak RSS per rank after distribution \(VmHWM, MiB\): min \S+, max ([0-9.]+)',
                         out)
        nodes = re.search(r"input: set 'nodes0' \((\d+) elements, block (\d+)\): at most (\d+) rows "
                          r"of a dataset read, (\d+) rows held", out)
        res = {m.group(1): float(m.group(2)) for m in re.finditer(r'result (\w+) (\S+)', out)}
        if first is None:
            first = res
        for k, v in first.items():
            if abs(res.get(k, float('nan')) - v) > 1e-10 * max(1.0, abs(v)):
                raise SystemExit('%d ranks: result %s %r differs from %r' % (p, k, res.get(k), v))
        rows = ('%s / %s (%s)' % (nodes.group(3), nodes.group(4), nodes.group(2)) if nodes
                else 'whole file, one process')
        table.append([str(p), '%.0f - %.0f' % (min(rss), max(rss)),
                      '%.0f' % float(dist.group(1)) if dist else '-', rows, '%.0f' % secs])
        print('| ' + ' | '.join(table[-1]) + ' |')
        sys.stdout.flush()
    if a.plot:
        plot(table, a.plot)


def plot(rows, svg):
    """Peak RSS per rank (min and max over the ranks, whole run) and the largest rank's peak after
    distribution, MiB, against the rank count (log x)."""
    data = ''
    for r in rows:
        lo, hi = (float(x) for x in r[1].split('-'))
        dist = mdplot.number(r[2])
        data += '%s %g %g %s\n' % (r[0], lo, hi, 'NaN' if dist is None else '%g' % dist)
    mdplot.gnuplot('\n'.join([
        'set title "mg3d: peak resident memory per MPI rank (bench/mg3d_memory.py)"',
        'set termoption noenhanced', 'set logscale x 2', 'set grid', 'set xlabel "MPI ranks"',
        'set ylabel "MiB"', 'set yrange [0:*]', 'set key left bottom', 'set datafile missing "NaN"',
        "plot '@DATA@' using 1:2:3 with filledcurves lc rgb '#c0d0f0' "
        "title 'peak RSS per rank, whole run (min to max)', "
        "'' using 1:3 with linespoints lw 2 lc rgb '#2050a0' title 'largest rank, whole run', "
        "'' using 1:4 with linespoints lw 2 dt 2 lc rgb '#a03020' "
        "title 'largest rank after distribution (VmHWM)'", '']), data, svg)


if __name__ == '__main__':
    main()
