/* op2jit prelude for C kernels: what every kernel may use without including anything. */
/* Strict ISO names only: glibc's extras (gamma, j0, y0, ...) would clash with user constants. */
#define _ISOC11_SOURCE 1
#include <math.h>
#include <stddef.h>

#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
