/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-site table's types (loop_site.c), held by the context: its functions are in loop.h. */
#ifndef OP2_RUNTIME_LOOP_SITE_H
#define OP2_RUNTIME_LOOP_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "op2.h"

typedef struct op2_loop op2_loop;

/* A call site's loop (loop_site.c): op_par_loop's kernel, name and set pointers and its
 * arguments' identities lead to the loop the site's last call used, without reading the text. */
typedef struct op2_loop_site {
  uint64_t key; /* of the pointers and argument identities; 0: an empty slot */
  const char *kernel, *name;
  op_set set;
  op2_loop *loop; /* NULL: a site checked when its call was queued, no loop made yet */
  /* without a loop: the arguments it was checked with (their type strings read-only), so that
   * its next calls, queued before the first one has run, are not checked again (chain.c) */
  op_arg *checked;
  int nargs;
  bool text_fixed;  /* kernel and name lie in read-only memory: never compared */
  bool types_fixed; /* so do the loop's argument type strings */
} op2_loop_site;

typedef struct op2_loop_sites {
  op2_loop_site *slots; /* open addressing, a power of two */
  size_t cap, used;
  int objects; /* loaded objects whose read-only segments hold fixed strings (loop_site.c) */
  /* calls that found their loop here, and those that did not (a queued call: when queued) */
  unsigned long hits, misses;
  /* finds whose kernel text was compared with the loop's (a site whose strings may change):
   * a test's check that a queued call's replay compares no text (chain.c) */
  unsigned long compares;
  /* queued calls checked when queued (their site had no loop, nor was checked before): a
   * test's check that a site is checked once, not at each call */
  unsigned long checks;
  /* bumped whenever the sites are forgotten, which every free of a loop does: a loop a queued
   * call carries (chain.c) is still alive while the epoch it was found in lasts */
  unsigned long epoch;
} op2_loop_sites;

#endif /* OP2_RUNTIME_LOOP_SITE_H */
