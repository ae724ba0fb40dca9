/* SPDX-License-Identifier: BSD-3-Clause */
/* Device memory bandwidth for bench/gpu.sh: times device-to-device copies of one buffer through
 * the driver API (libcuda loaded with dlopen, as the library loads it) and prints the best rate
 * as "bandwidth_gbs VALUE", counting each copied byte twice (read and written), the way
 * op_timing_output counts a loop's bytes.
 * Usage: gpu_bandwidth [DRIVER_LIBRARY [MIB]]   (defaults libcuda.so.1, 1024 MiB)
 * Exit status: 0, 1 when the driver or the device fails (the message says which call). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*device_get_fn)(CUdevice *, int);
typedef CUresult (*ctx_retain_fn)(CUcontext *, CUdevice);
typedef CUresult (*ctx_set_fn)(CUcontext);
typedef CUresult (*sync_fn)(void);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*memset_fn)(CUdeviceptr, unsigned char, size_t);
typedef CUresult (*copy_fn)(CUdeviceptr, CUdeviceptr, size_t);

static void *symbol(void *lib, const char *name) {
  void *s = dlsym(lib, name);
  if (!s) {
    fprintf(stderr, "gpu_bandwidth: the driver has no %s\n", name);
    exit(1);
  }
  return s;
}

static void check(CUresult rc, const char *call) {
  if (rc != CUDA_SUCCESS) {
    fprintf(stderr, "gpu_bandwidth: %s failed (CUresult %d)\n", call, (int)rc);
    exit(1);
  }
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "libcuda.so.1";
  long mib = argc > 2 ? atol(argv[2]) : 1024;
  if (mib <= 0) {
    fprintf(stderr, "gpu_bandwidth: MIB must be a positive integer, got '%s'\n", argv[2]);
    return 1;
  }
  void *lib = dlopen(path, RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "gpu_bandwidth: cannot load the CUDA driver %s: %s\n", path, dlerror());
    return 1;
  }
  init_fn cu_init = (init_fn)symbol(lib, "cuInit");
  device_get_fn device_get = (device_get_fn)symbol(lib, "cuDeviceGet");
  ctx_retain_fn retain = (ctx_retain_fn)symbol(lib, "cuDevicePrimaryCtxRetain");
  ctx_set_fn set_current = (ctx_set_fn)symbol(lib, "cuCtxSetCurrent");
  sync_fn sync = (sync_fn)symbol(lib, "cuCtxSynchronize");
  alloc_fn mem_alloc = (alloc_fn)symbol(lib, "cuMemAlloc_v2");
  free_fn mem_free = (free_fn)symbol(lib, "cuMemFree_v2");
  memset_fn mem_set = (memset_fn)symbol(lib, "cuMemsetD8_v2");
  copy_fn copy = (copy_fn)symbol(lib, "cuMemcpyDtoD_v2");
  CUdevice dev;
  CUcontext ctx;
  check(cu_init(0), "cuInit");
  check(device_get(&dev, 0), "cuDeviceGet");
  check(retain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check(set_current(ctx), "cuCtxSetCurrent");
  size_t bytes = (size_t)mib << 20;
  CUdeviceptr a, b;
  check(mem_alloc(&a, bytes), "cuMemAlloc");
  check(mem_alloc(&b, bytes), "cuMemAlloc");
  check(mem_set(a, 1, bytes), "cuMemsetD8");
  check(mem_set(b, 2, bytes), "cuMemsetD8");
  check(sync(), "cuCtxSynchronize");
  double best = 1e30;
  for (int rep = 0; rep < 20; rep++) { /* the best of 20: the first ones warm the device up */
    double t0 = now();
    check(copy(rep % 2 ? a : b, rep % 2 ? b : a, bytes), "cuMemcpyDtoD");
    check(sync(), "cuCtxSynchronize");
    double t = now() - t0;
    if (t < best) best = t;
  }
  check(mem_free(a), "cuMemFree");
  check(mem_free(b), "cuMemFree");
  printf("bandwidth_gbs %.1f\n", 2.0 * (double)bytes / best / 1e9);
  return 0;
}
