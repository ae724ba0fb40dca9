/* SPDX-License-Identifier: BSD-3-Clause */
/* The objects an engine loaded, with the file each came from (see cache_entry.h). */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "jit/jit.h"

#include "cache_entry.h"

void op2_loaded_objects_init(op2_loaded_objects *t) {
  pthread_mutex_init(&t->lock, NULL);
  t->v = NULL;
  t->n = t->cap = 0;
  t->serial = 0;
  t->loader = OP2_LOADER_AUTO;
  t->direct_after = OP2_DIRECT_AFTER;
  t->loads = 0;
  t->diag = NULL;
  t->diag_ctx = NULL;
  t->needed = NULL;
  t->nneeded = 0;
}

void op2_loaded_objects_destroy(op2_loaded_objects *t) {
  pthread_mutex_destroy(&t->lock);
  free(t->v);
  t->v = NULL;
  t->n = t->cap = 0;
  /* the libraries stay open: kernels loaded directly may still call into them */
  for (int i = 0; i < t->nneeded; i++) free(t->needed[i].name);
  free(t->needed);
  t->needed = NULL;
  t->nneeded = 0;
}

static int link_of(void *handle, uintptr_t *addr, uintptr_t *ld) {
  struct link_map *lm = NULL;
  if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) return -1;
  *addr = (uintptr_t)lm->l_addr, *ld = (uintptr_t)lm->l_ld;
  return 0;
}

int op2_loaded_objects_find(op2_loaded_objects *t, void *handle, dev_t *dev, ino_t *ino) {
  uintptr_t addr, ld;
  if (!t || link_of(handle, &addr, &ld) != 0) return 0;
  int found = 0;
  pthread_mutex_lock(&t->lock);
  for (int i = 0; i < t->n && !found; i++)
    if (t->v[i].handle == handle && t->v[i].addr == addr && t->v[i].ld == ld)
      *dev = t->v[i].dev, *ino = t->v[i].ino, found = 1;
  pthread_mutex_unlock(&t->lock);
  return found;
}

void op2_loaded_objects_add(op2_loaded_objects *t, void *handle, dev_t dev, ino_t ino) {
  uintptr_t addr, ld;
  if (!t || link_of(handle, &addr, &ld) != 0) return;
  op2_loaded_object o = {handle, addr, ld, dev, ino};
  pthread_mutex_lock(&t->lock);
  int i = 0;
  while (i < t->n && t->v[i].handle != handle) i++;
  if (i == t->n && t->n == t->cap) {
    int cap = t->cap ? 2 * t->cap : 32;
    op2_loaded_object *grown = realloc(t->v, sizeof *grown * (size_t)cap);
    if (grown) t->v = grown, t->cap = cap;
  }
  if (i < t->cap) {
    t->v[i] = o;
    if (i == t->n) t->n++;
  }
  pthread_mutex_unlock(&t->lock);
}

unsigned op2_loaded_objects_serial(op2_loaded_objects *t) {
  if (!t) return 0;
  pthread_mutex_lock(&t->lock);
  unsigned s = t->serial++;
  pthread_mutex_unlock(&t->lock);
  return s;
}

void *op2_loaded_objects_needed(void *table, const char *name) {
  op2_loaded_objects *t = table;
  pthread_mutex_lock(&t->lock);
  void *dl = NULL;
  for (int i = 0; i < t->nneeded && !dl; i++) /* a handful of names: libc, libm */
    if (strcmp(t->needed[i].name, name) == 0) dl = t->needed[i].dl;
  if (!dl && (dl = dlopen(name, RTLD_NOW | RTLD_LOCAL))) {
    struct op2_needed_library *grown = realloc(t->needed, sizeof *grown * (size_t)(t->nneeded + 1));
    char *copy = strdup(name);
    if (grown) t->needed = grown;
    if (grown && copy)
      t->needed[t->nneeded++] = (struct op2_needed_library){copy, dl};
    else
      free(copy); /* not remembered: asked again next time, at dlopen's cost */
  }
  pthread_mutex_unlock(&t->lock);
  return dl;
}
