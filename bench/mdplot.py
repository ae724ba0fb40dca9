# SPDX-License-Identifier: BSD-3-Clause
"""Shared by the bench scripts' --plot: read a Markdown table (one the script printed, kept in a
doc) and draw an SVG with gnuplot (Debian: gnuplot-nox). Standard library only."""
import os
import re
import shutil
import subprocess


def read_table(path, first_header):
    """The rows (lists of cell strings) of the first Markdown table in PATH whose header row
    starts with the cell FIRST_HEADER; the header row first."""
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith('|'):
                if rows:
                    break
                continue
            cells = [c.strip() for c in line.strip('|').split('|')]
            if not rows and cells[0] != first_header:
                continue
            if set(''.join(cells)) <= set('-: '):
                continue  # the separator row
            rows.append(cells)
    if not rows:
        raise SystemExit('%s: no table whose first column is "%s"' % (path, first_header))
    return rows


def number(cell):
    """The first number in a cell ('48.8 (49)' -> 48.8, '21,539' -> 21539, '-' -> None)."""
    m = re.search(r'[0-9][0-9,]*\.?[0-9]*(e[+-]?[0-9]+)?', cell)
    return float(m.group(0).replace(',', '')) if m else None


def gnuplot(script, data, svg, size=(900, 420)):
    """Writes DATA (text) beside SVG as .dat, runs gnuplot's SCRIPT (in which '@DATA@' names that
    file and '@OUT@' the SVG) on an SVG terminal of SIZE pixels. Raises SystemExit when gnuplot
    is missing, fails or takes more than a minute."""
    exe = shutil.which('gnuplot')
    if not exe:
        raise SystemExit('no plot: gnuplot not found (apt-get install gnuplot-nox)')
    dat = os.path.splitext(svg)[0] + '.dat'
    with open(dat, 'w') as f:
        f.write(data)
    head = "set terminal svg size %d,%d dynamic font 'sans,11'\nset output '%s'\n" % (
        size[0], size[1], svg)
    try:
        p = subprocess.run([exe], input=head + script.replace('@DATA@', dat).replace('@OUT@', svg),
                           capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise SystemExit('gnuplot did not finish in 60 s')
    finally:
        os.remove(dat)
    if p.returncode != 0:
        raise SystemExit('gnuplot failed: %s' % p.stderr.strip())
    print('wrote %s' % svg)
