/* SPDX-License-Identifier: BSD-3-Clause */
/* The real CUDA driver, loaded with dlopen at first use and never linked: the library builds and
 * runs on machines without a GPU or a driver, and only OP2_BACKEND=cuda needs libcuda.so.1. */
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cuda/cuda.h"

/* Versioned names where cuda.h maps the API name to one (the _v2 ABI of 64-bit pointers). */
static const struct {
  size_t offset;
  const char *symbol;
} symbols[] = {
    {offsetof(op2_cu_api, cuInit), "cuInit"},
    {offsetof(op2_cu_api, cuDeviceGetCount), "cuDeviceGetCount"},
    {offsetof(op2_cu_api, cuDeviceGet), "cuDeviceGet"},
    {offsetof(op2_cu_api, cuDeviceGetAttribute), "cuDeviceGetAttribute"},
    {offsetof(op2_cu_api, cuDeviceGetName), "cuDeviceGetName"},
    {offsetof(op2_cu_api, cuDevicePrimaryCtxRetain), "cuDevicePrimaryCtxRetain"},
    {offsetof(op2_cu_api, cuDevicePrimaryCtxRelease), "cuDevicePrimaryCtxRelease_v2"},
    {offsetof(op2_cu_api, cuCtxSetCurrent), "cuCtxSetCurrent"},
    {offsetof(op2_cu_api, cuCtxSynchronize), "cuCtxSynchronize"},
    {offsetof(op2_cu_api, cuModuleLoadData), "cuModuleLoadData"},
    {offsetof(op2_cu_api, cuModuleUnload), "cuModuleUnload"},
    {offsetof(op2_cu_api, cuModuleGetFunction), "cuModuleGetFunction"},
    {offsetof(op2_cu_api, cuFuncSetAttribute), "cuFuncSetAttribute"},
    {offsetof(op2_cu_api, cuMemAlloc), "cuMemAlloc_v2"},
    {offsetof(op2_cu_api, cuMemFree), "cuMemFree_v2"},
    {offsetof(op2_cu_api, cuMemcpyHtoD), "cuMemcpyHtoD_v2"},
    {offsetof(op2_cu_api, cuMemcpyDtoH), "cuMemcpyDtoH_v2"},
    {offsetof(op2_cu_api, cuLaunchKernel), "cuLaunchKernel"},
    {offsetof(op2_cu_api, cuGetErrorString), "cuGetErrorString"},
    {offsetof(op2_cu_api, cuFuncGetAttribute), "cuFuncGetAttribute"},
    {offsetof(op2_cu_api, cuMemHostAlloc), "cuMemHostAlloc"},
    {offsetof(op2_cu_api, cuMemFreeHost), "cuMemFreeHost"},
    {offsetof(op2_cu_api, cuModuleGetGlobal), "cuModuleGetGlobal_v2"},
};

int op2_cu_driver_load(const char *path, op2_cu_api *api, void **handle, op2_jit_error *why) {
  memset(api, 0, sizeof *api);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *e = dlerror();
    return op2_jit_error_set(why, OP2_ERR_STATE, "%s", e ? e : path);
  }
  for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
    void *sym = dlsym(h, symbols[i].symbol);
    if (!sym) {
      dlclose(h);
      return op2_jit_error_set(why, OP2_ERR_STATE, "%s has no %s: not CUDA's driver, or too old",
                               path, symbols[i].symbol);
    }
    /* an object pointer into a function pointer field: copied, as dlsym's contract allows */
    memcpy((char *)api + symbols[i].offset, &sym, sizeof sym);
  }
  api->name = "libcuda";
  *handle = h;
  return OP2_OK;
}
