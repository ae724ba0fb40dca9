/* SPDX-License-Identifier: BSD-3-Clause */
/* The engine behind op2_jit (jit.h), private to jit/: its configuration, the compilers it found,
 * the background tier and the failure its caller reads. */
#ifndef OP2_JIT_ENGINE_H
#define OP2_JIT_ENGINE_H

#include "cache_entry.h"
#include "jit.h"

struct op2_jit {
  op2_jit_config cfg;
  op2_tier tcc, cc, cxx;
  int cc_usable;
  int cxx_state; /* the C++ tier (cxx.c), set up when first needed: 0 not yet, 1 usable, -1 none */
  int told_unwritable; /* the warning that the cache cannot be written is given once */
  int node_follower;   /* another process of this machine builds and stores optimised code */
  op2_background *background;
  op2_loaded_objects *loaded; /* the objects this engine loaded: see op2_load_object_fd */
  op2_jit_error failure;
};

/* The kernel's tier ladder (ladder.c): the caller's kernels were searched already; fills k from
 * the cache or a compile. Counted in *cnt. */
int op2_jit_obtain(op2_jit *jit, const op2_jit_request *rq, op2_jit_counters *cnt, op2_kernel *k,
                   const op2_generated *gen);
/* The key of generated source for a tier (compiler identity and flags). */
void op2_jit_tier_key(const op2_tier *t, const op2_generated *gen, op2_cache_key *key);
/* Fills a build request: into the cache entry when may_write, otherwise into a private
 * temporary directory removed once the object is loaded. */
void op2_jit_prepare_build(const op2_jit *jit, const op2_jit_request *rq, const op2_tier *t,
                           const op2_generated *gen, const char *entry, int may_write,
                           op2_build_request *req);
/* Makes a finished build the kernel's code (the previous code object is released). */
void op2_jit_adopt_build(op2_kernel *k, op2_build_result *res, op2_tier_id tier);
/* After the kernel runs TinyCC code: its optimised build into `entry` (may_write) queued on the
 * background tier, or, on a follower of its machine's builder, awaited from that builder. */
void op2_jit_upgrade_later(op2_jit *jit, const op2_jit_request *rq, op2_kernel *k,
                           const op2_generated *gen, const char *entry, int may_write);

#endif /* OP2_JIT_ENGINE_H */
