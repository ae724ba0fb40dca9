/* SPDX-License-Identifier: BSD-3-Clause */
/* NVRTC: generated CUDA source to CUBIN (and its PTX) for one architecture, in process. The CUDA
 * driver is not needed for this, so kernels compile and assemble on machines without a GPU. */
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit_cuda.h"
#include "jit_internal.h"

/* Asked each time (NVRTC answers from constants): nothing cached in file-level state. */
void op2_nvrtc_identity(char *out, size_t len) {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  snprintf(out, len, "nvrtc %d.%d", major, minor);
}

/* NVRTC has no C library headers; kernels written for the C backends may include these, whose
 * content NVRTC provides built in (math) or C++ has anyway (bool). */
static const char *const empty_headers[] = {"math.h", "stdbool.h", "stddef.h", "stdint.h"};
enum { NEMPTY = sizeof empty_headers / sizeof empty_headers[0] };

static char *take_log(nvrtcProgram prog) {
  size_t n = 0;
  if (nvrtcGetProgramLogSize(prog, &n) != NVRTC_SUCCESS || n == 0) return calloc(1, 1);
  char *log = malloc(n + 1);
  if (!log) return NULL;
  if (nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS) log[0] = '\0';
  log[n] = '\0';
  return log;
}

void op2_nvrtc_options_for(const char *arch, op2_nvrtc_options *o) {
  memset(o, 0, sizeof *o);
  snprintf(o->arch_opt, sizeof o->arch_opt, "-arch=%s", arch);
  /* -default-device: the user's plain functions are device functions. --fmad=false: no fused
   * multiply-adds, so results agree with the CPU backends' code. */
  const char *fixed[] = {"-default-device", "--fmad=false", "-std=c++17"};
  o->argv[o->argc++] = o->arch_opt;
  for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) o->argv[o->argc++] = fixed[i];
  size_t n = 0;
  for (int i = 0; i < o->argc && n < sizeof o->text; i++)
    n += (size_t)snprintf(o->text + n, sizeof o->text - n, "%s%s", i ? " " : "", o->argv[i]);
}

int op2_nvrtc_compile(const char *source, size_t len, const char *name, const op2_nvrtc_options *o,
                      char **cubin, size_t *cubin_len, char **ptx, size_t *ptx_len, char **log) {
  *cubin = *ptx = *log = NULL;
  *cubin_len = *ptx_len = 0;
  char *text = malloc(len + 1); /* NVRTC wants a NUL-terminated string */
  if (!text) return OP2_ERR_MEM;
  memcpy(text, source, len);
  text[len] = '\0';
  const char *contents[NEMPTY];
  for (int i = 0; i < NEMPTY; i++) contents[i] = "";
  char file[300];
  snprintf(file, sizeof file, "%s.cu", name);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, text, file, NEMPTY, contents, empty_headers);
  free(text);
  if (r != NVRTC_SUCCESS) {
    op2_buf b = {0};
    op2_buf_printf(&b, "nvrtcCreateProgram: %s\n", nvrtcGetErrorString(r));
    *log = b.data;
    return OP2_ERR_JIT;
  }
  r = nvrtcCompileProgram(prog, o->argc, o->argv);
  *log = take_log(prog);
  if (r == NVRTC_SUCCESS && nvrtcGetCUBINSize(prog, cubin_len) == NVRTC_SUCCESS &&
      (*cubin = malloc(*cubin_len ? *cubin_len : 1)) &&
      nvrtcGetCUBIN(prog, *cubin) == NVRTC_SUCCESS &&
      nvrtcGetPTXSize(prog, ptx_len) == NVRTC_SUCCESS && (*ptx = malloc(*ptx_len + 1)) &&
      nvrtcGetPTX(prog, *ptx) == NVRTC_SUCCESS) {
    if (*ptx_len && (*ptx)[*ptx_len - 1] == '\0') (*ptx_len)--; /* the size counts the NUL */
    nvrtcDestroyProgram(&prog);
    return OP2_OK;
  }
  if (r == NVRTC_SUCCESS) { /* compiled, but the products could not be taken */
    op2_buf b = {0};
    op2_buf_printf(&b, "%sNVRTC gave no CUBIN or PTX for %s\n", *log ? *log : "", o->arch_opt);
    free(*log);
    *log = b.data;
  }
  free(*cubin), free(*ptx);
  *cubin = *ptx = NULL;
  nvrtcDestroyProgram(&prog);
  return OP2_ERR_JIT;
}

/* From ptxas -v's log: "Used R registers[, ...][, S bytes smem]" and "F bytes stack frame, SS
 * bytes spill stores, SL bytes spill loads" of op2_cuda_kernel. */
int op2_ptxas_resources(const char *log, const char *arch, char *out, size_t len) {
  int regs = -1, smem = 0, frame = 0, stores = 0, loads = 0;
  const char *used = strstr(log, "Used ");
  if (!used || sscanf(used, "Used %d registers", &regs) != 1) return -1;
  const char *eol = strchr(used, '\n'), *sm = strstr(used, " bytes smem");
  if (sm && (!eol || sm < eol)) {
    while (sm > used && sm[-1] >= '0' && sm[-1] <= '9') sm--;
    smem = atoi(sm);
  }
  const char *fr = strstr(log, "bytes stack frame");
  if (fr) {
    while (fr > log && (fr[-1] == ' ' || (fr[-1] >= '0' && fr[-1] <= '9'))) fr--;
    if (sscanf(fr, "%d bytes stack frame, %d bytes spill stores, %d bytes spill loads", &frame,
               &stores, &loads) != 3)
      frame = stores = loads = 0;
  }
  snprintf(out, len,
           "%s (ptxas -v): %d registers, %d bytes spill stores, %d bytes spill loads, %d bytes "
           "stack frame, %d bytes static shared memory (dynamic shared memory is per launch)",
           arch, regs, stores, loads, frame, smem);
  return 0;
}

/* ptxas reads the PTX from, and writes its CUBIN into, a private run directory (run_dir.c): never
 * /dev/null, which a tool that unlinks its output first would replace for the whole machine. */
int op2_ptxas_check(const char *ptxas, const char *ptx, size_t len, const char *arch, int timeout_s,
                    char **log) {
  char ptx_path[OP2_PATH_BUF], cubin_path[OP2_PATH_BUF], arch_opt[64];
  op2_buf out = {0};
  op2_run_dir dir;
  int rc = OP2_SPAWN_BROKEN;
  if (op2_run_dir_open(&dir, &out) == 0) {
    op2_run_dir_file(&dir, "kernel.ptx", ptx_path, sizeof ptx_path);
    op2_run_dir_file(&dir, "kernel.cubin", cubin_path, sizeof cubin_path);
    if (op2_run_dir_write(&dir, "kernel.ptx", ptx, len, &out) == 0) {
      snprintf(arch_opt, sizeof arch_opt, "-arch=%s", arch);
      /* -v: the log then also says what the kernel uses (op2_ptxas_resources) */
      char *argv[] = {(char *)ptxas, "-v", arch_opt, ptx_path, "-o", cubin_path, NULL};
      rc = op2_spawn_capture(ptxas, argv, timeout_s, &out);
    }
    op2_run_dir_close(&dir);
  }
  *log = out.data ? out.data : calloc(1, 1);
  return rc;
}
