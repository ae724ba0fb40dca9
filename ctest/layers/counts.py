#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The shape counts docs/ARCHITECTURE.md's first screen quotes, taken from the files git tracks.

  python3 ctest/layers/counts.py [ROOT] [--long N]

Not a test (nothing here fails): a census, so that a count in the docs can be taken again.
  - functions taking a message buffer: definitions in runtime/ and jit/ with a writable
    `char *NAME, size_t` parameter whose NAME says why (why, err, msg, reason, error)
  - `return snprintf(why, ...), value;` and `return op2_mpi_say(msg, ...), value;`: a message
    written into a buffer and a status returned in one comma expression
  - direct writes to stderr (fprintf, vfprintf, fputs, fputc on stderr; write on STDERR_FILENO)
    in runtime/ and jit/ outside runtime/error.c, the one writer (runtime/fault.c's signal handler
    may only use write(2))
  - OP2_CHECK uses, op2_error( calls, OP2_ASSERT sites in runtime/
  - functions over N lines (default 100) in runtime/, jit/, base/ and tools/, from the line of
    the name to the closing brace, longest first
  - the jit boundary: runtime/'s #include lines of jit/ headers, by header, and jit/jit.h's lines
  - functions taking 8 or more parameters in runtime/, jit/ and base/ (definitions in .c files),
    and those taking 6 or more on an op_par_loop call's path (CALL_PATH's files), most first
(jit/'s figures include base/, the shared layer below jit/ and runtime/.)
"""
import os
import re
import subprocess
import sys


def tracked(root, *patterns):
    out = subprocess.run(['git', '-C', root, 'ls-files', *patterns], capture_output=True,
                         text=True, check=True).stdout.split()
    return [f for f in out if os.path.exists(os.path.join(root, f))]


def read(root, f):
    with open(os.path.join(root, f), encoding='utf-8', errors='replace') as h:
        return h.read()


DEFINITION = re.compile(r'^[A-Za-z_][\w \*]*?\b(\w+)\(([^;{)]*)\)\s*\{', re.M)
BUFFER = re.compile(r'(?<!const )\bchar \*\w*(why|err|msg|reason|error)\w*\s*,\s*size_t')
COMMA_RETURN = re.compile(r'return (snprintf|op2_mpi_say)\(\w*(why|err|msg|reason|error)\w*,'
                          r'(?:[^;]|\n)*?\),\s*[-\w]+;')
STDERR = re.compile(r'\b(v?fprintf\(stderr|fputs\([^;]*,\s*stderr\)|fputc\([^;]*,\s*stderr\)|'
                    r'write\(STDERR_FILENO)')


# A definition whose parameters may hold one level of parentheses (a function pointer's).
PARAMETERS = re.compile(r'^[A-Za-z_][\w \*]*?\b(\w+)\(((?:[^;{()]|\([^()]*\))*)\)\s*\{', re.M)
# The files an op_par_loop call passes through, from the public call to the loop's run.
CALL_PATH = ['runtime/par_loop.c', 'runtime/chain.c', 'runtime/chain_fuse.c', 'runtime/chain_mpi.c',
             'runtime/loop_site.c', 'runtime/loop.c', 'runtime/validate.c', 'runtime/checkpoint.c',
             'runtime/checkpoint_log.c', 'runtime/kernel_file.c', 'runtime/fortran/fortran_loop.c']


def parameter_counts(root, files):
    out = []
    for f in files:
        for m in PARAMETERS.finditer(read(root, f)):
            params = ' '.join(m.group(2).split())
            depth, n = 0, 0 if params in ('', 'void') else 1
            for ch in params:
                depth += {'(': 1, ')': -1}.get(ch, 0)
                n += ch == ',' and depth == 0
            out.append((n, f, m.group(1)))
    return sorted(out, key=lambda t: (-t[0], t[1], t[2]))


def message_buffers(root, files):
    found = []
    for f in files:
        for m in DEFINITION.finditer(read(root, f)):
            if BUFFER.search(m.group(2)):
                found.append('%s %s' % (f, m.group(1)))
    return found


def long_functions(root, files, limit):
    start = re.compile(r'^[A-Za-z_][\w \*\(\)]*?\b(\w+)\(')
    out = []
    for f in files:
        lines = read(root, f).split('\n')
        i = 0
        while i < len(lines):
            m = start.match(lines[i])
            if m and not lines[i].rstrip().endswith(';') and not lines[i].startswith(
                    ('typedef', 'static const', 'return')):
                j = i
                while j < len(lines) and not lines[j].rstrip().endswith(('{', ';')):
                    j += 1
                head = ''.join(lines[i:j + 1])
                if j < len(lines) and lines[j].rstrip().endswith('{') and \
                        '=' not in head.split('(')[0]:
                    k = j + 1
                    while k < len(lines) and lines[k] != '}':
                        k += 1
                    if k - i + 1 > limit:
                        out.append((k - i + 1, f, m.group(1)))
                    i = k + 1
                    continue
            i += 1
    return sorted(out, reverse=True)


def main():
    args = sys.argv[1:]
    limit = 100
    if '--long' in args:
        limit = int(args[args.index('--long') + 1])
        del args[args.index('--long'):args.index('--long') + 2]
    root = args[0] if args else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    runtime = tracked(root, 'runtime/*.c')
    jit = tracked(root, 'jit/*.c') + tracked(root, 'base/*.c')
    code = runtime + jit
    buffers = message_buffers(root, runtime)
    print('runtime functions taking a message buffer: %d (jit/: %d)' % (
        len(buffers), len(message_buffers(root, jit))))
    for b in buffers:
        print('    ' + b)
    commas = [sum(len(COMMA_RETURN.findall(read(root, f))) for f in files) for files in (runtime, jit)]
    print('return snprintf/op2_mpi_say(message, ...), value: %d (jit/: %d)' % tuple(commas))
    writes = ['%s:%d' % (f, n + 1) for f in code if f != 'runtime/error.c'
              for n, line in enumerate(read(root, f).split('\n')) if STDERR.search(line)]
    print('direct stderr writes outside runtime/error.c: %d %s' % (len(writes), ' '.join(writes)))
    text = ''.join(read(root, f) for f in runtime)
    print('OP2_CHECK uses: %d, op2_error( calls: %d, OP2_ASSERT sites: %d' % (
        len(re.findall(r'\bOP2_CHECK\(', text)) - len(re.findall(r'#define OP2_CHECK\(', text)),
        len(re.findall(r'\bop2_error\(', text)),
        len(re.findall(r'\bOP2_ASSERT\(', text))))
    longest = long_functions(root, code + tracked(root, 'tools/*.c'), limit)
    print('functions over %d lines: %d' % (limit, len(longest)))
    for n, f, name in longest:
        print('    %5d  %s  %s' % (n, f, name))
    jit_includes = {}
    for f in tracked(root, 'runtime/*.c', 'runtime/*.h'):
        for m in re.finditer(r'^\s*#\s*include\s*"(jit/[^"]+)"', read(root, f), re.M):
            jit_includes[m.group(1)] = jit_includes.get(m.group(1), 0) + 1
    print('runtime/ includes of jit/ headers: %d (%s); jit/jit.h: %d lines' % (
        sum(jit_includes.values()),
        ', '.join('%s %d' % kv for kv in sorted(jit_includes.items())) or 'none',
        read(root, 'jit/jit.h').count('\n')))
    counts = parameter_counts(root, code)
    wide = [t for t in counts if t[0] >= 8]
    print('functions taking 8 or more parameters (runtime/, jit/, base/): %d' % len(wide))
    for n, f, name in wide:
        print('    %5d  %s  %s' % (n, f, name))
    path = [t for t in counts if t[0] >= 6 and t[1] in CALL_PATH]
    print('functions taking 6 or more parameters on the call path: %d' % len(path))
    for n, f, name in path:
        print('    %5d  %s  %s' % (n, f, name))
    return 0


if __name__ == '__main__':
    sys.exit(main())
