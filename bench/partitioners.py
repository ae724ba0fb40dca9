#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""OP2's partitioners on mg3d's mesh: time, edge cut and imbalance from the library's report.

  bench/partitioners.py [--build-dir build] [--cells 16] [--levels 3] [--ranks 2]
                        [--partitioners INERTIAL,PTSCOTCH:KWAY,PARMETIS:GEOMKWAY]
                        [--plot FILE.svg [--from-table docs/MPI.md]]

Generates a perturbed NxNxN hexahedral mesh with mg3d-mesh (kept in bench/results/, which git
ignores) and runs mg3d for one V-cycle under `mpirun --oversubscribe --bind-to none -np RANKS`
once per partitioner (MG3D_PARTITION=LIB[:ROUTINE], OP_partition's names), OP2_DIAGS=2, seq
backend. From rank 0's line "partition of 'nodes0' (...) in T s: edge cut C (declared blocks: B)
..., imbalance I" it prints one Markdown row per partitioner, in the columns of docs/MPI.md's
partitioner table ("whole distribution": the sum of the times rank 0 reports for the
distribution's steps: declaration check, ownership, migration, halos). Exit status 1 when a run fails, reports no partition, or its result figures differ
from the first run's by more than 1e-10 relative.

--plot FILE.svg draws the rows (partitioner's time, edge cut beside the declared blocks', and
imbalance, one bar per row) with gnuplot; with --from-table DOC it draws the table already in DOC
(the first whose first column is "mesh") and runs nothing.
"""
import argparse
import os
import re
import subprocess
import sys

import mdplot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_ENV = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_pml': 'ob1', 'OMPI_MCA_btl': 'self,vader', 'OMP_NUM_THREADS': '1',
           'OMPI_MCA_mpi_yield_when_idle': '1'}
REPORT = re.compile(r"partition of '\w+' \(([^)]*)\) in ([0-9.]+) s: edge cut (\d+) "
                    r"\(declared blocks: (\d+)\).*imbalance ([0-9.]+)")


def run(cmd, env):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=dict(os.environ, **env))
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s' % (p.returncode, ' '.join(cmd)))
    return p.stdout


def seconds(cell):
    """A table cell's time: '1.1 to 1.7 s' -> the middle, 'a s x + b s y' -> a + b."""
    nums = [float(x) for x in re.findall(r'([0-9.]+) s\b', cell)] or \
        [mdplot.number(cell) or float('nan')]
    if ' to ' in cell:
        lo = mdplot.number(cell)
        return (lo + nums[0]) / 2
    return sum(nums)


def plot(rows, svg):
    """Three panels, one bar per row: the partitioner's time (s), the edge cut beside the declared
    blocks' (log scale), the imbalance."""
    data = ''
    for r in rows:
        label = '%s %s' % (r[0].split(',')[0], r[1].split(' ')[0])
        cut = mdplot.number(r[3])
        m = re.search(r'\(([0-9,]+)\)', r[3])
        data += '"%s" %g %g %s %g\n' % (label, seconds(r[2]), cut,
                                        m.group(1).replace(',', '') if m else 'NaN',
                                        mdplot.number(r[4]))
    mdplot.gnuplot('\n'.join([
        'set multiplot layout 1,3 title "OP2 partitioners on mg3d\'s mesh '
        '(bench/partitioners.py; docs/MPI.md)"',
        'set termoption noenhanced', 'set style data histograms',
        'set style histogram clustered gap 1', 'set style fill solid 0.8 border -1',
        'set xtics rotate by -40 font ",8" nomirror', 'set bmargin 8', 'set grid ytics',
        'set key top left font ",9"',
        'set title "partitioner\'s time (s)"', 'set yrange [0:*]',
        "plot '@DATA@' using 2:xtic(1) notitle",
        'set title "edge cut (log scale)"', 'set logscale y', 'set yrange [*:*]',
        "plot '@DATA@' using 3:xtic(1) title 'partition', '' using 4 title 'declared blocks'",
        'unset logscale y', 'set title "imbalance (largest part / mean)"', 'set yrange [0.9:*]',
        "plot '@DATA@' using 5:xtic(1) notitle",
        'unset multiplot', '']), data, svg)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--cells', type=int, default=16)
    ap.add_argument('--levels', type=int, default=3)
    ap.add_argument('--ranks', type=int, default=2)
    ap.add_argument('--partitioners', default='INERTIAL,PTSCOTCH:KWAY,PARMETIS:GEOMKWAY')
    ap.add_argument('--plot', metavar='FILE.svg')
    ap.add_argument('--from-table', metavar='DOC')
    a = ap.parse_args()
    if a.from_table:
        if not a.plot:
            raise SystemExit('--from-table needs --plot FILE.svg')
        plot(mdplot.read_table(a.from_table, 'mesh')[1:], a.plot)
        return 0

    bin_dir = os.path.join(a.build_dir, 'samples', 'mg3d')
    work = os.path.join(ROOT, 'bench', 'results')
    os.makedirs(work, exist_ok=True)
    n = str(a.cells)
    mesh = os.path.join(work, 'mg3d-%s-hex-L%d.h5' % (n, a.levels))
    if not os.path.exists(mesh):
        print(run([os.path.join(bin_dir, 'mg3d-mesh'), '--levels', str(a.levels), '--perturb',
                   '0.2', n, n, n, mesh], {}).strip())
    edges = 3 * a.cells * (a.cells + 1) ** 2
    env = dict(MPI_ENV, OP2_BACKEND='seq', OP2_DIAGS='2',
               OP2_KERNEL_PATH=os.path.join(ROOT, 'samples', 'mg3d'),
               OP2_CACHE_DIR=os.path.join(work, 'partitioners-cache'))
    rows, first = [], None
    for name in a.partitioners.split(','):
        out = run(['mpirun', '--oversubscribe', '--bind-to', 'none', '-np', str(a.ranks),
                   os.path.join(bin_dir, 'mg3d'), mesh, '1'], dict(env, MG3D_PARTITION=name))
        m = REPORT.search(out)
        if not m:
            sys.stdout.write(out)
            raise SystemExit('%s: no partition report in the output' % name)
        # the top-level steps (their sub-steps' lines are inside them)
        dist = sum(float(x) for x in re.findall(
            r'distribution: (?:declaration check|ownership|migration|halos) ([0-9.]+) s', out))
        res = {k: float(v) for k, v in re.findall(r'result (\w+) (\S+)', out)}
        first = first or res
        for k, v in first.items():
            if abs(res.get(k, float('nan')) - v) > 1e-10 * max(1.0, abs(v)):
                raise SystemExit('%s: result %s %r differs from %r' % (name, k, res.get(k), v))
        rows.append(['%s^3, %s edges, %d ranks' % (n, format(edges, ','), a.ranks),
                     name.replace(':', ' '), '%s s' % m.group(2),
                     '%s (%s)' % (format(int(m.group(3)), ','), format(int(m.group(4)), ',')),
                     m.group(5), '%.2f s' % dist])
    print('| mesh | partitioner | partitioner\'s time | edge cut (declared blocks) | imbalance | '
          'whole distribution |')
    print('|---|---|---|---|---|---|')
    for r in rows:
        print('| ' + ' | '.join(r) + ' |')
    if a.plot:
        plot(rows, a.plot)
    return 0


if __name__ == '__main__':
    sys.exit(main())
