#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""mg3d on many MPI ranks: results against one rank, start-up per phase, halo traffic per rank.

  bench/ranks.py [--build-dir build] [--cells 16] [--levels 3] [--cycles 5]
                 [--ranks 1,2,4,8,16,32,64] [--partition PTSCOTCH:KWAY] [--jit tiered]
                 [--markdown] [--plot FILE.svg [--from-table docs/SCALE.md]]

Generates a perturbed NxNxN hexahedral mesh with mg3d-mesh (kept in bench/results/, which git
ignores) and runs mg3d on it (seq backend, one thread per rank) under
`mpirun --oversubscribe --bind-to none -np P` for each rank count, every run with an empty kernel
cache of its own (so each pays its compiles: the optimised builds run once per machine; each
run's whole output is kept in bench/results/ranks-P.txt). Every
run's "result" figures must equal the 1-rank run's to 1e-12 relative (exit status 1 otherwise);
the table says which are equal bit for bit. From op_timing_output's MPI tables (the slowest
rank's time of each start-up phase) it prints the start-up phases, the time per V-cycle (the
cycle loops' slowest-rank time, jit excluded; and mg3d's own "cycles in", set-up included), and
the halo messages and bytes each rank sends per V-cycle: the traffic of the loops that run in
the cycles, divided by the cycles (mean over ranks; "max" sums each loop's busiest rank, an upper
bound). With 1 rank no MPI table exists: the compile time is the jit column's sum.
docs/SCALE.md has a run and the model it feeds. --plot FILE.svg draws the table (start-up phases,
and messages and kB per rank per V-cycle, against the rank count) with gnuplot; with --from-table
DOC it draws the table already in DOC (the first whose first column is "ranks") and runs nothing.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import time

import mdplot

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MPI_ENV = {'OMPI_ALLOW_RUN_AS_ROOT': '1', 'OMPI_ALLOW_RUN_AS_ROOT_CONFIRM': '1',
           'OMPI_MCA_pml': 'ob1', 'OMPI_MCA_btl': 'self,vader', 'OMP_NUM_THREADS': '1',
           # oversubscribed: a waiting rank yields its core instead of spinning
           'OMPI_MCA_mpi_yield_when_idle': '1'}
PHASES = ['MPI start (MPI_Init)', 'declarations and reads', 'partition (ownership)', 'migration',
          'halo build', 'kernel compile (jit)', 'first calls (less jit)', 'start-up total']
SHORT = ['MPI start', 'decl/read', 'partition', 'migrate', 'halos', 'compile', 'first calls',
         'start-up']
# mg3d's loops inside the V-cycles (the others run once per level at set-up, or at the end)
CYCLE_LOOPS = ['res_init', 'res_edge', 'res_bface', 'smooth', 'restrict_res', 'prolong',
               'zero_node']


def run(cmd, env):
    full = dict(os.environ, **env)
    t0 = time.time()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s' % (p.returncode, ' '.join(cmd)))
    return p.stdout, time.time() - t0


def parse(out, ranks, cycles):
    r = {'results': {m.group(1): float(m.group(2))
                     for m in re.finditer(r'result (\w+) (\S+)', out)},
         'cycle_s': float(re.search(r'cycles in ([0-9.]+) s', out).group(1)) / cycles}
    # the cycle loops' time (slowest rank's; no jit: that is the start-up's), per cycle
    table = out[out.index('\n  loop ') :]
    loop_s = 0.0
    for loop in CYCLE_LOOPS:
        m = re.search(r'\n  %s +\d+ +([0-9.]+)' % loop, table)
        loop_s += float(m.group(1)) if m else 0.0
    r['loop_s'] = loop_s / cycles
    if ranks > 1:
        for name in PHASES:
            m = re.search(r'\n  %s +([0-9.]+) +([0-9.]+)' % re.escape(name), out)
            r[name] = float(m.group(1))
        m = re.search(r'kernels \(sums over ranks\): compiled (\d+), from disk cache (\d+), '
                      r'optimised builds (\d+)', out)
        r['compiles'] = '%s/%s/%s' % m.groups()
        halo = out[out.index('  halo per call'):]
        msg = msg_max = byt = byt_max = 0.0
        for loop in CYCLE_LOOPS:
            m = re.search(r'\n  %s +(\d+) +([0-9.]+) +([0-9.]+) +([0-9.]+) +([0-9.]+)' % loop,
                          halo)
            if not m:
                continue
            calls = float(m.group(1))
            msg += calls * float(m.group(2))
            msg_max += calls * float(m.group(3))
            byt += calls * float(m.group(4))
            byt_max += calls * float(m.group(5))
        r['halo'] = (msg / cycles, msg_max / cycles, byt / cycles, byt_max / cycles)
    else:
        detail = out[out.index('jit (ms)'):]
        jit = sum(float(m.group(1)) for m in re.finditer(
            r'\n  \w+ +\d+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+)', detail))
        r['kernel compile (jit)'] = jit / 1e3
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--cells', type=int, default=16)
    ap.add_argument('--levels', type=int, default=3)
    ap.add_argument('--cycles', type=int, default=5)
    ap.add_argument('--ranks', default='1,2,4,8,16,32,64')
    ap.add_argument('--partition', default='PTSCOTCH:KWAY')
    ap.add_argument('--jit', default='tiered')
    ap.add_argument('--markdown', action='store_true')
    ap.add_argument('--plot', metavar='FILE.svg')
    ap.add_argument('--from-table', metavar='DOC')
    a = ap.parse_args()
    if a.from_table:
        if not a.plot:
            raise SystemExit('--from-table needs --plot FILE.svg')
        plot(mdplot.read_table(a.from_table, 'ranks'), a.plot)
        return 0

    bin_dir = os.path.join(a.build_dir, 'samples', 'mg3d')
    work = os.path.join(ROOT, 'bench', 'results')
    os.makedirs(work, exist_ok=True)
    n = str(a.cells)
    mesh = os.path.join(work, 'mg3d-%s-hex-L%d.h5' % (n, a.levels))
    if not os.path.exists(mesh):
        out, _ = run([os.path.join(bin_dir, 'mg3d-mesh'), '--levels', str(a.levels), '--perturb',
                      '0.2', n, n, n, mesh], {})
        print(out.strip())
    env = dict(MPI_ENV, OP2_BACKEND='seq', OP2_JIT=a.jit, MG3D_PARTITION=a.partition,
               OP2_KERNEL_PATH=os.path.join(ROOT, 'samples', 'mg3d'))
    rows, ref, bad = [], None, 0
    for p in [int(x) for x in a.ranks.split(',')]:
        cache = os.path.join(work, 'ranks-cache-%d' % p)
        shutil.rmtree(cache, ignore_errors=True)
        cmd = ['mpirun', '--oversubscribe', '--bind-to', 'none', '-np', str(p),
               os.path.join(bin_dir, 'mg3d'), mesh, str(a.cycles)]
        out, wall = run(cmd, dict(env, OP2_CACHE_DIR=cache))
        shutil.rmtree(cache, ignore_errors=True)
        with open(os.path.join(work, 'ranks-%d.txt' % p), 'w') as f:  # the whole report
            f.write(out)
        r = parse(out, p, a.cycles)
        r['ranks'], r['wall'] = p, wall
        if ref is None:
            ref = r['results']
        worst, same = 0.0, []
        for k, w in ref.items():
            g = r['results'].get(k)
            d = abs(g - w) / max(abs(w), 1e-300) if g is not None else float('inf')
            worst = max(worst, d)
            if g == w:
                same.append(k)
        r['worst'], r['same'] = worst, same
        bad += worst > 1e-12
        rows.append(r)
        print('%d ranks: %.1f s wall, worst relative difference %.1e, bit for bit: %s' %
              (p, wall, worst, ' '.join(same) or 'none'), flush=True)

    print('\nmg3d %sx%sx%s, %d levels, %d cycles, partition %s, OP2_JIT=%s; start-up phases: '
          'slowest rank (s); halo: per rank per V-cycle, mean (max)\n' %
          (n, n, n, a.levels, a.cycles, a.partition, a.jit))
    head = ['ranks'] + SHORT + ['loops s/cycle', 'mg3d s/cycle', 'messages', 'kB', 'compiled/disk/opt', 'max rel. diff',
                                'wall (s)']
    table = [head]
    for r in rows:
        cells = [str(r['ranks'])]
        cells += ['%.2f' % r[k] if k in r else '-' for k in PHASES]
        cells += ['%.4f' % r['loop_s'], '%.4f' % r['cycle_s']]
        if 'halo' in r:
            h = r['halo']
            cells += ['%.1f (%.0f)' % (h[0], h[1]), '%.1f (%.1f)' % (h[2] / 1e3, h[3] / 1e3),
                      r['compiles']]
        else:
            cells += ['0', '0', '-']
        cells += ['%.1e' % r['worst'], '%.1f' % r['wall']]
        table.append(cells)
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '---|' * len(head))
    for cells in table[1:]:
        print('| ' + ' | '.join(cells) + ' |')
    if a.plot:
        plot(table, a.plot)
    return 1 if bad else 0


def plot(table, svg):
    """Left: each start-up phase's seconds (slowest rank) against the rank count; right: halo
    messages and kB each rank sends per V-cycle (mean over ranks). Log-log; '-' cells skipped."""
    head = table[0]
    cols = [head.index(h) for h in ['ranks'] + SHORT + ['messages', 'kB']]
    data = '\n'.join(' '.join('%g' % mdplot.number(r[c]) if mdplot.number(r[c]) is not None
                               else 'NaN' for c in cols) for r in table[1:]) + '\n'
    phases = ', '.join("'@DATA@' using 1:%d with linespoints lw 2 title '%s'" % (i + 2, name)
                       for i, name in enumerate(SHORT))
    n = len(SHORT) + 2
    mdplot.gnuplot('\n'.join([
        'set multiplot layout 1,2 title "mg3d start-up and halo traffic against MPI ranks '
        '(bench/ranks.py)"',
        'set logscale xy', 'set grid', 'set xlabel "MPI ranks"', 'set key left top font ",9"',
        'set termoption noenhanced',
        'set ylabel "seconds (slowest rank)"', 'set title "start-up phases"',
        'plot ' + phases,
        'set ylabel "per rank per V-cycle"', 'set title "halo traffic (mean over ranks)"',
        "plot '@DATA@' using 1:%d with linespoints lw 2 title 'messages', "
        "'' using 1:%d with linespoints lw 2 title 'kB'" % (n, n + 1),
        'unset multiplot', '']), data, svg)


if __name__ == '__main__':
    sys.exit(main())
