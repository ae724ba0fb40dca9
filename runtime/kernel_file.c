/* op_kernel_file: a kernel read from its own header at run time, found along OP2_KERNEL_PATH.
 * The text is the file byte for byte after a #line naming it, so compiler messages point into
 * the header at its own line numbers (as op2-embed does at build time). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "op2_impl.h"

/* The whole file after the #line prefix, or NULL with errno set. */
static char *read_with_line(const char *path, const char *line_name) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char head[1200];
  int hl = snprintf(head, sizeof head, "#line 1 \"%s\"\n", line_name);
  size_t len = (size_t)hl, cap = 8192;
  char *text = malloc(cap);
  if (text) memcpy(text, head, len);
  size_t got;
  while (text && (got = fread(text + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) {
      char *bigger = realloc(text, cap *= 2);
      if (!bigger) free(text);
      text = bigger;
    }
  }
  int failed = !text || ferror(f);
  int saved = errno;
  fclose(f);
  if (failed) {
    free(text);
    errno = text ? saved : ENOMEM;
    return NULL;
  }
  text[len] = 0;
  if (strlen(text) != len) { /* a NUL inside: the kernel would end there */
    free(text);
    errno = EINVAL;
    return NULL;
  }
  return text;
}

const char *op_kernel_file(const char *file_name) {
  op2_context *ctx = op2_ctx();
  if (op2_require_init("op_kernel_file") != OP2_OK) return NULL;
  if (!file_name || !*file_name || strlen(file_name) > 1000 || strpbrk(file_name, "\"\\\n")) {
    op2_error(OP2_ERR_ARG, "op_kernel_file: '%s' is not a usable file name",
              file_name ? file_name : "(null)");
    return NULL;
  }
  const char *search = strchr(file_name, '/') ? "" : ctx->opt.kernel_path;
  char path[4096];
  char *text = NULL;
  int err = ENOENT;
  /* Each directory of OP2_KERNEL_PATH in turn, then the file name as given (the current
   * directory, or the path itself when it has a '/'). */
  for (const char *dir = search; !text;) {
    size_t n = strcspn(dir, ":");
    if (n) {
      snprintf(path, sizeof path, "%.*s/%s", (int)n, dir, file_name);
      text = read_with_line(path, file_name);
      if (!text && errno != ENOENT) {
        err = errno;
        break;
      }
    }
    if (!dir[n]) break;
    dir += n + 1;
  }
  if (!text && err == ENOENT) {
    snprintf(path, sizeof path, "%s", file_name);
    text = read_with_line(path, file_name);
    if (!text) err = errno;
  }
  if (!text) {
    if (err == ENOENT)
      op2_error(OP2_ERR_IO,
                "op_kernel_file '%s': not found in OP2_KERNEL_PATH (%s) or the current directory",
                file_name, *ctx->opt.kernel_path ? ctx->opt.kernel_path : "unset");
    else
      op2_error(OP2_ERR_IO, "op_kernel_file '%s': cannot read %s: %s", file_name, path,
                err == EINVAL ? "it contains a NUL byte" : strerror(err));
    return NULL;
  }
  if (op2_list_push(&ctx->kernel_files, text) != OP2_OK) {
    free(text);
    return NULL;
  }
  return text;
}
