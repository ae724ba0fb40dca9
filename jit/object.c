/* SPDX-License-Identifier: BSD-3-Clause */
/* A loaded kernel object, whichever loader mapped it (cache_entry.h): its symbols and its end. */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "cache_entry.h"
#include "elf_load.h"

struct op2_object {
  void *dl;           /* dlopen's handle, or NULL */
  op2_elf_image *img; /* the direct loader's image, or NULL */
  char *dlopen_why;   /* why the direct loader left it to dlopen, or NULL */
};

op2_object *op2_object_wrap(void *dl, op2_elf_image *img) {
  op2_object *o = malloc(sizeof *o);
  if (o) o->dl = dl, o->img = img, o->dlopen_why = NULL;
  return o;
}

void op2_object_set_dlopen_why(op2_object *o, const char *why) {
  free(o->dlopen_why);
  o->dlopen_why = why ? strdup(why) : NULL;
}

const char *op2_object_dlopen_why(const op2_object *o) {
  return o ? o->dlopen_why : NULL;
}

void *op2_object_symbol(const op2_object *o, const char *name, size_t *bytes) {
  if (bytes) *bytes = 0;
  if (!o) return NULL;
  if (o->img) return op2_elf_symbol(o->img, name, bytes);
  void *p = dlsym(o->dl, name);
  Dl_info info;
  const ElfW(Sym) *sym = NULL;
  if (p && bytes && dladdr1(p, &info, (void **)&sym, RTLD_DL_SYMENT) && sym)
    *bytes = (size_t)sym->st_size;
  return p;
}

void op2_object_close(op2_object *o) {
  if (!o) return;
  if (o->img) op2_elf_unload(o->img);
  if (o->dl) dlclose(o->dl);
  free(o->dlopen_why);
  free(o);
}

void *op2_object_dl(const op2_object *o) {
  return o ? o->dl : NULL;
}
