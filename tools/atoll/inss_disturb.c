/* Outside disturbance of a native fit's runs (tools/atoll/inss_disturb.h). */
#include "tools/atoll/inss_disturb.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "native/cpu/cpu_backend.h"
#include "native/kernels/ak.h"

typedef struct span {
  int64_t from, to; /* CLOCK_MONOTONIC, ns */
} span;

/* One fit measures one run at a time; the CU workers are that run's threads. */
static struct {
  pthread_mutex_t mu;
  int64_t lost_ns;
  span *lost;         /* blocks descheduled for more than lost_ns */
  uint32_t n_lost, cap_lost;
  int64_t *start, *done; /* per client x per_client request: CLOCK_MONOTONIC stamps, 0: none */
  uint32_t n_clients, per_client;
  atomic_uint_fast64_t blocks, hist[5];
} g = {.mu = PTHREAD_MUTEX_INITIALIZER};

static int64_t clock_ns(clockid_t id) {
  struct timespec ts;
  clock_gettime(id, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int timed_block(uint32_t kernel, const ak_args *a, const ak_ctx *c) {
  int64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
  int rc = ak_run_block(kernel, a, c);
  int64_t c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID), w1 = clock_ns(CLOCK_MONOTONIC);
  int64_t lost = (w1 - w0) - (c1 - c0);
  atomic_fetch_add_explicit(&g.blocks, 1, memory_order_relaxed);
  int bucket = lost < 20000 ? 0 : lost < 100000 ? 1 : lost < 300000 ? 2 : lost < 1000000 ? 3 : 4;
  atomic_fetch_add_explicit(&g.hist[bucket], 1, memory_order_relaxed);
  if (lost > g.lost_ns) {
    pthread_mutex_lock(&g.mu);
    if (g.n_lost == g.cap_lost) {
      uint32_t cap = g.cap_lost ? 2 * g.cap_lost : 256;
      span *p = realloc(g.lost, cap * sizeof *p);
      if (p)
        g.lost = p, g.cap_lost = cap;
    }
    if (g.n_lost < g.cap_lost)
      g.lost[g.n_lost++] = (span){w0, w1};
    pthread_mutex_unlock(&g.mu);
  }
  return rc;
}

static void stamp(int64_t *at, uint32_t client, uint64_t req) {
  if (at && client < g.n_clients && req < g.per_client)
    at[(size_t)client * g.per_client + req] = clock_ns(CLOCK_MONOTONIC);
}

static void on_started(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)now;
  stamp(g.start, client, req);
}

static void on_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)now;
  stamp(g.done, client, req);
}

static const atoll_core_observer tap = {.request_started = on_started, .request_done = on_done};

const atoll_core_observer *atoll__inss_disturb_tap(void) { return &tap; }

int atoll__inss_disturb_begin(int64_t lost_ns, uint32_t n_clients, uint32_t per_client) {
  g.lost_ns = lost_ns;
  g.n_lost = 0;
  g.n_clients = n_clients, g.per_client = per_client;
  free(g.start), free(g.done);
  g.start = calloc((size_t)n_clients * per_client + 1, sizeof *g.start);
  g.done = calloc((size_t)n_clients * per_client + 1, sizeof *g.done);
  atomic_store(&g.blocks, 0);
  for (int k = 0; k < 5; k++)
    atomic_store(&g.hist[k], 0);
  if (!g.start || !g.done)
    return ATOLL_ENOMEM;
  atoll_ncpu_set_block_fn(timed_block);
  return 0;
}

uint32_t atoll__inss_disturb_end(atoll_run_results *res, atoll_inss_disturb_stats *st) {
  atoll_ncpu_set_block_fn(NULL);
  uint32_t marked = 0;
  for (uint32_t c = 0; res && res->clients && c < g.n_clients; c++) {
    atoll_client_records *r = &res->clients[c];
    for (uint32_t q = 0; q < r->n && q < g.per_client; q++) {
      int64_t from = g.start[(size_t)c * g.per_client + q], to = g.done[(size_t)c * g.per_client + q];
      if (from <= 0 || to <= 0)
        continue;
      for (uint32_t k = 0; k < g.n_lost && !r->req[q].disturbed; k++)
        r->req[q].disturbed = g.lost[k].from < to && g.lost[k].to > from;
      marked += r->req[q].disturbed;
    }
  }
  if (st) {
    st->blocks += atomic_load(&g.blocks);
    st->lost_blocks += g.n_lost;
    for (int k = 0; k < 5; k++)
      st->lost_hist[k] += atomic_load(&g.hist[k]);
  }
  free(g.start), free(g.done);
  g.start = g.done = NULL;
  g.n_clients = g.per_client = 0;
  return marked;
}
