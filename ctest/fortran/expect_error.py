#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Runs a command that must fail with exit status 1 and print "op2: error:" with the given text on
stderr (the library's default error handler).

Usage: expect_error.py TEXT COMMAND...
"""
import subprocess
import sys

text, cmd = sys.argv[1], sys.argv[2:]
run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=False)
sys.stdout.write(run.stdout + run.stderr)
if run.returncode != 1:
    sys.exit("expect_error: exit status %d, not 1" % run.returncode)
errors = [line for line in run.stderr.splitlines() if line.startswith("op2: error:")]
if not errors or text not in errors[0]:
    sys.exit("expect_error: the first error does not say '%s'" % text)
print("expect_error: it says '%s'" % text)
