/* SPDX-License-Identifier: BSD-3-Clause */
/* op_kernel_file: a kernel read from its own header at run time, found along OP2_KERNEL_PATH.
 * The text is the file byte for byte after a #line naming it, so compiler messages point into
 * the header at its own line numbers (as op2-embed does at build time); its quoted includes are
 * replaced by their files' text (kernel_search.c), since the compile happens elsewhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/context.h"
#include "runtime/error.h"
#include "runtime/alloc.h"
#include "runtime/options.h"
#include "runtime/mesh.h"
#include "runtime/kernel_source.h"
#include "runtime/loop.h"

/* The whole file after the #line prefix, or NULL with errno set (op2_kernel_file_read). */
static char *read_with_line(const char *path, const char *line_name) {
  size_t body_len;
  char *body = op2_kernel_file_read(path, &body_len);
  if (!body) return NULL;
  char head[1200];
  int hl = snprintf(head, sizeof head, "#line 1 \"%s\"\n", line_name);
  char *text = malloc((size_t)hl + body_len + 1);
  if (text) {
    memcpy(text, head, (size_t)hl);
    memcpy(text + hl, body, body_len + 1);
  }
  free(body);
  if (!text) {
    errno = ENOMEM;
    return NULL;
  }
  return text;
}

/* Tries `dir`/`file_name` (just `file_name` when dir is NULL); on a miss other than "no such
 * file" the reason is kept in *err and the search stops. */
static char *try_dir(const char *dir, size_t dir_len, const char *file_name, char *path,
                     size_t path_size, int *err) {
  if (dir)
    snprintf(path, path_size, "%.*s/%s", (int)dir_len, dir, file_name);
  else
    snprintf(path, path_size, "%s", file_name);
  char *text = read_with_line(path, file_name);
  /* An OP2_KERNEL_PATH entry that is a file, not a directory, holds no kernel: searched on. */
  if (!text) *err = errno == ENOTDIR ? ENOENT : errno;
  return text;
}

/* The search every kernel file goes through: each directory of OP2_KERNEL_PATH (unless the
 * name has a '/'), then the name as given (the current directory, or the path itself), then
 * `extra_dir` when given. NULL with *err set (ENOENT: found nowhere); `path` names the last try. */
static char *find_kernel_file(const op2_context *ctx, const char *file_name, const char *extra_dir,
                              char *path, size_t path_size, int *err) {
  const char *search = strchr(file_name, '/') ? "" : ctx->opt.kernel_path;
  char *text = NULL;
  *err = ENOENT;
  for (const char *dir = search; !text && *err == ENOENT;) {
    size_t n = strcspn(dir, ":");
    if (n) text = try_dir(dir, n, file_name, path, path_size, err);
    if (!dir[n]) break;
    dir += n + 1;
  }
  if (!text && *err == ENOENT) text = try_dir(NULL, 0, file_name, path, path_size, err);
  if (!text && *err == ENOENT && extra_dir)
    text = try_dir(extra_dir, strlen(extra_dir), file_name, path, path_size, err);
  return text;
}

static int usable_name(const char *file_name) {
  return file_name && *file_name && strlen(file_name) <= 1000 && !strpbrk(file_name, "\"\\\n");
}

/* The reason a found file could not be used, for the messages below. */

const char *op_kernel_file(const char *file_name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_kernel_file") != OP2_OK) return NULL;
  if (!usable_name(file_name)) {
    op2_error(OP2_ERR_ARG, "op_kernel_file: '%s' is not a usable file name",
              file_name ? file_name : "(null)");
    return NULL;
  }
  char path[OP2_PATH_BUF];
  int err;
  char *text = find_kernel_file(ctx, file_name, NULL, path, sizeof path, &err);
  if (!text) {
    if (err == ENOENT)
      op2_error(OP2_ERR_IO,
                "op_kernel_file '%s': not found in OP2_KERNEL_PATH (%s) or the current directory",
                file_name, *ctx->opt.kernel_path ? ctx->opt.kernel_path : "unset");
    else
      op2_error(OP2_ERR_IO, "op_kernel_file '%s': cannot read %s: %s", file_name, path,
                op2_kernel_file_failure(err));
    return NULL;
  }
  /* Its quoted includes, from the file's own directory or OP2_KERNEL_PATH (the compile happens
   * elsewhere). */
  if (strstr(text, "#include") || strstr(text, "# include")) {
    char *expanded =
        op2_kernel_expand_includes(strchr(text, '\n') + 1, path, file_name, ctx->opt.kernel_path);
    if (!expanded) {
      free(text);
      op2_error(OP2_ERR_MEM, "op_kernel_file '%s': out of memory", file_name);
      return NULL;
    }
    free(text);
    text = expanded;
  }
  if (op2_list_push(&ctx->kernel_files, text) != OP2_OK) {
    free(text);
    return NULL;
  }
  return text;
}

/* A kernel header already read for a loop name (op_par_loop_header). */
typedef struct kernel_header {
  const char *text; /* owned by ctx->kernel_files */
  char name[];
} kernel_header;

/* The source of loop `name` from its header name.h, read on the loop's first call only. */
static const char *header_source(op2_context *ctx, const char *caller_file, const char *name) {
  for (int i = 0; i < ctx->kernel_headers.count; i++) {
    const kernel_header *h = ctx->kernel_headers.items[i];
    if (strcmp(h->name, name) == 0) return h->text;
  }
  char file_name[1100];
  snprintf(file_name, sizeof file_name, "%s.h", name);
  if (strlen(name) > 1000 || !usable_name(file_name)) {
    op2_error(OP2_ERR_ARG, "op_par_loop '%s': not a name a kernel header can have", name);
    return NULL;
  }
  char *text = op2_kernel_function_source(ctx, caller_file, name); /* reported there */
  if (!text) return NULL;
  kernel_header *h = malloc(sizeof *h + strlen(name) + 1);
  if (!h) {
    free(text);
    op2_error(OP2_ERR_MEM, "op_par_loop '%s': out of memory", name);
    return NULL;
  }
  h->text = text;
  strcpy(h->name, name);
  if (op2_list_push(&ctx->kernel_files, text) != OP2_OK) { /* reported there */
    free(h);
    free(text);
    return NULL;
  }
  if (op2_list_push(&ctx->kernel_headers, h) != OP2_OK) {
    free(h);
    return NULL;
  }
  return text;
}

void op_par_loop_header(const char *caller_file, const char *name, op_set set, int nargs,
                        const op_arg *args) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_par_loop") != OP2_OK) return;
  if (!name) {
    op2_error(OP2_ERR_ARG,
              "op_par_loop: the loop name is NULL (with a kernel function, the "
              "name says which header holds its source)");
    return;
  }
  const char *source = header_source(ctx, caller_file, name);
  if (source) /* kept until op_exit */
    op2_par_loop(ctx, &(op2_loop_call){.kernel = source,
                                       .kernel_kept = true,
                                       .name = name,
                                       .set = set,
                                       .nargs = nargs,
                                       .args = args,
                                       .site = __builtin_return_address(0)});
}
