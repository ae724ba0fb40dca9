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
  XXH128_hash_t keys[OP2_FACTS_KEPT]; /* of each record's name and text */
  op2_kernel_facts *facts[OP2_FACTS_KEPT];
  int n, next; /* records kept; the one the next new record replaces once all are in use */
};

static int compare_word(const void *a, const void *b) {
  const struct op2_word *x = a, *y = b;
  int c = memcmp(x->p, y->p, (size_t)(x->len < y->len ? x->len : y->len));
  return c ? c : x->len - y->len;
}

/* The identifiers of the blanked code, sorted, each once: -1 when out of memory. */
static int read_words(op2_kernel_facts *f) {
  int cap = 0, n = 0;
  struct op2_word *words = NULL;
  char prev = ' ', before_prev = ' ';
  for (const char *p = f->blank; *p;) {
    if (op2_ident_char(*p) && !(*p >= '0' && *p <= '9')) {
      const char *start = p;
      while (op2_ident_char(*p)) p++;
      /* a struct member (after . or ->) is not the text's own name; after a plain > it may be */
      if (prev != '.' && !(prev == '>' && before_prev == '-')) {
        if (n == cap) {
          cap = cap ? 2 * cap : 256;
          struct op2_word *w = realloc(words, (size_t)cap * sizeof *w);
          if (!w) {
            free(words);
            return -1;
          }
          words = w;
        }
        words[n++] = (struct op2_word){start, (int)(p - start)};
      }
      before_prev = prev, prev = 'a';
    } else if (*p >= '0' && *p <= '9') { /* a number, its suffixes and exponent too */
      while (op2_ident_char(*p) || *p == '.') p++;
      before_prev = prev, prev = '0';
    } else {
      if (*p != ' ' && *p != '\n' && *p != '\t' && *p != '\r') before_prev = prev, prev = *p;
      p++;
    }
  }
  if (n) qsort(words, (size_t)n, sizeof *words, compare_word);
  int kept = 0;
  for (int i = 0; i < n; i++)
    if (!kept || compare_word(&words[kept - 1], &words[i]) != 0) words[kept++] = words[i];
  f->words = words, f->nwords = kept;
  return 0;
}

/* Whether a name holds a standard output call's: printf, fprintf, op_printf, std::cout... A kernel
 * printing while it is debugged runs at once under lazy execution, so that its lines come out
 * between the program's own (runtime/chain.c). */
static bool names_output(const op2_kernel_facts *f) {
  static const char *const calls[] = {"printf", "puts", "putc", "perror", "fwrite", "cout", "cerr"};
  for (int i = 0; i < f->nwords; i++)
    for (size_t c = 0; c < sizeof calls / sizeof *calls; c++)
      if (memmem(f->words[i].p, (size_t)f->words[i].len, calls[c], strlen(calls[c]))) return true;
  return false;
}

bool op2_kernel_prints(op2_jit *jit, const char *text, const char *name) {
  const op2_kernel_facts *f = jit && text && name ? op2_kernel_facts_of(jit, text, name) : NULL;
  if (jit && !f) op2_jit_failure_clear(jit); /* out of memory: taken to print, runs at once */
  return !f || f->prints;
}

bool op2_kernel_facts_names(const op2_kernel_facts *f, const char *word) {
  struct op2_word key = {word, (int)strlen(word)};
  return f->nwords && bsearch(&key, f->words, (size_t)f->nwords, sizeof key, compare_word);
}

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
  if (f->params_rc == OP2_ERR_MEM || read_words(f) != 0) {
    op2_kernel_facts_free(f);
    return NULL;
  }
  op2_c_macros_read(f->blank, &f->macros);
  if (f->macros.failed) {
    op2_kernel_facts_free(f);
    return NULL;
  }
  f->prints = names_output(f);
  f->needs_cxx = op2_kernel_facts_names(f, "auto") ? "it uses `auto`" : NULL;
  return f;
}

void op2_kernel_facts_free(op2_kernel_facts *f) {
  if (!f) return;
  for (int i = 0; i < f->nlowered; i++) free(f->lowered[i].text);
  op2_c_macros_free(&f->macros);
  free(f->text), free(f->name), free(f->blank), free(f->words), free(f);
}

static XXH128_hash_t key_of(const char *text, const char *name) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, name, strlen(name) + 1); /* its NUL separates the two */
  XXH3_128bits_update(&state, text, strlen(text));
  return XXH3_128bits_digest(&state);
}

static op2_kernel_facts *facts_of(op2_jit *jit, const char *text, const char *name) {
  XXH128_hash_t key = key_of(text, name);
  op2_facts_table *t = jit->facts;
  for (int i = 0; t && i < t->n; i++)
    if (XXH128_isEqual(t->keys[i], key)) return t->facts[i];
  op2_kernel_facts *f = op2_kernel_facts_read(text, name);
  if (!t) t = jit->facts = calloc(1, sizeof *t);
  if (!f || !t) {
    op2_kernel_facts_free(f);
    op2_jit_fail(jit, OP2_ERR_MEM, "out of memory reading the kernel '%s'", name);
    return NULL;
  }
  int slot = t->n;
  if (t->n < OP2_FACTS_KEPT) {
    t->n++;
  } else { /* all in use: the oldest goes */
    slot = t->next, t->next = (slot + 1) % OP2_FACTS_KEPT;
    op2_kernel_facts_free(t->facts[slot]);
  }
  t->keys[slot] = key, t->facts[slot] = f;
  return f;
}

const op2_kernel_facts *op2_kernel_facts_of(op2_jit *jit, const char *text, const char *name) {
  return facts_of(jit, text, name);
}

void op2_facts_table_free(op2_facts_table *t) {
  if (!t) return;
  for (int i = 0; i < t->n; i++) op2_kernel_facts_free(t->facts[i]);
  free(t);
}

/* What op2_kernel_text_for_c depends on besides the text and the loop's name. */
static uint64_t lowered_key(const op2_loop_desc *loop, int rewrite_std) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, &rewrite_std, sizeof rewrite_std);
  for (int c = 0; c < loop->nconsts; c++)
    XXH3_64bits_update(&state, loop->consts[c]->name, strlen(loop->consts[c]->name) + 1);
  return XXH3_64bits_digest(&state);
}

void op2_kernel_text_for_c_kept(op2_jit *jit, const op2_loop_desc *loop, const char *src,
                                int rewrite_std, op2_buf *out) {
  op2_kernel_facts *f = loop ? facts_of(jit, src, loop->name) : NULL;
  uint64_t key = loop ? lowered_key(loop, rewrite_std) : 0;
  for (int i = 0; f && i < f->nlowered; i++)
    if (f->lowered[i].key == key) {
      op2_buf_append(out, f->lowered[i].text, strlen(f->lowered[i].text));
      return;
    }
  if (loop && !f) op2_jit_failure_clear(jit); /* out of memory there: lowered here all the same */
  op2_buf lowered = {0};
  op2_kernel_text_for_c(loop, src, rewrite_std, &lowered);
  if (lowered.failed) {
    out->failed = 1;
    op2_buf_free(&lowered);
    return;
  }
  op2_buf_append(out, lowered.data, lowered.len);
  if (f && f->nlowered < OP2_FACTS_LOWERED) {
    f->lowered[f->nlowered].key = key;
    f->lowered[f->nlowered++].text = lowered.data; /* the record owns it now */
    return;
  }
  op2_buf_free(&lowered);
}
