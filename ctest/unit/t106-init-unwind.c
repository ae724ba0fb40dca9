/* op_init failing part way (each of its allocations fails in turn) leaves nothing running: in
 * particular a backend that had started (cuda-emu holds emulator state from its init) is
 * finalised again before op_init returns its error. The sanitizer build also sees any leak.
 *
 * The test is linked with -Wl,--wrap=calloc (the library is static), so every calloc of the
 * library goes through fail_calloc below; the counters are this test's own. */
#include <errno.h>
#include <stdlib.h>

#include "test.h"
#include "op2_impl.h"

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static int calloc_calls, calloc_fail_at; /* 0: never fail */

void *__wrap_calloc(size_t n, size_t size) {
  if (++calloc_calls == calloc_fail_at) {
    errno = ENOMEM;
    return NULL;
  }
  return __real_calloc(n, size);
}

int main(void) {
  setenv("OP2_BACKEND", "cuda-emu", 1);
  test_catch_errors();
  op2_ctx(); /* the context itself is not op_init's to allocate */

  calloc_calls = 0;
  op_init(0, NULL, 0);
  int during_init = calloc_calls;
  CHECK(op2_ctx()->initialised);
  op_exit();
  CHECK(during_init > 0);

  int failed = 0, last_failed = 0;
  for (int n = 1; n <= during_init; n++) {
    calloc_calls = 0;
    calloc_fail_at = n;
    test_errors_expected = 1;
    op_init(0, NULL, 0);
    test_errors_expected = 0;
    calloc_fail_at = 0;
    op2_context *ctx = op2_ctx();
    if (!ctx->initialised) {
      failed++;
      last_failed = n == during_init;
      if (ctx->backend_data)
        fprintf(stderr, "allocation %d of op_init failed and the backend was left running\n", n);
      CHECK(ctx->backend_data == NULL);
      CHECK_CONTAINS(op_last_error(), "out of memory");
    }
    op_exit();
  }
  CHECK(failed > 0);
  CHECK(last_failed); /* the JIT's state, allocated after the backend started */
  return 0;
}
