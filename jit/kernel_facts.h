/* SPDX-License-Identifier: BSD-3-Clause */
/* What the later stages need of one kernel text, read once (kernel_facts.c explains why). */
#ifndef OP2_KERNEL_FACTS_H
#define OP2_KERNEL_FACTS_H

#include "base/c_lexis.h"
#include "jit/jit.h"
#include "kernel_params.h"

enum { OP2_FACTS_LOWERED = 4 };

typedef struct op2_kernel_facts {
  char *text;  /* the kernel text (the record's copy) */
  char *name;  /* the kernel's name in it */
  char *blank; /* the text with comments and literals blanked (op2_c_blank): the same offsets */
  /* its parameters (op2_kernel_params_parse): params_rc OP2_OK, or OP2_ERR_ARG when they could
   * not be read (params_why says why) */
  int params_rc;
  op2_jit_error params_why;
  op2_kernel_param params[OP2_PARAMS_MAX];
  int nparams;
  /* the identifiers of its code, each once, sorted (a member's name after . or -> is not one:
   * it is no name of the text's own), pointing into `blank` */
  struct op2_word {
    const char *p;
    int len;
  } * words;
  int nwords;
  op2_c_macros macros; /* the object-like macros it defines and undefines (base/c_lexis.h) */
  bool prints; /* a name of its code holds a standard output call's (op2_kernel_prints, jit.h) */
  /* its code uses what C compilers accept with another meaning than C++'s: `auto` (a deduced
   * type in C++, an int in C and TinyCC, silently); NULL when it does not. Such a kernel goes to
   * the C++ tier only (ladder.c); any other C++ reaches it by a C compiler's rejection. */
  const char *needs_cxx;
  /* the text as the generated C file holds it (op2_kernel_text_for_c), for the last few
   * variants of what that depends on besides the text and name: rewrite_std and the names of
   * the loop's constants (their key) */
  struct {
    uint64_t key;
    char *text;
  } lowered[OP2_FACTS_LOWERED];
  int nlowered;
} op2_kernel_facts;

/* The facts of kernel `name` in `text`, read once: the engine keeps the records of the last
 * OP2_FACTS_KEPT texts (op2_jit_destroy frees them), and a later loop with the same text and name
 * gets its record again. Valid until the next call; NULL when out of memory (the engine's failure
 * is set). Called from the thread that makes the engine's requests, as every code generation
 * is. */
enum { OP2_FACTS_KEPT = 64 };
const op2_kernel_facts *op2_kernel_facts_of(op2_jit *jit, const char *text, const char *name);

/* op2_kernel_text_for_c (jit_internal.h) of `src` for `loop`, appended to `out`, made once per
 * text, loop name, rewrite_std and names of the loop's constants and kept with the text's facts:
 * a loop's scalar (TinyCC) and SIMD (optimised) files, and loops of one kernel, lower it once.
 * Out of memory: out->failed. */
void op2_kernel_text_for_c_kept(op2_jit *jit, const op2_loop_desc *loop, const char *src,
                                int rewrite_std, op2_buf *out);

/* Whether the text's code names `word` (an identifier, not a member's name). */
bool op2_kernel_facts_names(const op2_kernel_facts *facts, const char *word);

/* A record of its own (for callers without an engine: tests); NULL when out of memory. */
op2_kernel_facts *op2_kernel_facts_read(const char *text, const char *name);
void op2_kernel_facts_free(op2_kernel_facts *facts);

/* The engine's records, freed (op2_jit_destroy). */
typedef struct op2_facts_table op2_facts_table;
void op2_facts_table_free(op2_facts_table *table);

#endif
