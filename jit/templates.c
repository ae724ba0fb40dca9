/* SPDX-License-Identifier: BSD-3-Clause */
/* Access to the templates under templates/, embedded at build time. OP2_TEMPLATE_DIR points at a
 * source tree's templates/ instead, so template edits take effect without rebuilding. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_internal.h"

typedef struct {
  const char *name;
  const char *text;
  size_t length;
} op2_template_entry;
extern const op2_template_entry op2_templates[];
extern const int op2_ntemplates;

char *op2_template_load(op2_jit *jit, const char *name) {
  if (jit->cfg.template_dir[0]) {
    char path[OP2_PATH_BUF];
    snprintf(path, sizeof path, "%s/%s", jit->cfg.template_dir, name);
    char *data;
    size_t len;
    if (op2_read_file(path, &data, &len) == 0) return data;
    op2_jit_fail(jit, OP2_ERR_IO, "template %s not found in OP2_TEMPLATE_DIR (%s)", name, path);
    return NULL;
  }
  for (int i = 0; i < op2_ntemplates; i++) {
    if (strcmp(op2_templates[i].name, name) == 0) {
      char *copy = malloc(op2_templates[i].length + 1);
      if (!copy) break;
      memcpy(copy, op2_templates[i].text, op2_templates[i].length + 1);
      return copy;
    }
  }
  op2_jit_fail(jit, OP2_ERR_JIT, "template %s is not built into the library", name);
  return NULL;
}
