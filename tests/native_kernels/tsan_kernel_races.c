/* tsan_kernel_races.c — ThreadSanitizer still sees the kernels' shared data (built only with
 * ATOLL_SANITIZE=thread). Under TSan the kernel bodies are not instrumented access by access:
 * AK_LD/AK_ST and the dispatcher report what a block shares with other threads (ak.h, AK_TSAN).
 * Each mode runs two threads that call ak_run_block at once:
 *   output  both run block 0 of one `add` launch, so both write the same outputs: a race that TSan
 *           must report in the kernel body (k_eltwise.h);
 *   args    one thread runs the launch while the other rewrites an argument slot: a race that TSan
 *           must report through the dispatcher's report of the arguments (ak_dispatch.c);
 *   apart   the threads run blocks 0 and 1, which share the inputs and arguments (reads only) and
 *           write disjoint outputs: no race, so TSan must stay silent (exit 0).
 * The first two pass on TSan's report (PASS_REGULAR_EXPRESSION in CMakeLists.txt), not on the exit
 * status, which TSan sets to 66 after a report. */
#include "native/kernels/ak.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 4096, PER_BLOCK = N / 2 };

static float x[N], y[N], out[N];
static ak_args args;

typedef struct {
  uint32_t block;
  int rewrite_args; /* 1: write an argument slot instead of running a block */
  int rc;
} worker;

static void *work(void *arg) {
  worker *w = arg;
  if (w->rewrite_args) {
    args.i[1] = PER_BLOCK; /* the same value: still a write the launch's reads race with */
    return NULL;
  }
  const ak_ctx ctx = {.block = w->block, .grid = 2, .threads = 1};
  w->rc = ak_run_block(AK_K_ADD, &args, &ctx);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2 || (strcmp(argv[1], "output") && strcmp(argv[1], "args") && strcmp(argv[1], "apart"))) {
    fprintf(stderr, "usage: tsan_kernel_races output|args|apart\n");
    return 2;
  }
  for (int e = 0; e < N; e++) {
    x[e] = (float)e;
    y[e] = 1.0f;
  }
  args.p[0] = x;
  args.p[1] = y;
  args.p[2] = out;
  args.i[0] = N;
  args.i[1] = PER_BLOCK;
  worker w[2] = {{.block = 0}, {.block = 0}};
  if (!strcmp(argv[1], "apart"))
    w[1].block = 1;
  else if (!strcmp(argv[1], "args"))
    w[1].rewrite_args = 1;
  pthread_t t[2];
  for (int k = 0; k < 2; k++)
    if (pthread_create(&t[k], NULL, work, &w[k])) {
      fprintf(stderr, "tsan_kernel_races: pthread_create failed\n");
      return 1;
    }
  for (int k = 0; k < 2; k++)
    pthread_join(t[k], NULL);
  for (int k = 0; k < 2; k++)
    if (!w[k].rewrite_args && w[k].rc != AK_DONE) {
      fprintf(stderr, "tsan_kernel_races: block %u returned %d\n", w[k].block, w[k].rc);
      return 1;
    }
  /* Every output a block wrote is x + y, whichever thread wrote it last. */
  const int written = !strcmp(argv[1], "apart") ? N : PER_BLOCK;
  for (int e = 0; e < written; e++)
    if (out[e] != x[e] + y[e]) {
      fprintf(stderr, "tsan_kernel_races: out[%d] = %g, expected %g\n", e, (double)out[e], (double)(x[e] + y[e]));
      return 1;
    }
  printf("tsan_kernel_races %s: %d outputs right\n", argv[1], written);
  return 0;
}
