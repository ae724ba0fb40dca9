#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A 20-kernel program's first (cold) run against its second (warm) run, whole process.

  bench/cold20.py [--build-dir build] [--before DIR] [--size 48] [--iterations 60]
                  [--diags 0,2] [--backends seq,openmp] [--repeat 3]

Runs bench/cold20 (built with the library: BUILD/bench/cold20; OP2_KERNEL_PATH=bench, where its
kernel headers are) on one fresh OP2_CACHE_DIR until a run finds every kernel's optimised build
in the cache (at most 6 runs): the first run (cold) compiles every kernel (TinyCC at once, the
optimising compiler in the background), the last (warm) only loads them. For each backend and
OP2_DIAGS level it prints the whole-process wall time of both (as this harness times them) and
their ratio, the process's own CPU time cold over warm (its loops, TinyCC: about the wall
time's ratio on a machine with a core to spare for the compilers, the figure to read on a busy
one), its CPU time with the compilers' cold over warm, the share of
the cold run's loop calls that ran optimised code, how many optimised builds the cold run left
for later runs, how many runs it took to be warm (the warm one included), and how many `op2:`
lines the cold run printed.

--before DIR takes a second build (e.g. main's tree with bench/cold20.c copied in, built by
meson) and runs its bench/cold20 the same way, interleaved round by round with this one (the
order alternating), so that a slow spell of a busy machine falls on both; a last table gives each
figure before and after. Medians over --repeat rounds. Results (every run's figures) go to
bench/results/cold20-TIMESTAMP.json. Exit status 1 when a run fails or its results differ from
the first run's.
"""
import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_once(exe, args, env):
    """One process: its output, wall seconds and CPU seconds (itself and what it waited for)."""
    cpu0, t0 = children_cpu(), time.monotonic()
    p = subprocess.run([exe] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       env=env, cwd=ROOT)
    wall, cpu = time.monotonic() - t0, children_cpu() - cpu0
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        raise SystemExit('failed (%d): %s %s' % (p.returncode, exe, ' '.join(args)))
    return p.stdout, wall, cpu


def figures(out):
    """What one run printed: its result line, the calls on TinyCC and optimised code (the
    op_timing_output table's 'calls tcc/opt' column), the summary's counts, the op2: lines."""
    result = re.search(r'^cold20 .*$', out, re.M).group(0)
    cpu = re.search(r"cpu ([0-9.]+) s  compilers' cpu ([0-9.]+) s", out)
    tcc = opt = 0
    for m in re.finditer(r'^  \w+ +\d+ .* (\d+)/(\d+)  ', out, re.M):
        tcc, opt = tcc + int(m.group(1)), opt + int(m.group(2))
    summary = re.search(r'kernels compiled (\d+), from disk cache (\d+), cache entries refused '
                        r'(\d+); optimised builds (\d+), failed (\d+)', out)
    compiled, disk, _, built, failed = (int(x) for x in summary.groups())
    lines = sum(1 for line in out.splitlines() if line.startswith('op2: '))
    longest = max([len(line) for line in out.splitlines() if line.startswith('op2: ')] or [0])
    return {'result': result, 'self_cpu': float(cpu.group(1)),
            'compilers_cpu': float(cpu.group(2)), 'calls_tcc': tcc, 'calls_opt': opt,
            'compiled': compiled,
            'from_disk': disk, 'optimised_builds': built, 'failed_builds': failed,
            'op2_lines': lines, 'longest_op2_line': longest}


MAX_RUNS = 6


def pair(exe, args, backend, diags, threads):
    """A cold run on a fresh cache, then runs until one runs optimised code only (warm)."""
    cache = tempfile.mkdtemp(prefix='op2-cold20-')
    env = dict(os.environ, OP2_KERNEL_PATH=os.path.join(ROOT, 'bench'), OP2_CACHE_DIR=cache,
               OP2_BACKEND=backend, OP2_DIAGS=str(diags), OMP_NUM_THREADS=str(threads))
    try:
        out = {}
        for n in range(1, MAX_RUNS + 1):
            text, wall, cpu = run_once(exe, args, env)
            f = dict(figures(text), wall=wall, cpu=cpu)
            if n == 1:
                out['cold'] = f
            elif f['calls_tcc'] == 0 or n == MAX_RUNS:
                out['warm'] = dict(f, runs=n)
                break
        return out
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def median(xs):
    return statistics.median(xs) if xs else float('nan')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--build-dir', default=os.path.join(ROOT, 'build'))
    ap.add_argument('--before', help='another build directory to compare (its bench/cold20)')
    ap.add_argument('--size', type=int, default=48, help='grid nodes per side (even)')
    ap.add_argument('--iterations', type=int, default=60)
    ap.add_argument('--diags', default='0,2')
    ap.add_argument('--backends', default='seq,openmp')
    ap.add_argument('--threads', type=int, default=2, help='OpenMP threads (openmp backend)')
    ap.add_argument('--repeat', type=int, default=3)
    a = ap.parse_args()
    builds = [('after', os.path.join(a.build_dir, 'bench', 'cold20'))]
    if a.before:
        builds.insert(0, ('before', os.path.join(a.before, 'bench', 'cold20')))
    for name, exe in builds:
        if not os.access(exe, os.X_OK):
            raise SystemExit('%s: no %s (meson compile -C %s)' % (name, exe, os.path.dirname(
                os.path.dirname(exe))))
    diags = [int(d) for d in a.diags.split(',')]
    backends = a.backends.split(',')
    args = [str(a.size), str(a.iterations)]
    load = os.getloadavg()[0]
    print('cold20 %d^3 nodes, %d iterations; %d round%s; load average %.1f on %d cores%s' %
          (a.size, a.iterations, a.repeat, '' if a.repeat == 1 else 's', load, os.cpu_count(),
           ' (busy: compare within this run only)' if load > 0.5 else ''))
    runs = []  # (build, backend, diags, round, pair)
    reference = None
    status = 0
    for r in range(a.repeat):
        order = builds if r % 2 == 0 else list(reversed(builds))
        for backend in backends:
            for d in diags:
                for name, exe in order:
                    p = pair(exe, args, backend, d, a.threads)
                    for phase in ('cold', 'warm'):
                        if reference is None:
                            reference = p[phase]['result']
                        elif p[phase]['result'] != reference and backend == 'seq':
                            print('MISMATCH %s %s diags %d %s: %s (first run: %s)' %
                                  (name, backend, d, phase, p[phase]['result'], reference))
                            status = 1
                    runs.append({'build': name, 'backend': backend, 'diags': d, 'round': r,
                                 'cold': p['cold'], 'warm': p['warm']})
                    print('  round %d %-6s %-6s OP2_DIAGS=%d: cold %.2f s, warm %.2f s (run %d)' %
                          (r + 1, name, backend, d, p['cold']['wall'], p['warm']['wall'],
                           p['warm']['runs']), flush=True)

    os.makedirs(os.path.join(ROOT, 'bench', 'results'), exist_ok=True)
    path = os.path.join(ROOT, 'bench', 'results',
                        time.strftime('cold20-%Y%m%d-%H%M%S.json'))
    with open(path, 'w') as f:
        json.dump({'args': vars(a), 'load_average': load, 'runs': runs}, f, indent=1)

    def select(name, backend, d):
        return [x for x in runs if x['build'] == name and x['backend'] == backend and
                x['diags'] == d]

    head = ('%-6s %-7s %5s %7s %7s %9s %8s %8s %9s %5s %12s %9s %7s' %
            ('build', 'backend', 'diags', 'cold s', 'warm s', 'cold/warm', 'self c/w', 'all c/w',
             'opt calls', 'left', 'runs to warm', 'op2 lines', 'longest'))
    print('\nmedians (wall: the whole process; cpu: the process and the compilers it ran)')
    print(head)
    table = {}
    for name, _ in builds:
        for backend in backends:
            for d in diags:
                xs = select(name, backend, d)
                cold = median([x['cold']['wall'] for x in xs])
                warm = median([x['warm']['wall'] for x in xs])
                ratio = median([x['cold']['wall'] / x['warm']['wall'] for x in xs])
                cpu = median([x['cold']['cpu'] / x['warm']['cpu'] for x in xs])
                self_cpu = median([x['cold']['self_cpu'] / x['warm']['self_cpu'] for x in xs])
                share = median([x['cold']['calls_opt'] /
                                max(1, x['cold']['calls_opt'] + x['cold']['calls_tcc'])
                                for x in xs])
                left = median([x['cold']['compiled'] - x['cold']['optimised_builds'] -
                               x['cold']['failed_builds'] for x in xs])
                lines = median([x['cold']['op2_lines'] for x in xs])
                longest = median([x['cold']['longest_op2_line'] for x in xs])
                # runs until one ran optimised code only (">6": never within MAX_RUNS)
                to_warm = median([x['warm']['runs'] if x['warm']['calls_tcc'] == 0 else 99
                                  for x in xs])
                table[(name, backend, d)] = dict(cold=cold, warm=warm, ratio=ratio,
                                                 self_cpu=self_cpu)
                print('%-6s %-7s %5d %7.2f %7.2f %9.2f %8.2f %8.2f %8.0f%% %5.0f %12s %9.0f %7.0f' %
                      (name, backend, d, cold, warm, ratio, self_cpu, cpu, 100 * share, left,
                       '>%d' % MAX_RUNS if to_warm == 99 else '%.0f' % to_warm, lines, longest))
    if a.before:
        print('\nafter / before (medians of the per-round ratios)')
        print('%-7s %5s %17s  %-16s %s' % ('backend', 'diags', 'cold after/before',
                                            'cold/warm', 'self cpu c/w'))
        for backend in backends:
            for d in diags:
                b, f = select('before', backend, d), select('after', backend, d)
                by_round = {x['round']: x for x in b}
                ratios = [x['cold']['wall'] / by_round[x['round']]['cold']['wall'] for x in f
                          if x['round'] in by_round]
                bt, at = table[('before', backend, d)], table[('after', backend, d)]
                print('%-7s %5d %17.2f  %.2f -> %-8.2f %.2f -> %.2f' %
                      (backend, d, median(ratios), bt['ratio'], at['ratio'], bt['self_cpu'],
                       at['self_cpu']))
    print('\nevery run: %s' % os.path.relpath(path, ROOT))
    return status


if __name__ == '__main__':
    sys.exit(main())
