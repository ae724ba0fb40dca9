#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The library's layer order, checked from its #include lines.

The folders are layers: include/ (the user API) and templates/ (plain files embedded in generated
code) below base/ (what jit/ and runtime/ share and neither owns: status codes, OP2_CALL, the
failure record, the loop description, buffers, the clock, paths, file I/O, a loop's CUDA layout),
below jit/ (loop description -> source text -> compiled kernel, through a request -> result API
that knows nothing of the context, loops, statistics or MPI: jit/jit.h), below runtime/ (the
mesh, plans, execution), with runtime/mpi/, runtime/hdf5/ and runtime/cuda/ on top of runtime/.
base/ includes nothing of jit/ or runtime/; jit/ includes nothing of runtime/. ALLOWED says which
folder may include from which; anything else is a violation, and so is a cycle between folders. <mpi.h> may be
included only by the folders in MPI_FACING, so a file elsewhere never depends on MPI, and a file
elsewhere makes no MPI call either (it asks runtime/mpi/ through runtime/distributed.h).

No header includes itself through others (runtime/op2_impl.h and runtime/backend.h once included
each other): a file cycle fails the check too.

Every quoted include names its file from the project root ("jit/jit.h", "runtime/backend.h") or
beside the including file; one that climbs ("../") fails the check, in the library and in its
tests, tools, samples and benchmarks alike (meson gives them the project root as an include
directory).

jit/ has a public face (jit/jit.h: config, request -> result, poll/cancel, an opaque kernel read
through accessors) and internals (the kernel's fields, the engine, tiers, builds, the background
tier, the emitter, the cache). A file of runtime/ includes jit/jit.h and no other jit/ header
(JIT_FACE), and reaches no private header (JIT_PRIVATE) through the headers it includes either. Every target (C, CUDA, cuda-emu) is reached through
op2_jit_kernel(request): no file of runtime/ calls a code generator or a compiler itself
(JIT_WORK_CALL_RE).

Only runtime/error.c writes to stderr (and runtime/fault.c's signal handler, with write(2)): any
other write to stderr in base/, jit/ or runtime/ is a violation (STDERR_WRITE_RE).

Any violation, folder cycle or file cycle fails the check (issue 9 emptied its list of known exceptions; there
is none to add).

Usage: check_layers.py SOURCE_ROOT
"""

import os
import re
import sys

LIBRARY_FOLDERS = ["include", "templates", "base", "jit", "runtime", "tools"]

# folder -> folders it may include from (besides itself). Subfolders of templates/ and runtime/
# are layers of their own.
ALLOWED = {
    "include": set(),
    "templates": set(),
    "templates/c": set(),
    "templates/cuda": set(),
    "base": {"include", "templates/cuda"},
    "jit": {"include", "templates", "templates/c", "templates/cuda", "base"},
    "runtime": {"include", "base", "jit", "templates"},
    "runtime/mpi": {"include", "base", "jit", "runtime"},
    "runtime/hdf5": {"include", "base", "runtime", "runtime/mpi"},
    "runtime/cuda": {"include", "base", "jit", "runtime", "templates/cuda"},
    "runtime/fortran": {"include", "base", "jit", "runtime"},
    "tools": {"include", "base", "jit"},
}
MPI_FACING = {"runtime/mpi", "runtime/hdf5"}
# OP2's own MPI header for programs (`op_lib_mpi.h`): OP2's MPI programs rely on it bringing
# <mpi.h> along. No library file includes it, so the library itself still never sees MPI here.
MPI_FACING_FILES = {"include/op_lib_mpi.h"}

# Every folder whose C and C++ files must not climb out of their folder to include.
CLIMB_FOLDERS = LIBRARY_FOLDERS + ["ctest", "bench", "samples"]
C_SUFFIXES = (".c", ".h", ".cu", ".cpp", ".hpp", ".cc")
# jit/'s internals: runtime/ reaches none of them, not even through another jit/ header.
JIT_PRIVATE = {"jit/jit_internal.h", "jit/jit_cuda.h"}
PRIVATE_TO_JIT_FOR = ("runtime",)
# The one jit/ header a file of runtime/ (any subfolder) names.
JIT_FACE = "jit/jit.h"

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
# An MPI function called (MPI_Allreduce(...), MPI_Comm_free(...)): constants such as MPI_VERSION
# and the library's own OP2_MPI(...) do not match.
MPI_CALL_RE = re.compile(r"\bMPI_[A-Z][a-z_]+\s*\(")
# Comments and string literals, removed before looking for calls (a message may name one).
COMMENT_OR_STRING_RE = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"', re.S)


def folder_of(rel):
    return os.path.dirname(rel)


def sources(root):
    for top in LIBRARY_FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cu")):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def resolve(root, rel, name):
    """The included file relative to root, or None when it is not one of ours."""
    for base in (os.path.dirname(rel), "include", ""):
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None


def edges(root):
    for rel in sources(root):
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            for line in f:
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                if m.group(1) == "<":
                    if m.group(2) == "mpi.h":
                        yield rel, "<mpi.h>"
                    continue
                target = resolve(root, rel, m.group(2))
                if target is not None:
                    yield rel, target


def climbs(root):
    """(file, line number, name) of every quoted include that climbs with "../"."""
    for top in CLIMB_FOLDERS:
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if not f.endswith(C_SUFFIXES):
                    continue
                rel = os.path.relpath(os.path.join(dirpath, f), root)
                with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as src:
                    for n, line in enumerate(src, 1):
                        m = INCLUDE_RE.match(line)
                        if m and m.group(1) == '"' and "../" in m.group(2):
                            yield rel, n, m.group(2)


def mpi_calls(root):
    """(file, MPI function) for every MPI call in a library file outside MPI_FACING."""
    for rel in sources(root):
        if folder_of(rel) in MPI_FACING:
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            code = COMMENT_OR_STRING_RE.sub(" ", f.read())
        for name in sorted({m.group(0).rstrip("( \t\n") for m in MPI_CALL_RE.finditer(code)}):
            yield rel, name


# Generating and compiling code is jit/'s: runtime/ asks op2_jit_kernel(request) for every target
# (C, CUDA, cuda-emu) and calls no code generator or compiler of its own.
JIT_WORK_CALL_RE = re.compile(r"\bop2_(?:codegen_\w+|cuda_obtain_\w+|nvrtc_\w+|ptxas_\w+|"
                              r"tcc_compile|cc_compile|constants_used)\s*\(")


def jit_work_calls(root):
    """(runtime file, function) for every code generator or compiler runtime/ calls itself."""
    for rel in sources(root):
        if not rel.startswith("runtime/"):
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            code = COMMENT_OR_STRING_RE.sub(" ", f.read())
        for name in sorted({m.group(0).rstrip("( \t\n") for m in JIT_WORK_CALL_RE.finditer(code)}):
            yield rel, name


# One way to say it: the library writes to stderr in runtime/error.c only (the default handler,
# op2_diag, op2_error_final), and in runtime/fault.c's signal handler, which may only write(2).
STDERR_WRITERS = {"runtime/error.c", "runtime/fault.c"}
STDERR_WRITE_RE = re.compile(r"\b(?:v?fprintf|fputs|fputc|fwrite|perror)\s*\([^;]*?\bstderr\b|"
                             r"\bperror\s*\(|\b(?:write|dprintf|vdprintf)\s*\(\s*"
                             r"(?:STDERR_FILENO|2)\b", re.S)


def stderr_writes(root):
    """(file, line) for every write to stderr in base/, runtime/, jit/ outside STDERR_WRITERS."""
    for rel in sources(root):
        if not rel.startswith(("base/", "runtime/", "jit/")) or rel in STDERR_WRITERS:
            continue
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            text = f.read()
        # blank comments and strings but keep the line breaks, so lines stay countable
        code = COMMENT_OR_STRING_RE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)
        for m in STDERR_WRITE_RE.finditer(code):
            yield rel, code.count("\n", 0, m.start()) + 1


def private_reached(root):
    """(runtime file, chain of includes) for every runtime/ file that reaches a JIT_PRIVATE header."""
    includes = {}
    for src, dst in edges(root):
        if dst != "<mpi.h>":
            includes.setdefault(src, []).append(dst)
    for rel in sources(root):
        if not rel.startswith(tuple(f + "/" for f in PRIVATE_TO_JIT_FOR)):
            continue
        stack, seen = [(rel, [rel])], {rel}
        while stack:
            node, chain = stack.pop()
            for nxt in includes.get(node, ()):
                if nxt in JIT_PRIVATE:
                    yield rel, chain + [nxt]
                    stack = []
                    break
                if nxt not in seen and nxt.startswith(("jit/", "runtime/")):
                    seen.add(nxt)
                    stack.append((nxt, chain + [nxt]))


def violations(root):
    found = {f"{src} calls {name}" for src, name in mpi_calls(root)}
    found |= {f'{src}:{n} climbs: #include "{name}" (name it from the project root)'
              for src, n, name in climbs(root)}
    found |= {f"{src} calls {name}: code generation and compiles are asked of op2_jit_kernel"
              for src, name in jit_work_calls(root)}
    found |= {f"{src} reaches jit's private {chain[-1]}: {' -> '.join(chain)}"
              for src, chain in private_reached(root)}
    found |= {f"{src}:{n} writes to stderr: say it through runtime/error.c (op2_error, op2_diag, "
              f"op2_error_final)" for src, n in stderr_writes(root)}
    graph = {}
    for src, dst in edges(root):
        a = folder_of(src)
        if dst == "<mpi.h>":
            if a not in MPI_FACING and src not in MPI_FACING_FILES:
                found.add(f"{src} -> {dst}")
            continue
        b = folder_of(dst)
        if a == b:
            continue
        graph.setdefault(a, set()).add(b)
        if b not in ALLOWED.get(a, set()):
            found.add(f"{src} -> {dst}")
        elif b == "jit" and src.startswith("runtime/") and dst != JIT_FACE:
            found.add(f"{src} -> {dst}: runtime/ includes {JIT_FACE} only of jit/")
    return found, graph


def folder_cycles(graph):
    """Every folder that lies on a cycle of the folder graph."""
    on_cycle = set()
    for start in graph:
        stack, seen = [start], set()
        while stack:
            n = stack.pop()
            for m in graph.get(n, ()):
                if m == start:
                    on_cycle.add(start)
                elif m not in seen:
                    seen.add(m)
                    stack.append(m)
    return on_cycle


def file_cycles(root):
    """One include cycle between files (a header including, through others, itself), or None."""
    graph = {}
    for src, dst in edges(root):
        if dst != "<mpi.h>":
            graph.setdefault(src, set()).add(dst)
    state, path = {}, []

    def visit(n):
        state[n] = "open"
        path.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == "open":
                return path[path.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        path.pop()
        state[n] = "done"
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    found, graph = violations(sys.argv[1])
    for v in sorted(found):
        print(f"layer violation: {v}")
    cycles = folder_cycles(graph)
    for c in sorted(cycles):
        print(f"folder on an include cycle: {c}")
    cycle = file_cycles(sys.argv[1])
    if cycle:
        print("files on an include cycle: " + " -> ".join(cycle))
    print(f"{len(found)} violations, {len(cycles)} folders on include cycles, "
          f"{1 if cycle else 0} file cycles")
    return 1 if found or cycles or cycle else 0


if __name__ == "__main__":
    sys.exit(main())
