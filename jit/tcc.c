/* SPDX-License-Identifier: BSD-3-Clause */
/* The TinyCC tier: milliseconds per kernel, in memory or to a shared object for the disk cache.
 * libtcc keeps global state, so compiles are serialised here. */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libtcc.h>

#include "jit_internal.h"

#ifndef OP2_TCC_VERSION
#define OP2_TCC_VERSION "tcc"
#endif

/* libtcc's global state belongs to the process, not to a library context, so its lock does too:
 * the one mutable file-level variable besides the context pointer (runtime/context.c). */
static pthread_mutex_t tcc_lock = PTHREAD_MUTEX_INITIALIZER;

/* The libraries kernels are linked with: the one list for the cache key and the compile. */
static const char *const tcc_libraries[] = {"m"};
enum { NLIBRARIES = sizeof tcc_libraries / sizeof tcc_libraries[0] };

static void library_flags(char *out, size_t len) {
  size_t n = 0;
  out[0] = '\0';
  for (int i = 0; i < NLIBRARIES && n < len; i++)
    n += (size_t)snprintf(out + n, len - n, "%s-l%s", i ? " " : "", tcc_libraries[i]);
}

static void collect_message(void *opaque, const char *msg) {
  op2_buf *log = opaque;
  op2_buf_printf(log, "%s\n", msg);
}

/* TinyCC writes no PT_GNU_STACK program header, and glibc takes an object without one as asking
 * for an executable stack: dlopen would make every thread's stack executable. A copy of the
 * program headers with a non-executable GNU_STACK entry is appended to the file and the ELF
 * header pointed at it (glibc and the direct loader read program headers at any file offset;
 * TinyCC's own headers are followed by its first section, with no room to grow). */
static int add_stack_header(int fd) {
  Elf64_Ehdr eh;
  Elf64_Phdr ph[33];
  if (pread(fd, &eh, sizeof eh, 0) != (ssize_t)sizeof eh ||
      memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_phentsize != sizeof(Elf64_Phdr) ||
      eh.e_phnum == 0 || eh.e_phnum >= 33)
    return -1;
  size_t len = eh.e_phnum * sizeof(Elf64_Phdr);
  if (pread(fd, ph, len, (off_t)eh.e_phoff) != (ssize_t)len) return -1;
  for (int i = 0; i < eh.e_phnum; i++)
    if (ph[i].p_type == PT_GNU_STACK) return 0;
  ph[eh.e_phnum] = (Elf64_Phdr){.p_type = PT_GNU_STACK, .p_flags = PF_R | PF_W, .p_align = 16};
  struct stat st;
  if (fstat(fd, &st) != 0) return -1;
  off_t at = (st.st_size + 7) & ~(off_t)7;
  len += sizeof(Elf64_Phdr);
  if (pwrite(fd, ph, len, at) != (ssize_t)len) return -1;
  eh.e_phoff = (Elf64_Off)at;
  eh.e_phnum++;
  return pwrite(fd, &eh, sizeof eh, 0) == (ssize_t)sizeof eh ? 0 : -1;
}

/* One TinyCC compile into a shared object written at `path`. */
static int compile_to(const char *source, const char *path, op2_buf *log) {
  int ok = 0;
  pthread_mutex_lock(&tcc_lock);
  TCCState *s = tcc_new();
  if (s) {
    tcc_set_error_func(s, log, collect_message);
    tcc_set_output_type(s, TCC_OUTPUT_DLL);
    ok = tcc_compile_string(s, source) == 0;
    /* C makes a write through a pointer to const an error; TinyCC only warns. Read-only data is
     * passed as const, so this is a kernel writing what it may only read. */
    if (ok && log->data && strstr(log->data, "warning: assignment of read-only location")) ok = 0;
    for (int i = 0; ok && i < NLIBRARIES; i++) ok = tcc_add_library(s, tcc_libraries[i]) == 0;
    if (ok) ok = tcc_output_file(s, path) == 0;
    tcc_delete(s);
  } else {
    op2_buf_printf(log, "tcc_new failed\n");
  }
  pthread_mutex_unlock(&tcc_lock);
  return ok ? OP2_OK : OP2_ERR_JIT;
}

int op2_tcc_compile(const char *source, const char *so_path, char **log_out) {
  op2_buf log = {0};
  int rc = compile_to(source, so_path, &log);
  if (rc == OP2_OK) {
    int fd = open(so_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || add_stack_header(fd) != 0)
      op2_buf_printf(&log, "cannot add a stack header to %s\n", so_path), rc = OP2_ERR_JIT;
    if (fd >= 0) close(fd);
  }
  *log_out = log.data ? log.data : calloc(1, 1);
  return rc;
}

int op2_tcc_compile_memory(const char *source, op2_loaded_objects *known, void **handle,
                           op2_kernel_fn *fn, char **log_out) {
  /* TinyCC's own in-memory mode puts code and data in one writable and executable block: the
   * shared object goes to a file in memory instead, loaded like any other (W^X kept). */
  op2_buf log = {0};
  int rc = OP2_ERR_JIT;
  int fd = memfd_create("op2-tcc-kernel.so", MFD_CLOEXEC);
  char path[64];
  if (fd < 0) {
    op2_buf_printf(&log, "cannot make a file in memory: %s\n", strerror(errno));
  } else {
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd); /* TinyCC writes by name */
    rc = compile_to(source, path, &log);
    if (rc == OP2_OK && add_stack_header(fd) != 0) {
      op2_buf_printf(&log, "cannot add a stack header to TinyCC's object in memory\n");
      rc = OP2_ERR_JIT;
    }
  }
  if (rc == OP2_OK) {
    op2_jit_error why = {.code = OP2_OK};
    void *sym = NULL;
    rc = op2_load_object_fd(known, fd, "TinyCC's object in memory", "op2_loop", handle, &sym, &why);
    if (rc != OP2_OK)
      op2_buf_printf(&log, "%s\n", why.msg);
    else
      *fn = (op2_kernel_fn)sym;
  }
  if (fd >= 0) close(fd);
  *log_out = log.data ? log.data : calloc(1, 1);
  return rc == OP2_OK ? OP2_OK : OP2_ERR_JIT;
}

static int compile_tcc(const op2_tier *t, const char *source, const char *src_path,
                       const char *so_path, char **log, char *flags_used, size_t flags_len) {
  (void)t, (void)src_path;
  library_flags(flags_used, flags_len);
  return op2_tcc_compile(source, so_path, log) == OP2_OK ? 0 : -1;
}

void op2_tcc_tier(op2_tier *t) {
  memset(t, 0, sizeof *t);
  t->name = "tcc";
  /* "+stack": objects carry a PT_GNU_STACK header (add_stack_header) */
  snprintf(t->identity, sizeof t->identity, "libtcc %s+stack", OP2_TCC_VERSION);
  library_flags(t->flags, sizeof t->flags);
  t->compile = compile_tcc;
}
