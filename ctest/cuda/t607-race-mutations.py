#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The race checker must see what a serialised emulator hides. Each case copies templates/ to a
temporary directory, breaks the hierarchical template in one way a GPU would punish (a barrier
removed, increments made ignoring thread colours, blocks of one launch that are not of one block
colour, threads reaching different barriers or leaving while others wait), runs a loop test on
cuda-emu with OP2_CUDA_EMU_CHECK=races through OP2_TEMPLATE_DIR, and expects the error that names
the race. The unmutated copy must pass, and a mutation the checker does not look for must pass
without it (so the error is the checker's, not a wrong answer).

usage: t607-race-mutations.py TEMPLATES_DIR CACHE_DIR LOOP_TEST [LOOP_TEST...]
"""
import os
import shutil
import subprocess
import sys
import tempfile

HIER = "cuda/hierarchical.cu"
COLOUR_BARRIER = "      }\n      __syncthreads();\n"
STAGE_BARRIER = "  OP2_STAGE_IN\n  __syncthreads();\n"
BLOCK = "OP2_LDG(op2_p.blkmap[op2_p.block_offset + (int)blockIdx.x])"
TURN = "if (op2_col == op2_c)"

SHARED_RACE = "data race on shared memory"
GLOBAL_RACE = "data race on global memory"

# name, (old, new) edits of cuda/hierarchical.cu, what the error must say
MUTATIONS = [
    ("no barrier between thread colours", [(COLOUR_BARRIER, "      }\n")], SHARED_RACE),
    ("no barrier after staging", [(STAGE_BARRIER, "  OP2_STAGE_IN\n")], SHARED_RACE),
    ("increments ignoring thread colours", [(TURN, "if (op2_col >= 0 && op2_c == 0)")],
     SHARED_RACE),
    ("a missing block colour (blocks of a launch in plan order)",
     [(BLOCK, "(op2_p.block_offset + (int)blockIdx.x)")], GLOBAL_RACE),
    ("threads at different barriers",
     [(STAGE_BARRIER,
       "  OP2_STAGE_IN\n  if (threadIdx.x % 2 == 0)\n    __syncthreads();\n  else\n"
       "    __syncthreads();\n")],
     "barrier divergence in block"),
    ("a thread leaving while others wait",
     [("  OP2_DYNAMIC_SHARED(op2_smem);\n",
       "  OP2_DYNAMIC_SHARED(op2_smem);\n  if (threadIdx.x == 1) return;\n")],
     "exits while thread"),
]


def mutated(root, edits):
    d = tempfile.mkdtemp(prefix="op2-mutant-", dir=root)
    shutil.copytree(TEMPLATES, d, dirs_exist_ok=True)
    path = os.path.join(d, HIER)
    with open(path) as f:
        text = f.read()
    for old, new in edits:
        if text.count(old) != 1:
            sys.exit(f"FAIL: the template no longer has exactly one {old!r}: update this test")
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)
    return d


def run(exe, template_dir, check, cache):
    env = dict(os.environ, OP2_BACKEND="cuda-emu", OP2_CUDA_STRATEGY="hierarchical",
               OP2_CUDA_EMU_CHECK=check, OP2_CACHE_DIR=cache)
    env.pop("OP2_CUDA_EMU_ORDER", None)
    if template_dir:
        env["OP2_TEMPLATE_DIR"] = template_dir
    p = subprocess.run([exe], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=600)
    return p.returncode, p.stdout


TEMPLATES, CACHE, EXES = sys.argv[1], sys.argv[2], sys.argv[3:]
failures = 0
os.makedirs(CACHE, exist_ok=True)
with tempfile.TemporaryDirectory(dir=CACHE) as root:
    for exe in EXES:
        name = os.path.basename(exe)
        rc, out = run(exe, mutated(root, []), "races", os.path.join(root, "cache"))
        failures += rc != 0
        print(f"{'ok  ' if rc == 0 else 'FAIL'} {name}, unmutated templates: rc {rc}")
        if rc != 0:
            print(out[-2000:])
        for what, edits, expect in MUTATIONS:
            rc, out = run(exe, mutated(root, edits), "races", os.path.join(root, "cache"))
            ok = rc != 0 and expect in out and "in the kernel of loop '" in out
            ok = ok and "generated .cu" in out
            failures += not ok
            print(f"{'ok  ' if ok else 'FAIL'} {name}, {what}: rc {rc}")
            for line in out.splitlines():
                if "cuda-emu:" in line:
                    print("     " + line[line.index("cuda-emu:"):])
            if not ok:
                print(out[-2000:])
    # Without the checker the serialised emulator computes the right answer: only the checker
    # tells that these templates are wrong.
    for what, edits, _ in MUTATIONS[2:4]:
        rc, out = run(EXES[0], mutated(root, edits), "off", os.path.join(root, "cache"))
        ok = rc == 0
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {what}, checker off: passes (rc {rc})")
sys.exit(1 if failures else 0)
