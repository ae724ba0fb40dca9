#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Installs the Fortran API's .mod files (meson does not install them): every op2_fortran_*.mod
of the library's build directory into DESTDIR/PREFIX/INCLUDE_SUBDIR.

Usage: install_mods.py MOD_BUILD_DIR INCLUDE_SUBDIR (meson's install script environment)
"""
import glob
import os
import shutil
import sys

src, sub = sys.argv[1], sys.argv[2]
prefix = os.environ.get("MESON_INSTALL_DESTDIR_PREFIX") or os.environ["MESON_INSTALL_PREFIX"]
dest = os.path.join(prefix, sub) if not os.path.isabs(sub) else (
    os.environ.get("DESTDIR", "") + sub)
os.makedirs(dest, exist_ok=True)
mods = sorted(glob.glob(os.path.join(src, "op2_fortran_*.mod")))
if not mods:
    sys.exit("install_mods.py: no op2_fortran_*.mod in " + src)
for m in mods:
    shutil.copy2(m, dest)
    print("Installing", os.path.basename(m), "to", dest)
