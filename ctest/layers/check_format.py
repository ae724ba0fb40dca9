#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every C and C++ source of ours is laid out as the repository's .clang-format says.

The files are those git tracks under FOLDERS (every such file under them when the tree is not a
git checkout, as in a release tarball), checked with `clang-format --dry-run --Werror`, which
changes nothing and names each line that would move. templates/ is left out: its files are
pasted into every generated kernel and laid out by hand for readers of that code (and a change
of their bytes changes every cache key and golden file).

A deviation fails the check and says how to fix it. The check is skipped (exit 77) only where
clang-format is missing; build.sh installs it with the other packages, so CI always runs it.

Usage: check_format.py SOURCE_ROOT
"""

import os
import shutil
import subprocess
import sys

FOLDERS = ["include", "runtime", "jit", "tools", "samples", "ctest", "bench"]
SUFFIXES = (".c", ".h", ".cpp", ".hpp", ".cu")
SKIP = 77


def sources(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--"] + FOLDERS,
                             capture_output=True, check=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
    if not files:  # not a checkout of its own (a tarball, perhaps unpacked inside another one)
        for folder in FOLDERS:
            for dirpath, _, names in os.walk(os.path.join(root, folder)):
                files += [os.path.relpath(os.path.join(dirpath, n), root) for n in names]
    return sorted(f for f in files if f.endswith(SUFFIXES))


def main():
    root = sys.argv[1]
    # The configuration was written for clang-format 14 (Debian 12); prefer it where several are
    # installed.
    tool = shutil.which("clang-format-14") or shutil.which("clang-format")
    if tool is None:
        print("clang-format not found: format not checked")
        return SKIP
    # Without it clang-format would silently check against its own default style.
    if not os.path.isfile(os.path.join(root, ".clang-format")):
        print("no .clang-format in " + root)
        return 1
    files = sources(root)
    if not files:
        print("no sources found under " + root)
        return 1
    r = subprocess.run([tool, "--dry-run", "--Werror"] + files, cwd=root, capture_output=True,
                       text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        bad = sorted({line.split(":", 1)[0] for line in r.stderr.splitlines()
                      if "-Wclang-format-violations" in line})
        print("%d file(s) not formatted: %s\nfix: clang-format -i %s"
              % (len(bad), ", ".join(bad), " ".join(bad)))
        return 1
    print("%d files formatted as .clang-format says" % len(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
