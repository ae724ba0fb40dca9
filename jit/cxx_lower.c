/* SPDX-License-Identifier: BSD-3-Clause */
/* OP2's kernels are C++, and a real application's (MG-CFD's, for one) are C with a few C++
 * habits: helpers taking `double &density`, `double(0.5)`, `struct vec3 {...};` used as `vec3`.
 * Each such kernel used to wait on its first call for the system C++ compiler (the cold start
 * docs/PERFORMANCE.md measures). Here
 * those habits become C with the same meaning, so TinyCC runs the first calls and the
 * optimising tier builds the rest in the background, as for C kernels:
 *  - a reference parameter `T &x` of a function defined or declared at file scope becomes
 *    `T *x`, each use of x in its body `(*x)`, and each argument passed to it
 *    `op2_cxx_ref(T, a)`, which the prelude makes `_Generic((a), T: &(a))`: the address of the
 *    same object, and a compile error when `a` is not an lvalue of type T (where C++ would have
 *    bound a converted temporary). The lowered text is C++ too (the C++ tier builds it when
 *    TinyCC rejects it for another reason): there the macro is `&(a)`;
 *  - `T(e)` for an arithmetic type keyword T, where an expression stands, becomes `((T)(e))`;
 *  - `struct S {...};` at file scope gets `typedef struct S S;` after it.
 * It is all or nothing and errs on the side of refusing: any construct not surely understood
 * (a reference parameter that a nested declaration may shadow, one named in a macro, a call
 * split by a preprocessor line, `&&`, default arguments, C++ keywords...) leaves the whole text
 * unchanged, which TinyCC rejects and the C++ tier builds as before. No newline is added or
 * removed, so compiler messages keep the user's line numbers. */
#include "cxx_lower.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef op2_tok tok;

/* Short names for the token helpers (kernel_tokens.h) this file uses on every line. */
static int is(const tok *t, const char *s) {
  return op2_tok_is(t, s);
}
static int is_word(const tok *t, const char *s) {
  return op2_tok_is_word(t, s);
}
static int same(const tok *a, const char *p, int len) {
  return a->len == len && strncmp(a->p, p, (size_t)len) == 0;
}
static int ident_char(char c) {
  return op2_ident_char(c);
}

/* A function with reference parameters: its name, parameter count and which are references
 * (the same for every declaration of the name), and each reference's type for the check. */
enum { MAX_FUNCS = 128, MAX_PARAMS = 64 };
typedef struct ref_fn {
  const char *name;
  int len, nparams;
  uint64_t refs;
  char *type[MAX_PARAMS]; /* the referenced type without qualifiers, for _Generic */
} ref_fn;

typedef struct lower {
  op2_toks *tk;
  ref_fn fn[MAX_FUNCS];
  int nfn;
} lower;

static int next_code(const lower *L, int i) {
  return op2_tok_next_code(L->tk, i);
}
static int prev_code(const lower *L, int i) {
  return op2_tok_prev_code(L->tk, i);
}
static int closing(const lower *L, int i, int *pp) {
  return op2_tok_closing(L->tk, i, pp);
}

/* Arithmetic type keywords, which `T(e)` casts to. */
static const char *const cast_types[] = {"double", "float", "int",      "long",
                                         "short",  "char",  "unsigned", "signed"};

/* Words that start a declaration. */
static const char *const decl_words[] = {
    "double", "float", "int",     "long",   "short",  "char",     "unsigned",   "signed",
    "void",   "_Bool", "bool",    "const",  "static", "volatile", "register",   "struct",
    "union",  "enum",  "typedef", "extern", "inline", "restrict", "__restrict", "size_t"};

static int in_list(const tok *t, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (is_word(t, list[i])) return 1;
  return 0;
}
#define IN(t, list) in_list(t, list, sizeof list / sizeof *list)

static ref_fn *find_fn(lower *L, const tok *name) {
  for (int f = 0; f < L->nfn; f++)
    if (same(name, L->fn[f].name, L->fn[f].len)) return &L->fn[f];
  return NULL;
}

/* One parameter, tokens [b, e] (code tokens only counted): *ref set when it is `T &name` or
 * `T &` (T: words and '*'), its '&' then written '*' and its name and type returned. -1 when
 * it holds something not understood here ('&&', a default value, '...' beside a reference). */
static int parameter(lower *L, int b, int e, int *ref, int *name, char **type) {
  int amp = -1, words = 0;
  *ref = 0, *name = -1, *type = NULL;
  for (int j = b; j <= e; j = next_code(L, j)) {
    const tok *t = &L->tk->t[j];
    if (is(t, "&&") || is(t, "=")) return -1;
    if (is(t, "&")) {
      if (amp >= 0) return -1;
      amp = j;
    }
  }
  if (amp < 0) return 0;
  for (int j = b; j < amp; j = next_code(L, j)) {
    const tok *t = &L->tk->t[j];
    if (t->kind == T_IDENT)
      words++;
    else if (!is(t, "*"))
      return -1;
  }
  int after = next_code(L, amp);
  if (!words || (after <= e && (L->tk->t[after].kind != T_IDENT || next_code(L, after) <= e)))
    return -1;
  *name = after <= e ? after : -1;
  /* the type as _Generic names it: qualifiers dropped (its controlling expression is an rvalue) */
  op2_buf ty = {0};
  for (int j = b; j < amp; j = next_code(L, j))
    if (!is_word(&L->tk->t[j], "const") && !is_word(&L->tk->t[j], "volatile"))
      op2_buf_printf(&ty, "%s%.*s", ty.len ? " " : "", L->tk->t[j].len, L->tk->t[j].p);
  if (ty.failed || !ty.len) {
    op2_buf_free(&ty);
    return -1;
  }
  *type = ty.data;
  L->tk->t[amp].repl = "*";
  *ref = 1;
  return 0;
}

/* Whether `name` is declared at file scope as a function (`name (` at brace depth 0). */
static int file_scope_function(const lower *L, const tok *name) {
  int depth = 0, paren = 0;
  for (int j = 0; j < L->tk->n; j++) {
    const tok *t = &L->tk->t[j];
    if (t->kind == T_PUNCT) {
      depth += is(t, "{") - is(t, "}");
      paren += is(t, "(") - is(t, ")");
    }
    if (!depth && !paren && t->kind == T_IDENT && same(t, name->p, name->len) &&
        next_code(L, j) < L->tk->n && is(&L->tk->t[next_code(L, j)], "("))
      return 1;
  }
  return 0;
}

/* Whether the occurrence of a reference parameter at i (in a body) may be a declaration of a
 * new variable of that name (which a nested block or a for statement may do): then the
 * occurrence is not surely a use, and the text is refused. Conservative: a statement that
 * starts like a declaration counts, unless the name stands in an initializer. */
static int may_declare(lower *L, int i, int body_open) {
  int s = i;
  for (int j = prev_code(L, i); j > body_open; j = prev_code(L, j)) {
    const tok *t = &L->tk->t[j];
    if (is(t, ";") || is(t, "{") || is(t, "}") || is(t, ":")) break;
    s = j;
  }
  /* `if (...)`, `for (...)`, ... before the statement, or the occurrence in their parentheses */
  while (s < i && (is_word(&L->tk->t[s], "if") || is_word(&L->tk->t[s], "for") ||
                   is_word(&L->tk->t[s], "while") || is_word(&L->tk->t[s], "switch") ||
                   is_word(&L->tk->t[s], "else") || is_word(&L->tk->t[s], "do"))) {
    int open = next_code(L, s);
    if (is_word(&L->tk->t[s], "else") || is_word(&L->tk->t[s], "do")) {
      s = open;
      continue;
    }
    if (open >= L->tk->n || !is(&L->tk->t[open], "(")) return 1;
    int close = closing(L, open, NULL);
    if (close < 0) return 1;
    s = close > i ? next_code(L, open) : next_code(L, close);
  }
  const tok *first = &L->tk->t[s];
  int second = next_code(L, s);
  int decl = IN(first, decl_words) || IN(first, cast_types);
  static const char *const statement_words[] = {"return", "goto",  "case",     "default",
                                                "sizeof", "break", "continue", "_Alignof"};
  if (!decl && first->kind == T_IDENT && s != i && second < L->tk->n &&
      !IN(first, statement_words)) {
    const tok *t2 = &L->tk->t[second];
    decl = t2->kind == T_IDENT || is(t2, "*") || is(t2, "&");
    /* `T (x);` or `T (*x)` declares x too, unless T is a function the text declares */
    if (!decl && is(t2, "(")) {
      int j = next_code(L, second);
      while (j < i && is(&L->tk->t[j], "*")) j = next_code(L, j);
      decl = j == i && next_code(L, i) < L->tk->n && is(&L->tk->t[next_code(L, i)], ")") &&
             !file_scope_function(L, first);
    }
  }
  if (!decl) return 0;
  int depth = 0, in_init = 0;
  for (int j = s; j < i; j = next_code(L, j)) {
    const tok *t = &L->tk->t[j];
    if (is(t, "(") || is(t, "[") || is(t, "{")) depth++;
    if (is(t, ")") || is(t, "]") || is(t, "}")) depth--;
    if (depth == 0 && is(t, "=")) in_init = 1;
    if (depth == 0 && is(t, ",")) in_init = 0;
  }
  return !in_init;
}

/* Whether the preprocessor line t names the identifier w. */
static int names_word(const tok *t, const char *w, int len) {
  for (const char *p = t->p; p + len <= t->p + t->len; p++)
    if ((p == t->p || !ident_char(p[-1])) && strncmp(p, w, (size_t)len) == 0 && !ident_char(p[len]))
      return 1;
  return 0;
}

/* The comma-separated item of a list that starts at token b, before `close`: returns the token
 * after it (its comma, or close); *last is its last token, -1 when it is empty. */
static int list_item(const lower *L, int b, int close, int *last) {
  int depth = 0, j;
  *last = -1;
  for (j = b; j < close; j = next_code(L, j)) {
    const tok *t = &L->tk->t[j];
    if (is(t, "(") || is(t, "[") || is(t, "{")) depth++;
    if (is(t, ")") || is(t, "]") || is(t, "}")) depth--;
    if (depth == 0 && is(t, ",")) break;
    *last = j;
  }
  return j;
}

/* A function declared or defined at file scope: name at i, '(' at open. Records its reference
 * parameters (their '&' written '*', their uses in the body dereferenced). -1: refused. */
static int declaration(lower *L, int i, int open, int kernel_last, const char *kernel) {
  int pp = 0, close = closing(L, open, &pp);
  if (close < 0) return -1;
  int nparams = 0, nrefs = 0, names[MAX_PARAMS];
  uint64_t refs = 0;
  char *types[MAX_PARAMS] = {NULL};
  if (pp) return -1;
  int rc = 0;
  for (int b = next_code(L, open); b < close && rc == 0;) {
    int e, j = list_item(L, b, close, &e);
    if (e < 0) e = b;
    int ref, name;
    if (nparams == MAX_PARAMS) {
      rc = -1;
      break;
    }
    rc = parameter(L, b, e, &ref, &name, &types[nparams]);
    if (rc == 0 && ref) refs |= (uint64_t)1 << nparams, nrefs++;
    names[nparams++] = ref ? name : -1;
    b = j < close ? next_code(L, j) : close;
  }
  if (nparams == 1 && !refs && next_code(L, open) < close &&
      is_word(&L->tk->t[next_code(L, open)], "void"))
    nparams = 0;
  int after = next_code(L, close);
  int body = after < L->tk->n && is(&L->tk->t[after], "{");
  if (rc == 0 && (!body && !(after < L->tk->n && is(&L->tk->t[after], ";")))) rc = -1;
  /* the kernel's own parameters are the loop's arguments: never lowered */
  if (rc == 0 && nrefs &&
      ((kernel && same(&L->tk->t[i], kernel, (int)strlen(kernel))) || (body && kernel_last == i)))
    rc = -1;
  /* every declaration of a name with references has the same (C has no overloads) */
  ref_fn *f = rc == 0 ? find_fn(L, &L->tk->t[i]) : NULL;
  if (rc == 0 && (!nrefs || (f && (f->nparams != nparams || f->refs != refs)))) rc = -1;
  if (rc == 0 && !f && nrefs) {
    if (L->nfn == MAX_FUNCS)
      rc = -1;
    else {
      f = &L->fn[L->nfn++];
      *f =
          (ref_fn){.name = L->tk->t[i].p, .len = L->tk->t[i].len, .nparams = nparams, .refs = refs};
      memcpy(f->type, types, sizeof types);
      memset(types, 0, sizeof types);
    }
  }
  for (int k = 0; k < MAX_PARAMS; k++) free(types[k]);
  if (rc != 0 || !body || !nrefs) return rc;
  /* the body: each use of a reference parameter dereferences its pointer */
  int end = closing(L, after, NULL);
  if (end < 0) return -1;
  for (int k = 0; k < nparams; k++) {
    if (names[k] < 0) continue;
    const tok *nm = &L->tk->t[names[k]];
    /* a macro naming the parameter (wherever it is defined) would read the pointer */
    for (int j = 0; j < L->tk->n; j++)
      if (L->tk->t[j].kind == T_PP && names_word(&L->tk->t[j], nm->p, nm->len)) return -1;
    for (int j = after + 1; j < end; j++) {
      tok *t = &L->tk->t[j];
      if (t->kind != T_IDENT || !same(t, nm->p, nm->len)) continue;
      int prev = prev_code(L, j);
      if (prev >= 0 && (is(&L->tk->t[prev], ".") || is(&L->tk->t[prev], "->")))
        continue; /* a member */
      if (prev >= 0 && is(&L->tk->t[prev], "::")) return -1;
      if (may_declare(L, j, after)) return -1;
      t->repl = NULL;
      op2_tok_add_text(&t->pre, "(*", 1);
      op2_tok_add_text(&t->post, ")", 0);
      if (!t->pre || !t->post) return -1;
    }
  }
  return 0;
}

/* A call of a function with reference parameters at i: each reference argument `a` passed as
 * `op2_cxx_ref(T, a)`. -1: refused (the arity differs, a preprocessor line splits it...). */
static int call(lower *L, int i, const ref_fn *f) {
  int open = next_code(L, i), pp = 0;
  if (open >= L->tk->n || !is(&L->tk->t[open], "(")) return -1; /* its address taken, ... */
  int close = closing(L, open, &pp);
  if (close < 0 || pp) return -1;
  int narg = 0;
  for (int b = next_code(L, open); b < close;) {
    int e, j = list_item(L, b, close, &e);
    if (e < 0 || narg >= f->nparams) return -1;
    if (f->refs >> narg & 1) {
      if (L->tk->t[b].wrap_end) return -1;
      L->tk->t[b].wrap_end = e, L->tk->t[b].wrap_type = strdup(f->type[narg]);
      if (!L->tk->t[b].wrap_type) return -1;
    }
    narg++;
    b = j < close ? next_code(L, j) : close;
  }
  return narg == f->nparams ? 0 : -1;
}

/* `T(e)` with T an arithmetic type keyword, where an expression stands: `((T)(e))`. */
static int functional_cast(lower *L, int i) {
  int open = next_code(L, i), prev = prev_code(L, i), pp = 0;
  if (open >= L->tk->n || !is(&L->tk->t[open], "(") || prev < 0) return 0;
  const tok *p = &L->tk->t[prev];
  static const char *const expr_before[] = {"=",  "(",  ",",  "[",  "?",  "+",   "-",  "*",  "/",
                                            "%",  "<",  ">",  "<=", ">=", "==",  "!=", "&&", "||",
                                            "!",  "~",  "|",  "^",  "+=", "-=",  "*=", "/=", "%=",
                                            "&=", "|=", "^=", "<<", ">>", "<<=", ">>="};
  int expr = is_word(p, "return");
  for (size_t k = 0; k < sizeof expr_before / sizeof *expr_before && !expr; k++)
    expr = p->kind == T_PUNCT && is(p, expr_before[k]);
  if (!expr) return 0; /* left as it is: maybe a declaration (`double(x);`) */
  /* `sizeof(double(x))` may name a type; a declaration in a condition (`if (double(x) = e)`)
   * becomes an assignment to a cast, which C rejects */
  if (is(p, "(")) {
    int pp2 = prev_code(L, prev);
    if (pp2 >= 0 && (is_word(&L->tk->t[pp2], "sizeof") || is_word(&L->tk->t[pp2], "_Alignof")))
      return 0;
  }
  int close = closing(L, open, &pp);
  if (close < 0 || pp || next_code(L, open) == close) return -1;
  int depth = 0;
  for (int j = open; j < close; j++) {
    const tok *t = &L->tk->t[j];
    if (t->kind != T_PUNCT) continue;
    if (is(t, "(") || is(t, "[") || is(t, "{")) depth++;
    if (is(t, ")") || is(t, "]") || is(t, "}")) depth--;
    if (depth == 1 && is(t, ",")) return -1;
  }
  op2_tok_add_text(&L->tk->t[i].pre, "((", 1);
  op2_tok_add_text(&L->tk->t[i].post, ")", 0);
  op2_tok_add_text(&L->tk->t[close].post, ")", 0);
  return L->tk->t[i].pre && L->tk->t[i].post && L->tk->t[close].post ? 0 : -1;
}

/* `struct S {...};` at file scope (at i): `typedef struct S S;` after it, unless S is named by a
 * typedef already. */
static int struct_tag(lower *L, int i) {
  int name = next_code(L, i), prev = prev_code(L, i);
  if (prev >= 0 && is_word(&L->tk->t[prev], "typedef")) return 0;
  if (name >= L->tk->n || L->tk->t[name].kind != T_IDENT) return 0;
  int open = next_code(L, name);
  if (open >= L->tk->n || !is(&L->tk->t[open], "{")) return 0;
  int close = closing(L, open, NULL), semi = close < 0 ? L->tk->n : next_code(L, close);
  if (semi >= L->tk->n || !is(&L->tk->t[semi], ";")) return 0;
  const tok *nm = &L->tk->t[name];
  for (int j = 0; j < L->tk->n; j++)
    if (is_word(&L->tk->t[j], "typedef")) {
      int depth = 0;
      for (int k = next_code(L, j); k < L->tk->n && !(depth == 0 && is(&L->tk->t[k], ";"));
           k = next_code(L, k)) {
        if (is(&L->tk->t[k], "{")) depth++;
        if (is(&L->tk->t[k], "}")) depth--;
        if (depth == 0 && same(&L->tk->t[k], nm->p, nm->len) && next_code(L, k) < L->tk->n &&
            is(&L->tk->t[next_code(L, k)], ";"))
          return 0;
      }
    }
  op2_buf td = {0};
  op2_buf_printf(&td, " typedef struct %.*s %.*s;", nm->len, nm->p, nm->len, nm->p);
  if (td.failed) return -1;
  op2_tok_add_text(&L->tk->t[semi].post, td.data, 0);
  op2_buf_free(&td);
  return L->tk->t[semi].post ? 0 : -1;
}

/* Whether a declaration at file scope of this name has '&' in its parameter list. */
static int named_with_refs(const lower *L, const tok *name, const int *amp, int namp) {
  for (int k = 0; k < namp; k++)
    if (same(name, L->tk->t[amp[k]].p, L->tk->t[amp[k]].len)) return 1;
  return 0;
}

static int lower_text(lower *L, const char *kernel) {
  for (int i = 0; i < L->tk->n; i++)
    if (op2_tok_cxx_only(&L->tk->t[i])) return -1;
  /* file scope: the names declared with '&' in their parameters, the last function defined
   * (the kernel, when its name is not the loop's); '&' elsewhere at file scope (a function
   * returning a reference, a reference variable) is not understood */
  enum { MAX_DECLS = 4096 };
  int amp[MAX_FUNCS], namp = 0, decl_at[MAX_DECLS], ndecl = 0;
  int depth = 0, paren = 0, kernel_last = -1;
  for (int i = 0; i < L->tk->n; i++) {
    const tok *t = &L->tk->t[i];
    if (t->kind == T_PUNCT) {
      if (is(t, "{") && depth++ == 0) {
        int close = prev_code(L, i), open = close >= 0 && is(&L->tk->t[close], ")") ? close : -1;
        for (int d = 0; open >= 0; open--) {
          if (is(&L->tk->t[open], ")")) d++;
          if (is(&L->tk->t[open], "(") && --d == 0) break;
        }
        int nm = open > 0 ? prev_code(L, open) : -1;
        if (nm >= 0 && L->tk->t[nm].kind == T_IDENT) kernel_last = nm;
      }
      if (is(t, "}")) depth--;
      if (is(t, "(")) paren++;
      if (is(t, ")")) paren--;
      if (depth == 0 && paren == 0 && (is(t, "&") || is(t, "&&"))) return -1;
    }
    if (depth || paren || t->kind != T_IDENT) continue;
    int open = next_code(L, i),
        close = open < L->tk->n && is(&L->tk->t[open], "(") ? closing(L, open, NULL) : -1;
    int any = 0;
    for (int j = open; close > 0 && j < close; j++)
      any |= L->tk->t[j].kind == T_PUNCT && (is(&L->tk->t[j], "&") || is(&L->tk->t[j], "&&"));
    if (!any || named_with_refs(L, t, amp, namp)) continue;
    if (namp == MAX_FUNCS) return -1;
    amp[namp++] = i;
  }
  if (depth != 0 || paren != 0) return -1;
  /* every declaration of those names: the same references in each, bodies rewritten */
  for (int i = 0; i < L->tk->n && namp; i++) {
    const tok *t = &L->tk->t[i];
    if (t->kind == T_PUNCT) {
      if (is(t, "{")) depth++;
      if (is(t, "}")) depth--;
      if (is(t, "(")) paren++;
      if (is(t, ")")) paren--;
    }
    if (depth || paren || t->kind != T_IDENT || !named_with_refs(L, t, amp, namp)) continue;
    int open = next_code(L, i);
    if (open >= L->tk->n || !is(&L->tk->t[open], "(")) return -1;
    if (ndecl == MAX_DECLS) return -1;
    decl_at[ndecl++] = i;
    if (declaration(L, i, open, kernel_last, kernel)) return -1;
  }
  /* macros and call sites of functions with references */
  for (int i = 0; i < L->tk->n && L->nfn; i++) {
    tok *t = &L->tk->t[i];
    if (t->kind == T_PP) {
      for (int f = 0; f < L->nfn; f++)
        if (names_word(t, L->fn[f].name, L->fn[f].len)) return -1;
      continue;
    }
    ref_fn *f = t->kind == T_IDENT ? find_fn(L, t) : NULL;
    if (!f) continue;
    int is_decl = 0;
    for (int d = 0; d < ndecl && !is_decl; d++) is_decl = decl_at[d] == i;
    if (is_decl) continue;
    int prev = prev_code(L, i);
    if (prev >= 0 &&
        (is(&L->tk->t[prev], ".") || is(&L->tk->t[prev], "->") || is(&L->tk->t[prev], "::")))
      return -1;
    if (call(L, i, f)) return -1;
  }
  depth = 0;
  for (int i = 0; i < L->tk->n; i++) {
    const tok *t = &L->tk->t[i];
    if (t->kind == T_PUNCT && is(t, "{")) depth++;
    if (t->kind == T_PUNCT && is(t, "}")) depth--;
    if (depth > 0 && IN(t, cast_types) && functional_cast(L, i)) return -1;
    if (depth == 0 && is_word(t, "struct") && struct_tag(L, i)) return -1;
  }
  return 0;
}

int op2_cxx_lower_toks(op2_toks *T, const char *kernel) {
  lower L = {.tk = T};
  int changed = 0;
  if (!T->odd && lower_text(&L, kernel) == 0)
    for (int i = 0; i < T->n && !changed; i++)
      changed = T->t[i].pre || T->t[i].post || T->t[i].repl || T->t[i].wrap_end;
  else
    op2_toks_unrewrite(T);
  for (int f = 0; f < L.nfn; f++)
    for (int k = 0; k < MAX_PARAMS; k++) free(L.fn[f].type[k]);
  return changed;
}
