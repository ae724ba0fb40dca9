#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""docs/ARCHITECTURE.md's file map names every file of the library's layers.

Every .c and .h under base/, jit/ and runtime/ (subfolders included) must be named in the section
"## The file map": by its file name (`options.c`), or with its header as one name (`options.{c,h}`
names options.c and options.h). A file added, moved or renamed without its line in the map fails
the check, naming the file.

Usage: check_file_map.py SOURCE_ROOT
"""

import os
import re
import sys

FOLDERS = ["base", "jit", "runtime"]


def file_map(root):
    with open(os.path.join(root, "docs", "ARCHITECTURE.md"), encoding="utf-8") as f:
        doc = f.read()
    start = doc.index("## The file map")
    end = doc.find("\n## ", start + 1)
    return doc[start:end if end >= 0 else len(doc)]


def named(text):
    """The file names the text names, with STEM.{c,h} read as STEM.c and STEM.h."""
    names = set()
    for m in re.finditer(r"(?<![\w.])([\w-]+)\.(?:\{c,h\}|\{h,c\}|c|h)(?![\w])", text):
        stem, whole = m.group(1), m.group(0)
        if whole.endswith("}"):
            names |= {stem + ".c", stem + ".h"}
        else:
            names.add(whole)
    return names


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = sys.argv[1]
    names = named(file_map(root))
    missing = []
    for top in FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")) and f not in names:
                    missing.append(os.path.relpath(os.path.join(dirpath, f), root))
    for m in sorted(missing):
        print(f"not in docs/ARCHITECTURE.md's file map: {m}")
    print(f"{len(missing)} files of {', '.join(f + '/' for f in FOLDERS)} missing from the file map")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
