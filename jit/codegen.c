/* SPDX-License-Identifier: BSD-3-Clause */
/* Generated files, for every target: the signature as a comment, the target's preamble templates,
 * the constants as literals, the user's kernel under #line (so compiler messages give the user's
 * own line numbers), a block of #defines describing the arguments (emit.c), and the strategy's
 * loop template, which uses those #defines. The CUDA text stays within the subset of CUDA that is
 * also C, so the emulation backend compiles the very same file on the host; there the user's
 * kernel becomes a device function unchanged (NVRTC -default-device), run by one __global__
 * wrapper, op2_cuda_kernel. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "kernel_facts.h"
#include "kernel_lanes.h"
#include "jit_internal.h"

static void emit_value(op2_buf *b, op2_type t, const void *data, int k) {
  switch (t) {
    case OP2_TYPE_DOUBLE: {
      double v = ((const double *)data)[k];
      op2_buf_printf(b, "%a /* %.17g */", v, v);
      break;
    }
    case OP2_TYPE_FLOAT: {
      float v = ((const float *)data)[k];
      op2_buf_printf(b, "%af /* %.9g */", (double)v, (double)v);
      break;
    }
    case OP2_TYPE_INT:
      op2_buf_printf(b, "%d", ((const int *)data)[k]);
      break;
    default:
      op2_buf_printf(b, "%lldLL", ((const long long *)data)[k]);
      break;
  }
}

/* Names of the unions holding constants baked as bit patterns (op2_ names are reserved). */
#define OP2_BITS_CONST_PREFIX "op2_bits_"

/* Whether a floating-point constant has a value without a C literal: NaN (whose payload and sign
 * must survive) or an infinity. */
static bool has_non_finite(const op2_const *c) {
  for (int k = 0; k < c->dim; k++) {
    double v = c->type == OP2_TYPE_DOUBLE  ? ((const double *)c->data)[k]
               : c->type == OP2_TYPE_FLOAT ? (double)((const float *)c->data)[k]
                                           : 0.0;
    if (!isfinite(v)) return true;
  }
  return false;
}

/* Such a constant is baked as its bit patterns, read back through a union (C reads the other
 * member exactly; CUDA arrays and scalars alike sit in constant memory): `NAME` stays an
 * expression of the constant's type, `NAME[i]` indexes an array. */
static void emit_bits_constant(op2_buf *b, const op2_const *c, const char *array_qualifier) {
  bool dbl = c->type == OP2_TYPE_DOUBLE;
  op2_buf_printf(b, "static %sconst union { %s u[%d]; %s v[%d]; } %s%s = {{", array_qualifier,
                 dbl ? "unsigned long long" : "unsigned int", c->dim, op2_type_name(c->type),
                 c->dim, OP2_BITS_CONST_PREFIX, c->name);
  for (int k = 0; k < c->dim; k++) {
    if (dbl) {
      unsigned long long u;
      memcpy(&u, (const double *)c->data + k, sizeof u);
      op2_buf_printf(b, "%s0x%016llxULL", k ? ", " : "", u);
    } else {
      unsigned int u;
      memcpy(&u, (const float *)c->data + k, sizeof u);
      op2_buf_printf(b, "%s0x%08xU", k ? ", " : "", u);
    }
  }
  op2_buf_printf(b, "}};\n#define %s (%s%s.v%s)\n", c->name, OP2_BITS_CONST_PREFIX, c->name,
                 c->dim == 1 ? "[0]" : "");
}

/* A live constant (one that keeps changing, or has no exact literal) is read at run time, so one
 * kernel serves every later value. C reads it through a pointer the runtime sets to its value
 * before the kernel's first call (jit_constants.c); CUDA (`constant_memory`) from a __constant__
 * variable the backend fills through the driver when the value has changed (runtime/cuda). */
static void emit_live_constant(op2_buf *b, const op2_const *c, bool constant_memory) {
  if (constant_memory) {
    op2_buf_printf(b, "__constant__ %s %s%s", op2_type_name(c->type), OP2_LIVE_CONST_PREFIX,
                   c->name);
    if (c->dim > 1) op2_buf_printf(b, "[%d]", c->dim);
    op2_buf_printf(b, ";\n#define %s %s%s", c->name, OP2_LIVE_CONST_PREFIX, c->name);
    return;
  }
  op2_buf_printf(b, "const %s *%s%s;\n#define %s %s%s%s%s", op2_type_name(c->type),
                 OP2_LIVE_CONST_PREFIX, c->name, c->name, c->dim == 1 ? "(*" : "",
                 OP2_LIVE_CONST_PREFIX, c->name, c->dim == 1 ? ")" : "");
}

/* The constants a kernel uses, as exact literals. Arrays get `array_qualifier` (CUDA puts them
 * in constant memory); scalars fold into the code. Live constants are read at run time instead
 * (from constant memory where `array_qualifier` is not empty). */
static void emit_constants(op2_buf *b, op2_const **used, int n, const char *array_qualifier) {
  bool any_live = false;
  for (int i = 0; i < n; i++) any_live |= used[i]->live;
  if (n)
    op2_buf_printf(
        b, "\n/* Constants the kernel uses, baked in: a new value is a new kernel%s */\n",
        any_live ? "; op2_live_ ones (values that keep changing) are read at run time." : ".");
  for (int i = 0; i < n; i++) {
    const op2_const *c = used[i];
    if (c->live) {
      emit_live_constant(b, c, array_qualifier[0] != '\0');
      op2_buf_printf(b, "\n");
      continue;
    }
    if (has_non_finite(c)) {
      emit_bits_constant(b, c, array_qualifier);
      continue;
    }
    if (c->dim == 1) {
      op2_buf_printf(b, "static const %s %s = ", op2_type_name(c->type), c->name);
      emit_value(b, c->type, c->data, 0);
    } else {
      op2_buf_printf(b, "static %sconst %s %s[%d] = {", array_qualifier, op2_type_name(c->type),
                     c->name, c->dim);
      for (int k = 0; k < c->dim; k++) {
        op2_buf_printf(b, "%s\n    ", k ? "," : "");
        emit_value(b, c->type, c->data, k);
      }
      op2_buf_printf(b, "}");
    }
    op2_buf_printf(b, ";\n");
  }
}

/* The head of every generated file: #line naming it as the cache stores it, then the signature and
 * the constants in words. */
static void emit_header(op2_buf *b, const char *name, const char *ext, const char *what,
                        const char *signature, op2_const **used, int nused) {
  op2_buf_printf(b, "#line 2 \"%s.%s\"\n/* op2jit generated %s. Signature:\n", name, ext, what);
  for (const char *p = signature; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    op2_buf_printf(b, " *   %.*s\n", (int)len, p);
    p += len + (e != NULL);
  }
  for (int i = 0; i < nused; i++)
    op2_buf_printf(b, " *   constant %s %s[%d]\n", used[i]->name, op2_type_name(used[i]->type),
                   used[i]->dim);
}

static int count_lines(const char *s, size_t len) {
  int n = 0;
  for (size_t i = 0; i < len; i++) n += s[i] == '\n';
  return n;
}

/* What a generated file of one target is made of, around its argument macros. */
typedef struct file_shape {
  const char *target, *ext, *what; /* in the signature, the file name, the header */
  const char *preamble[3];         /* templates before the constants, NULL-terminated */
  const char *array_qualifier;     /* for constant arrays (and live constants) */
  const char *kernel_comment;
  /* C99 `inline` kernels need an external declaration to link: emitted under `#ifdef` of this
   * macro ("" always, NULL never) */
  const char *extern_kernel_if;
  /* the prelude provides C forms of std::sqrt, std::min, ... (op2_kernel_text_for_c) */
  int rewrite_std;
} file_shape;

static const file_shape c_file = {.target = "c",
                                  .ext = "c",
                                  .what = "kernel",
                                  .preamble = {"c/prelude.h", NULL},
                                  .array_qualifier = "",
                                  .kernel_comment = "The user's kernel, as given to op_par_loop.",
                                  .extern_kernel_if = "",
                                  .rewrite_std = 1};
/* scalars fold into the code as literals; arrays and live constants live in constant memory */
static const file_shape cuda_file = {
    "cuda",
    "cu",
    "CUDA kernel",
    {"cuda/prelude.h", "cuda/params.h", NULL},
    "__constant__ ",
    "The user's kernel, as given to op_par_loop: a device function.",
    /* C++ (NVRTC) links inline functions; the emulator compiles the file as C */
    "OP2_EMULATION",
    0};

/* The part between the kernel and the loop template. */
typedef void (*body_fn)(op2_buf *b, const void *arg);

/* A whole file, out->signature already written: `name` is the loop's (or the kernel's) name;
 * `kernel_src` NULL for kernels that run no user code. */
static int generate(op2_jit *jit, const op2_loop_desc *loop, const file_shape *shape,
                    const char *name, const char *kernel_src, const char *loop_template,
                    body_fn body, const void *arg, op2_generated *out) {
  op2_const **used = NULL;
  int nused = 0;
  op2_buf kernel = {0}, context = {0}, context_text = {0};
  if (kernel_src) {
    op2_kernel_text_for_c_kept(jit, loop, kernel_src, shape->rewrite_std, &kernel);
    size_t skip = kernel.failed ? 0 : op2_kernel_context(kernel.data, &context);
    if (kernel.failed || context.failed) {
      op2_buf_free(&kernel), op2_buf_free(&context), op2_buf_free(&out->signature);
      return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating the %s for '%s'", shape->what,
                          name);
    }
    kernel_src = kernel.data + skip;
    int rc = op2_constants_used(jit, loop, kernel_src, &used, &nused);
    if (rc != OP2_OK) {
      op2_buf_free(&kernel), op2_buf_free(&context), op2_buf_free(&out->signature);
      return rc;
    }
    /* the calling file's context, for the C++ tier only, with the kernel text's rules: extern
     * declarations of the constants defined here blanked (the others stay declarations), C++'s
     * inline made static */
    if (skip) {
      op2_loop_desc defined = *loop;
      defined.consts = used, defined.nconsts = nused;
      defined.name = ""; /* no kernel of its own: the context's facts are read once for all loops */
      op2_kernel_text_for_c_kept(jit, &defined, context.data, 0, &context_text);
    }
    op2_buf_free(&context);
    if (context_text.failed) {
      free(used), op2_buf_free(&kernel), op2_buf_free(&context_text);
      op2_buf_free(&out->signature);
      return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating the %s for '%s'", shape->what,
                          name);
    }
  }
  char *text[4] = {NULL};
  int ntext = 0, loaded = 1;
  for (const char *const *t = shape->preamble; *t && loaded; t++)
    loaded = (text[ntext++] = op2_template_load(jit, *t)) != NULL;
  char *tmpl = loaded ? op2_template_load(jit, loop_template) : NULL;
  /* OP2's API for the context's headers (MG-CFD's io.h calls op_printf): the calling file had it */
  char *api = tmpl && context_text.len ? op2_template_load(jit, "../include/op2.h") : NULL;
  if (!tmpl || (context_text.len && !api)) {
    free(tmpl);
    for (int i = 0; i < ntext; i++) free(text[i]);
    free(used), op2_buf_free(&out->signature), op2_buf_free(&kernel);
    op2_buf_free(&context_text);
    return OP2_ERR_JIT;
  }
  op2_buf *b = &out->source;
  /* Messages about the generated parts name the generated file, as the cache stores it. */
  emit_header(b, name, shape->ext, shape->what, out->signature.data, used, nused);
  op2_buf_printf(b, " */\n");
  for (int i = 0; i < ntext; i++) op2_buf_append(b, text[i], strlen(text[i])), free(text[i]);
  if (kernel_src) {
    emit_constants(b, used, nused, shape->array_qualifier);
    out->kernel_first_line = count_lines(b->data, b->len) + 4;
    /* The user's text between the prelude's OP2_USER_TEXT_BEGIN and _END: C++ linkage in the C++
     * tier's build, which includes the generated file inside extern "C" (templates, classes and
     * overloads of the kernel's headers cannot have C linkage); nothing in C. */
    op2_buf_printf(b, "\n/* %s */\nOP2_USER_TEXT_BEGIN\n", shape->kernel_comment);
    /* what OP2 compiles before a kernel found through its calling file: for the C++ tier, whose
     * wrapper defines OP2_CXX_TIER (jit/cxx.c) */
    /* in an unnamed namespace: the calling file's own functions (MG-CFD's io.h defines
     * read_input_dat, which reads a global of the program) are not emitted unless the kernel
     * calls them, so nothing of the program's is left undefined in the kernel's object */
    if (context_text.len) { /* appended: formatting texts this long costs more than copying */
      op2_buf_printf(b, "#ifdef OP2_CXX_TIER\n");
      op2_buf_append(b, api, strlen(api));
      op2_buf_printf(b, "namespace {\n");
      op2_buf_append(b, context_text.data, context_text.len);
      op2_buf_printf(b, "\n}\n#endif\n");
    }
    op2_buf_printf(b, "#line 1 \"kernel:%s\"\n", name);
    size_t klen = strlen(kernel_src);
    op2_buf_append(b, kernel_src, klen);
    if (klen && kernel_src[klen - 1] != '\n') op2_buf_append(b, "\n", 1);
    op2_buf_printf(b, "#line %d \"%s.%s\"\n", count_lines(b->data, b->len) + 2, name, shape->ext);
    /* OP2's kernels are `inline`, which in C99 gives no external definition: compiled without
     * optimisation the call would not link. A non-inline declaration makes the kernel's one. */
    const char *guard = shape->extern_kernel_if;
    if (guard && *guard) op2_buf_printf(b, "#ifdef %s\n", guard);
    if (guard) op2_buf_printf(b, "extern __typeof__(%s) %s;\n", name, name);
    if (guard && *guard) op2_buf_printf(b, "#endif\n");
    op2_buf_printf(b, "OP2_USER_TEXT_END\n");
  }
  op2_buf_printf(b, "\n");
  body(b, arg);
  op2_buf_append(b, tmpl, strlen(tmpl));
  free(tmpl), free(api), free(used), op2_buf_free(&kernel), op2_buf_free(&context_text);
  if (b->failed || out->signature.failed) {
    op2_buf_free(&out->source), op2_buf_free(&out->signature);
    return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating the %s for '%s'", shape->what,
                        name);
  }
  return OP2_OK;
}

static void arg_macros_body(op2_buf *b, const void *arg) {
  (void)b;
  op2_emit_arg_macros(arg);
}

/* SIMD: the scalar loop's macros, the kernel's copy for component-major lane arrays (made
 * once, by simd_source), the SIMD macros and the SIMD loop, which renames the scalar loop (the
 * template that follows) to run the remainder. */
typedef struct simd_parts {
  op2_jit *jit;
  const op2_loop_desc *loop;
  const op2_buf *lanes_copy; /* op2_kernel_lanes' text, empty when no parameter was rewritten */
  uint64_t lanes_cm;
} simd_parts;

static void simd_body(op2_buf *b, const void *arg) {
  const simd_parts *p = arg;
  op2_emitter scalar = {b, p->loop, OP2_EMIT_C_RANGE, NULL, 0};
  op2_emitter simd = {b, p->loop, OP2_EMIT_C_SIMD, NULL, p->lanes_cm};
  op2_emit_arg_macros(&scalar);
  op2_buf_printf(b, "#ifdef OP2_SIMD_W\n");
  if (p->lanes_copy->len) op2_buf_append(b, p->lanes_copy->data, p->lanes_copy->len);
  op2_buf_printf(b, "#line %d \"%s.c\"\n#endif\n", count_lines(b->data, b->len) + 2, p->loop->name);
  if (simd.lanes_cm)
    op2_buf_printf(b, "#define OP2_SIMD_KERNEL op2_lanes_%s\n\n", p->loop->name);
  else
    op2_buf_printf(b, "#define OP2_SIMD_KERNEL OP2_KERNEL\n\n");
  op2_emit_simd_macros(&simd);
  char *tmpl = op2_template_load(p->jit, "c/loop_simd.c");
  if (!tmpl) {
    b->failed = 1;
    return;
  }
  op2_buf_append(b, tmpl, strlen(tmpl));
  free(tmpl);
}

/* The scalar loop's source (no SIMD loop in it). */
static int scalar_source(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                         op2_generated *out) {
  memset(out, 0, sizeof *out);
  OP2_CALL(op2_signature_describe(jit, loop, c_file.target, &out->signature));
  op2_emitter e = {&out->source, loop, OP2_EMIT_C_RANGE, NULL, 0};
  return generate(jit, loop, &c_file, loop->name, kernel_src, "c/loop.c", arg_macros_body, &e, out);
}

/* The SIMD source, or the scalar one with the reason in `why` when SIMD would not be exact or,
 * with cost_width (OP2_SIMD=auto's groups), would not pay. The kernel's lane copy is made once
 * here: the cost rule needs to know which arguments it takes component-major. */
static int simd_source(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                       op2_generated *out, char *why, size_t whylen, int cost_width) {
  why[0] = '\0';
  if (op2_simd_check(loop, why, whylen) != 0) return scalar_source(jit, loop, kernel_src, out);
  /* kernel_src is NULL for a loop that runs no user code */
  const op2_kernel_facts *facts =
      kernel_src ? op2_kernel_facts_of(jit, kernel_src, loop->name) : NULL;
  if (kernel_src && !facts) {
    memset(out, 0, sizeof *out);
    return OP2_ERR_MEM;
  }
  op2_buf copy = {0};
  uint64_t lanes = facts ? op2_kernel_lanes(facts, op2_simd_lanes_wanted(loop), &copy) : 0;
  int rc;
  if (copy.failed) {
    rc = op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating the kernel for '%s'", loop->name);
  } else if (cost_width && op2_simd_pays(loop, facts, lanes, cost_width, why, whylen) != 0) {
    rc = scalar_source(jit, loop, kernel_src, out);
  } else {
    memset(out, 0, sizeof *out);
    rc = op2_signature_describe(jit, loop, c_file.target, &out->signature);
    if (rc == OP2_OK) {
      op2_buf_printf(&out->signature, "variant simd\n");
      simd_parts parts = {jit, loop, &copy, lanes};
      rc = generate(jit, loop, &c_file, loop->name, kernel_src, "c/loop.c", simd_body, &parts, out);
    }
  }
  op2_buf_free(&copy);
  return rc;
}

int op2_codegen_c_simd(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                       op2_generated *out, char *why, size_t whylen) {
  return simd_source(jit, loop, kernel_src, out, why, whylen, 0);
}

/* The reason a loop stays scalar, in a few words: up to its first parenthesis, colon or comma
 * (the whole reason is said at OP2_DIAGS=3). */
static void short_reason(const char *why, char *out, size_t len) {
  size_t n = strcspn(why, "(:,");
  while (n && why[n - 1] == ' ') n--;
  int arg = strncmp(why, "argument ", 9) == 0; /* the usual start, shortened */
  snprintf(out, len, "scalar: %s%.*s", arg ? "arg " : "", (int)(n > 70 ? 70 : n) - 9 * arg,
           why + 9 * arg);
}

static int codegen_c(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                     op2_generated *out) {
  if (jit->cfg.simd != 0) {
    char why[400];
    /* auto applies the cost rule to its width; a given width runs every loop it keeps exact */
    int cost_width = jit->cfg.simd < 0 ? jit->cfg.simd_width : 0;
    int rc = simd_source(jit, loop, kernel_src, out, why, sizeof why, cost_width);
    if (rc == OP2_OK && jit->cfg.mode != OP2_JIT_TCC) {
      if (why[0]) {
        short_reason(why, out->variant, sizeof out->variant);
        op2_jit_diag(jit, 3, "loop '%s': the optimised tier runs the scalar loop: %s", loop->name,
                     why);
      } else if (jit->cfg.simd_width) {
        snprintf(out->variant, sizeof out->variant, "%d lanes", jit->cfg.simd_width);
      } else {
        snprintf(out->variant, sizeof out->variant, "scalar: no vector unit OP2_SIMD=auto knows");
      }
    }
    return rc;
  }
  int rc = scalar_source(jit, loop, kernel_src, out);
  if (rc == OP2_OK && jit->cfg.mode != OP2_JIT_TCC)
    snprintf(out->variant, sizeof out->variant, "scalar: OP2_SIMD=off");
  return rc;
}

/* The kernel's copy for SIMD lanes is made from the text the file holds, so it is prepared
 * first (generate() finds nothing left to change in it). */
int op2_codegen_c(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                  op2_generated *out) {
  op2_buf kernel = {0};
  if (kernel_src) {
    op2_kernel_text_for_c_kept(jit, loop, kernel_src, 1, &kernel);
    if (kernel.failed) {
      op2_buf_free(&kernel);
      memset(out, 0, sizeof *out);
      return op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating the kernel for '%s'",
                          loop->name);
    }
  }
  int rc = codegen_c(jit, loop, kernel_src ? kernel.data : NULL, out);
  op2_buf_free(&kernel);
  return rc;
}

int op2_codegen_c_external(op2_jit *jit, const op2_loop_desc *loop, const char *kernel,
                           const char *decls, const char *lanes, uint64_t lanes_cm,
                           op2_generated *out) {
  op2_loop_desc named = *loop; /* OP2_KERNEL and op2_lanes_ are named after the loop */
  named.name = kernel;
  memset(out, 0, sizeof *out);
  OP2_CALL(op2_signature_describe(jit, &named, c_file.target, &out->signature));
  if (!lanes) {
    op2_emitter e = {&out->source, &named, OP2_EMIT_C_RANGE, NULL, 0};
    return generate(jit, &named, &c_file, kernel, decls, "c/loop.c", arg_macros_body, &e, out);
  }
  op2_buf_printf(&out->signature, "variant simd\n");
  op2_buf copy = {0};
  op2_buf_printf(&copy, "%s", lanes);
  simd_parts parts = {jit, &named, &copy, lanes_cm};
  int rc = copy.failed
               ? op2_jit_fail(jit, OP2_ERR_MEM, "out of memory generating '%s'", kernel)
               : generate(jit, &named, &c_file, kernel, decls, "c/loop.c", simd_body, &parts, out);
  op2_buf_free(&copy);
  return rc;
}

static void cuda_body(op2_buf *b, const void *arg) {
  const op2_emitter *e = arg;
  const op2_cuda_layout *lay = e->lay;
  op2_buf_printf(
      b, "#define OP2_COLOURED %d\n#define OP2_IN_COLOUR %d\n#define OP2_USES_BARRIERS %d\n",
      lay->strategy == OP2_CUDA_GLOBAL, lay->in_colour,
      lay->strategy == OP2_CUDA_HIER || lay->nred > 0);
  /* registers are then limited so that a block of this size always fits */
  if (lay->max_threads)
    op2_buf_printf(b, "#define OP2_LAUNCH_BOUNDS OP2_BOUNDS(%d)\n", lay->max_threads);
  else
    op2_buf_printf(b, "#define OP2_LAUNCH_BOUNDS\n");
  op2_emit_arg_macros(e);
  if (lay->strategy == OP2_CUDA_HIER) op2_emit_cuda_stage(e);
  op2_emit_cuda_reduce(e);
}

int op2_codegen_cuda(op2_jit *jit, const op2_loop_desc *loop, const char *kernel_src,
                     const op2_cuda_layout *lay, op2_generated *out) {
  static const op2_emit_strategy strategies[] = {OP2_EMIT_CUDA_ELEMENT, OP2_EMIT_CUDA_ELEMENT,
                                                 OP2_EMIT_CUDA_GLOBAL, OP2_EMIT_CUDA_HIER};
  memset(out, 0, sizeof *out);
  OP2_CALL(op2_signature_describe(jit, loop, cuda_file.target, &out->signature));
  op2_buf_printf(&out->signature, "strategy %s\n", op2_cuda_strategy_name(lay->strategy));
  op2_emitter e = {&out->source, loop, strategies[lay->strategy], lay, 0};
  return generate(jit, loop, &cuda_file, loop->name, kernel_src,
                  lay->strategy == OP2_CUDA_HIER ? "cuda/hierarchical.cu" : "cuda/elementwise.cu",
                  cuda_body, &e, out);
}

static void halo_body(op2_buf *b, const void *arg) {
  size_t row_bytes = *(const size_t *)arg;
  size_t word = row_bytes % 8 == 0 ? 8 : row_bytes % 4 == 0 ? 4 : 1;
  const char *word_type = word == 8   ? "unsigned long long"
                          : word == 4 ? "unsigned int"
                                      : "unsigned char";
  op2_buf_printf(b,
                 "#define OP2_USES_BARRIERS 0\n#define OP2_HALO_WORD %s\n"
                 "#define OP2_HALO_ROW_WORDS %zu\n\n",
                 word_type, row_bytes / word);
}

int op2_codegen_cuda_halo_gather(op2_jit *jit, size_t row_bytes, op2_generated *out) {
  memset(out, 0, sizeof *out);
  op2_buf_printf(&out->signature, "halo gather\nrow bytes %zu\ntarget cuda\n", row_bytes);
  return generate(jit, NULL, &cuda_file, "op2_halo_gather", NULL, "cuda/halo_gather.cu", halo_body,
                  &row_bytes, out);
}
