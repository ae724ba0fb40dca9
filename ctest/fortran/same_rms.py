#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs two Airfoil programs and compares the rms lines they print (" ITER  RMS", rank 0 only):
the same iterations, each pair within a relative tolerance. Both must succeed. Used to compare
the Fortran Airfoil (samples/fortran/airfoil) with the C one (samples/airfoil), run the same way.

Usage: same_rms.py TOLERANCE [ENV=VALUE...] [--want [N*]PATTERN...] -- COMMAND_A... -- COMMAND_B...
ENV=VALUE entries are set for both commands; the rest of the environment is the test's. Each
--want PATTERN (a regular expression, N*PATTERN: at least N times) must occur in A's output (its
stderr included), and each --want !PATTERN must not: which tier ran (OP2_DIAGS=2 says it).
"""
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\s*(\d+)\s+([-+0-9.eE]+)\s*$")


def check_output(text, wants):
    bad = 0
    for w in wants:
        if w.startswith("!"):
            found = re.search(w[1:], text, re.M)
            if found:
                print("same_rms: found what must not be there: %s" % found.group(0))
                bad += 1
            continue
        n, pattern = (w.split("*", 1)[0], w.split("*", 1)[1]) if re.match(r"^\d+\*", w) else ("1", w)
        count = len(re.findall(pattern, text, re.M))
        if count < int(n):
            print("same_rms: %r found %d times, at least %s wanted" % (pattern, count, n))
            bad += 1
    if bad:
        sys.exit("same_rms: the first command's output is not as wanted")


def rms_lines(cmd, env, wants=()):
    run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         text=True, check=False)
    sys.stdout.write("$ %s\n%s" % (" ".join(cmd), run.stdout))
    if run.returncode != 0:
        sys.exit("same_rms: %s exited with %d" % (cmd[0], run.returncode))
    check_output(run.stdout, wants)
    found = {}
    for line in run.stdout.splitlines():
        m = LINE.match(line)
        if m and "e" in m.group(2).lower():
            found[int(m.group(1))] = float(m.group(2))
    return found


def main():
    args = sys.argv[1:]
    tol = float(args.pop(0))
    env = dict(os.environ)
    wants = []
    while args and args[0] != "--":
        if args[0] == "--want":
            args.pop(0)
            wants.append(args.pop(0))
            continue
        name, _, value = args.pop(0).partition("=")
        env[name] = value
    first = args.index("--")
    second = args.index("--", first + 1)
    a = rms_lines(args[first + 1:second], env, wants)
    b = rms_lines(args[second + 1:], env)
    if not a or sorted(a) != sorted(b):
        sys.exit("same_rms: different iterations printed: %s against %s" % (sorted(a), sorted(b)))
    worst = 0.0
    for it in sorted(a):
        rel = abs(a[it] / b[it] - 1.0)
        worst = max(worst, rel)
        print("iteration %d: %.15e against %.15e, relative difference %.2e" % (it, a[it], b[it], rel))
    if worst > tol:
        sys.exit("same_rms: relative difference %.2e is over the tolerance %.1e" % (worst, tol))
    print("same_rms: %d iterations agree within %.1e" % (len(a), tol))


if __name__ == "__main__":
    main()
