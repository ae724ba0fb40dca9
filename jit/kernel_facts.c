/* SPDX-License-Identifier: BSD-3-Clause */
/* One kernel text is read by several stages for every loop that uses it: the parameter check
 * (kernel_params.c), the component-major copy for SIMD groups and the count of additions
 * (kernel_lanes.c). Each of them blanked the whole text and parsed the parameter list again:
 * for a kernel found with its calling file's context (MG-CFD: 200 KB of text, 2 to 4 loops a
 * kernel) that was 5 passes over the text per loop, on every run, warm ones too (the cache key
 * is the generated file's hash). The facts are now read once per text and name and kept by the
 * engine. */
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t on the stack */
#include <xxhash.h>

#include "base/c_lexis.h"
#include "jit_internal.h"
#include "kernel_facts.h"

struct op2_facts_table {
  XXH128_hash_t *keys; /* of each record's name and text */
  op2_kernel_facts **facts;
  int n, cap;
};

op2_kernel_facts *op2_kernel_facts_read(const char *text, const char *name) {
  op2_kernel_facts *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  f->text = strdup(text), f->name = strdup(name);
  f->blank = f->text ? op2_c_blank(f->text) : NULL;
  if (!f->text || !f->name || !f->blank) {
    op2_kernel_facts_free(f);
    return NULL;
  }
  f->params_rc =
      op2_kernel_params_parse_blank(f->blank, name, f->params, &f->nparams, &f->params_why);
  if (f->params_rc == OP2_ERR_MEM) {
    op2_kernel_facts_free(f);
    return NULL;
  }
  return f;
}

void op2_kernel_facts_free(op2_kernel_facts *f) {
  if (!f) return;
  free(f->text), free(f->name), free(f->blank), free(f);
}

static XXH128_hash_t key_of(const char *text, const char *name) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, name, strlen(name) + 1); /* its NUL separates the two */
  XXH3_128bits_update(&state, text, strlen(text));
  return XXH3_128bits_digest(&state);
}

const op2_kernel_facts *op2_kernel_facts_of(op2_jit *jit, const char *text, const char *name) {
  XXH128_hash_t key = key_of(text, name);
  op2_facts_table *t = jit->facts;
  for (int i = 0; t && i < t->n; i++)
    if (XXH128_isEqual(t->keys[i], key)) return t->facts[i];
  if (!t && !(t = jit->facts = calloc(1, sizeof *t))) goto no_memory;
  if (t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 16;
    XXH128_hash_t *keys = realloc(t->keys, (size_t)cap * sizeof *keys);
    if (keys) t->keys = keys;
    op2_kernel_facts **facts = keys ? realloc(t->facts, (size_t)cap * sizeof *facts) : NULL;
    if (!facts) goto no_memory;
    t->facts = facts, t->cap = cap;
  }
  op2_kernel_facts *f = op2_kernel_facts_read(text, name);
  if (!f) goto no_memory;
  t->keys[t->n] = key, t->facts[t->n++] = f;
  return f;
no_memory:
  op2_jit_fail(jit, OP2_ERR_MEM, "out of memory reading the kernel '%s'", name);
  return NULL;
}

void op2_facts_table_free(op2_facts_table *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) op2_kernel_facts_free(t->facts[i]);
  free(t->keys), free(t->facts), free(t);
}
