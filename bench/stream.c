/* SPDX-License-Identifier: BSD-3-Clause */
/* STREAM-style memory bandwidth probe: copy, scale, add and triad over three double arrays far
 * larger than the caches, with 1 and 2 (or the given) OpenMP thread counts, best of N repeats.
 * Bytes are counted as STREAM does: what the kernel reads plus what it writes (no write-allocate
 * traffic), the same convention as op2jit's per-loop byte counts.
 *
 * Usage: stream [--elements N] [--repeats R] [--threads T1,T2,...] [--json FILE]
 * Build (bench/run.py does this): cc -O3 -march=native -fopenmp bench/stream.c -o stream
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COPY, SCALE, ADD, TRIAD, NKERNELS, MAX_THREAD_COUNTS = 8 };
static const char *const kernel_names[NKERNELS] = {"copy", "scale", "add", "triad"};
static const int arrays_touched[NKERNELS] = {2, 2, 3, 3};

/* Each kernel is its own parallel region with a static schedule, so every thread touches the
 * same pages it first-touched in init(): the numbers then measure memory, not page migration. */
static void run_kernel(int k, double *restrict a, double *restrict b, double *restrict c, long n,
                       double s) {
  switch (k) {
    case COPY:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) c[i] = a[i];
      break;
    case SCALE:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) b[i] = s * c[i];
      break;
    case ADD:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) c[i] = a[i] + b[i];
      break;
    default:
#pragma omp parallel for schedule(static)
      for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
      break;
  }
}

static void init(double *a, double *b, double *c, long n) {
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; i++) a[i] = 1.0, b[i] = 2.0, c[i] = 0.0;
}

static double *alloc_array(long n) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, (size_t)n * sizeof(double)) != 0) {
    fprintf(stderr, "stream: cannot allocate %ld doubles\n", n);
    exit(1);
  }
  return p;
}

static int parse_threads(const char *s, int *out) {
  int count = 0;
  while (*s && count < MAX_THREAD_COUNTS) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 1 || v > 1024) return -1;
    out[count++] = (int)v;
    s = *end == ',' ? end + 1 : end;
    if (*end && *end != ',') return -1;
  }
  return count;
}

int main(int argc, char **argv) {
  /* 20M doubles = 160 MB per array: at least 4x the last-level caches of the machines this runs
   * on (a 32 MiB L3 here), as STREAM's rules ask. */
  long n = 20 * 1000 * 1000;
  int repeats = 10, threads[MAX_THREAD_COUNTS] = {1, 2}, nthreads = 2;
  const char *json_path = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--elements") == 0 && i + 1 < argc) {
      n = atol(argv[++i]);
    } else if (strcmp(argv[i], "--repeats") == 0 && i + 1 < argc) {
      repeats = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
      nthreads = parse_threads(argv[++i], threads);
    } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      nthreads = -1;
      break;
    }
  }
  if (n < 1000 || repeats < 1 || nthreads < 1) {
    fprintf(stderr, "usage: %s [--elements N] [--repeats R] [--threads T1,T2,...] [--json FILE]\n",
            argv[0]);
    return 2;
  }

  double *a = alloc_array(n), *b = alloc_array(n), *c = alloc_array(n);
  double best_gbs[MAX_THREAD_COUNTS][NKERNELS];
  const double s = 3.0;
  printf("stream: %ld doubles per array (%.1f MB each), best of %d\n", n,
         (double)n * sizeof(double) / 1e6, repeats);
  printf("  %-8s %10s %10s %10s %10s   (GB/s)\n", "threads", "copy", "scale", "add", "triad");
  for (int t = 0; t < nthreads; t++) {
    omp_set_num_threads(threads[t]);
    init(a, b, c, n);
    double best[NKERNELS];
    for (int k = 0; k < NKERNELS; k++) best[k] = 1e30;
    for (int r = 0; r < repeats; r++) {
      for (int k = 0; k < NKERNELS; k++) {
        double t0 = omp_get_wtime();
        run_kernel(k, a, b, c, n, s);
        double dt = omp_get_wtime() - t0;
        if (dt < best[k]) best[k] = dt;
      }
    }
    printf("  %-8d", threads[t]);
    for (int k = 0; k < NKERNELS; k++) {
      best_gbs[t][k] = (double)arrays_touched[k] * (double)n * sizeof(double) / best[k] / 1e9;
      printf(" %10.2f", best_gbs[t][k]);
    }
    printf("\n");
  }

  /* Keeps the compiler from discarding the kernels, and catches a broken build: after the
   * sequence above every element has the same, predictable value. */
  double check = a[n / 2] + b[n / 3] + c[n - 1];
  if (!(check > 0)) {
    fprintf(stderr, "stream: implausible array contents (%g)\n", check);
    return 1;
  }

  if (json_path) {
    FILE *f = fopen(json_path, "w");
    if (!f) {
      fprintf(stderr, "stream: cannot write %s\n", json_path);
      return 1;
    }
    fprintf(f, "{\n  \"elements\": %ld,\n  \"repeats\": %d,\n  \"results\": [\n", n, repeats);
    for (int t = 0; t < nthreads; t++) {
      fprintf(f, "    {\"threads\": %d", threads[t]);
      for (int k = 0; k < NKERNELS; k++)
        fprintf(f, ", \"%s_gb_per_s\": %.6g", kernel_names[k], best_gbs[t][k]);
      fprintf(f, "}%s\n", t + 1 < nthreads ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    if (fclose(f) != 0) return 1;
  }
  free(a), free(b), free(c);
  return 0;
}
