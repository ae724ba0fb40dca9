#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs a command that must succeed and checks its output (stdout and stderr together): each
PATTERN (a regular expression) must occur in it at least once; each !PATTERN must not; each
N*PATTERN at least N times. Used to see which tier ran a Fortran loop (OP2_DIAGS=2 says it).

Usage: tier_check.py PATTERN... -- COMMAND...
"""
import re
import subprocess
import sys

args = sys.argv[1:]
split = args.index("--")
checks, cmd = args[:split], args[split + 1:]
run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False)
sys.stdout.write(run.stdout)
if run.returncode != 0:
    sys.exit("tier_check: %s exited with %d" % (cmd[0], run.returncode))
bad = 0
for c in checks:
    if c.startswith("!"):
        found = re.search(c[1:], run.stdout, re.M)
        if found:
            print("tier_check: found what must not be there: %r (%s)" % (c[1:], found.group(0)))
            bad += 1
        continue
    want, _, pattern = c.partition("*") if re.match(r"^\d+\*", c) else ("1", "", c)
    count = len(re.findall(pattern, run.stdout, re.M))
    if count < int(want):
        print("tier_check: %r found %d times, at least %s wanted" % (pattern, count, want))
        bad += 1
sys.exit(1 if bad else 0)
