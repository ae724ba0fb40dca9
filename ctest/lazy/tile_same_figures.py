#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Sparse tiling keeps a sample's results: the sample run lazily untiled and tiled must agree.

  tile_same_figures.py [--tiles auto,1,37,1000] [--tol 1e-12] [--lines REGEX] [--exact]
                       -- COMMAND...

Runs COMMAND with OP2_LAZY=on OP2_TILE=off, then once per tile size with OP2_LAZY=on
OP2_TILE=SIZE OP2_DIAGS=1. Every run must exit 0 (the sample's own checks pass). The figures are
the numbers on the stdout lines matching REGEX, or, where COMMAND holds @OUT@, the numbers of the
file each run writes there (@OUT@ is replaced by a file of its own per run). Each tiled run's
figures must be as many as the untiled run's and equal to 1e-12 relative (of the larger of the two,
or of the run's largest figure for figures near zero); and each tiled run must have tiled a chain
(its diagnostics report "OP2_TILE: chain of" at least --min-tilings times, default 1). With --exact (seq): a run whose every tiling reports
"updates in element order" must give the untiled figures bit for bit (docs/OPTIONS.md#op2_tile).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

NUMBER = re.compile(r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?')
CHAIN = re.compile(r'OP2_TILE: chain of (\d+) loops from \'([^\']*)\'.* in (\d+) tiles of (\d+), '
                   r'.*updates (in element order|in another order)')


def run(cmd, tile, work):
    """Runs cmd under OP2_TILE=tile; returns (figures, tiled chains, stdout+stderr text) or None."""
    out_file = os.path.join(work, 'out-%s.txt' % tile)
    argv = [a.replace('@OUT@', out_file) for a in cmd]
    env = dict(os.environ, OP2_LAZY='on', OP2_TILE=tile)
    if tile != 'off':
        env['OP2_DIAGS'] = '1'
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                       timeout=120)
    text = p.stdout + p.stderr
    if p.returncode != 0:
        print('OP2_TILE=%s: %s exited %d (its checks failed?):\n%s' % (tile, ' '.join(argv),
                                                                        p.returncode, text))
        return None
    return text, p.stdout, CHAIN.findall(p.stderr), out_file


def figures(stdout, out_file, lines, uses_file):
    if uses_file:
        with open(out_file) as f:
            return [float(x) for x in NUMBER.findall(f.read())]
    pick = re.compile(lines)
    return [float(x) for line in stdout.splitlines() if pick.search(line)
            for x in NUMBER.findall(line)]


def compare(tile, want, got, tol):
    if len(got) != len(want):
        print('OP2_TILE=%s: %d figures, the untiled run %d' % (tile, len(got), len(want)))
        return 1, False
    scale = max([abs(w) for w in want] + [0.0])
    bad = [(k, w, g) for k, (w, g) in enumerate(zip(want, got))
           if abs(g - w) > tol * max(abs(w), abs(g), 1e-6 * scale)]
    for k, w, g in bad[:10]:
        print('OP2_TILE=%s: figure %d is %.17g, untiled %.17g' % (tile, k, g, w))
    if bad:
        print('OP2_TILE=%s: %d of %d figures differ beyond %g relative' % (tile, len(bad),
                                                                          len(want), tol))
    return (1 if bad else 0), all(w == g for w, g in zip(want, got))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[1])
    ap.add_argument('--tiles', default='auto,1,37,1000')
    ap.add_argument('--tol', type=float, default=1e-12)
    ap.add_argument('--lines', default=r'^\s*result ',
                    help='regular expression picking the stdout lines whose numbers are compared')
    ap.add_argument('--min-tilings', type=int, default=1,
                    help='tilings each tiled run must report (0: a sample whose chains may all '
                         'run untiled, checked for its figures only)')
    ap.add_argument('--exact', action='store_true',
                    help='bit for bit where every tiling keeps its updates in element order')
    ap.add_argument('command', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ['--'] else a.command
    if not cmd:
        ap.error('no command')
    uses_file = any('@OUT@' in x for x in cmd)
    with tempfile.TemporaryDirectory() as work:
        plain = run(cmd, 'off', work)
        if plain is None:
            return 1
        want = figures(plain[1], plain[3], a.lines, uses_file)
        if not want:
            print('the untiled run gave no figures to compare:\n' + plain[0])
            return 1
        print('untiled: %d figures' % len(want))
        bad = 0
        for tile in a.tiles.split(','):
            r = run(cmd, tile, work)
            if r is None:
                bad += 1
                continue
            text, stdout, chains, out_file = r
            if len(chains) < a.min_tilings:
                print('OP2_TILE=%s tiled %d chain(s), not %d; its output:\n%s' % (
                    tile, len(chains), a.min_tilings, text))
                bad += 1
                continue
            fails, same = compare(tile, want, figures(stdout, out_file, a.lines, uses_file),
                                  a.tol)
            in_order = all(c[4] == 'in element order' for c in chains)
            tiles = sum(int(c[2]) for c in chains)
            if not chains:
                print('OP2_TILE=%s: no chain tiled; figures %s' % (
                    tile, 'bit for bit' if same else 'within %g' % a.tol))
                bad += fails
                continue
            print('OP2_TILE=%s: %d tilings (%d tiles in all; from %s), updates %s; figures %s' % (
                tile, len(chains), tiles, ', '.join(sorted({c[1] for c in chains})),
                'in element order' if in_order else 'in another order in some',
                'bit for bit' if same else ('beyond ' if fails else 'within ') + '%g' % a.tol))
            if a.exact and in_order and not same and not fails:
                print('OP2_TILE=%s: every update in element order, yet not bit for bit' % tile)
                fails = 1
            bad += fails
    if bad:
        print('FAILED: %d tiled run(s) differ from the untiled one or tiled nothing' % bad)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
