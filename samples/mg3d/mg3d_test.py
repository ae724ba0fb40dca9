#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The mg3d sample's tests.

  mg3d_test.py agree TOL BASELINE MESH CYCLES -- COMMAND...
      runs BASELINE MESH CYCLES and COMMAND... MESH CYCLES (mg3d on some backend, perhaps under
      mpirun); COMMAND must pass its own checks, and every "result NAME VALUE" line of the
      baseline must be matched by COMMAND's to TOL relative.
  mg3d_test.py same TOL CYCLES MESH_A MESH_B -- COMMAND...
      runs COMMAND... MESH_A CYCLES and COMMAND... MESH_B CYCLES: both succeed and print the same
      "result" figures to TOL relative (one mesh written with 0-based maps, the other 1-based).
  mg3d_test.py ranks TOL MESH CYCLES -- COMMAND_ONE... -- COMMAND_MANY...
      runs both commands (mg3d on one rank, and under mpirun on many) on MESH for CYCLES: both
      pass their checks and print the same "result" figures to TOL relative; says which are
      equal bit for bit.
  mg3d_test.py expect-failure CHECK -- COMMAND...
      COMMAND must exit non-zero with its check CHECK reported FAILED (the checks can fail).
  mg3d_test.py expect-error TEXT FILE -- COMMAND...
      COMMAND must exit non-zero, print TEXT, and leave neither FILE nor FILE.tmp behind.
"""
import os
import re
import subprocess
import sys


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    print('$ ' + ' '.join(cmd) + '\n' + p.stdout)
    return p.returncode, p.stdout


def results(text):
    return {m.group(1): float(m.group(2)) for m in re.finditer(r'result (\w+) (\S+)', text)}


def agree(tol, baseline, mesh, cycles, cmd):
    rc_b, out_b = run([baseline, mesh, cycles])
    rc, out = run(cmd + [mesh, cycles])
    if rc_b != 0 or rc != 0 or 'This test is considered PASSED' not in out:
        print('FAILED: exit status %d (baseline %d), or mg3d did not pass its checks' % (rc, rc_b))
        return 1
    return compare(tol, results(out_b), results(out))


def same(tol, cycles, mesh_a, mesh_b, cmd):
    rc_a, out_a = run(cmd + [mesh_a, cycles])
    rc_b, out_b = run(cmd + [mesh_b, cycles])
    if rc_a != 0 or rc_b != 0:
        print('FAILED: exit status %d and %d' % (rc_a, rc_b))
        return 1
    return compare(tol, results(out_a), results(out_b))


def ranks(tol, mesh, cycles, cmd_one, cmd_many):
    rc_a, out_a = run(cmd_one + [mesh, cycles])
    rc_b, out_b = run(cmd_many + [mesh, cycles])
    passed = 'This test is considered PASSED'
    if rc_a != 0 or rc_b != 0 or passed not in out_a or passed not in out_b:
        print('FAILED: exit status %d and %d, or a run did not pass its checks' % (rc_a, rc_b))
        return 1
    want, got = results(out_a), results(out_b)
    print('bit for bit: %s' % ' '.join(k for k in want if got.get(k) == want[k]))
    return compare(tol, want, got)


def compare(tol, want, got):
    bad = 0
    for name, w in want.items():
        g = got.get(name)
        ok = g is not None and abs(g - w) <= tol * max(abs(w), abs(g))
        print('%-10s first %.15e second %s %s' % (name, w, 'missing' if g is None else
                                                  '%.15e' % g, 'ok' if ok else 'DIFFERS'))
        bad += not ok
    if not want or bad:
        print('FAILED: %d of %d figures differ beyond %g' % (bad, len(want), tol))
        return 1
    return 0


def expect_failure(check, cmd):
    rc, out = run(cmd)
    if rc == 0 or not re.search(r'check %s:.*FAILED' % re.escape(check), out):
        print('FAILED: expected exit status non-zero and check %s FAILED (status %d)' % (check, rc))
        return 1
    return 0


def expect_error(text, path, cmd):
    for p in (path, path + '.tmp'):
        if os.path.exists(p):
            os.remove(p)
    rc, out = run(cmd)
    left = [p for p in (path, path + '.tmp') if os.path.exists(p)]
    if rc == 0 or text not in out or left:
        print('FAILED: wanted a non-zero status, "%s" and no file left (status %d, left %s)' %
              (text, rc, left))
        return 1
    return 0


def main(argv):
    if '--' not in argv:
        print(__doc__)
        return 2
    cut = argv.index('--')
    head, cmd = argv[1:cut], argv[cut + 1:]
    if head and head[0] == 'agree' and len(head) == 5:
        return agree(float(head[1]), head[2], head[3], head[4], cmd)
    if head and head[0] == 'ranks' and len(head) == 4 and '--' in cmd:
        cut = cmd.index('--')
        return ranks(float(head[1]), head[2], head[3], cmd[:cut], cmd[cut + 1:])
    if head and head[0] == 'same' and len(head) == 5:
        return same(float(head[1]), head[2], head[3], head[4], cmd)
    if head and head[0] == 'expect-error' and len(head) == 3:
        return expect_error(head[1], head[2], cmd)
    if head and head[0] == 'expect-failure' and len(head) == 2:
        return expect_failure(head[1], cmd)
    print(__doc__)
    return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
