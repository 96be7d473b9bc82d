/* Test observability: asks a stream's transmit thread why it holds its HQ back (nrt.h). Kept apart
 * from the runtime's own paths: the only hook in them is the park counter in transmit_main. */
#include <time.h>

#include "native/runtime/nrt_internal.h"

int atoll_nrt_tx_probe(atoll_nrt *r, uint32_t sid, int64_t timeout_ns, atoll_nrt_tx_park *out) {
  *out = (atoll_nrt_tx_park){0};
  if (sid >= r->n_streams)
    return ATOLL_EINVAL;
  nrt_stream *s = r->streams[sid];
  int64_t until = atoll_nrt_now(r) + timeout_ns;
  pthread_mutex_lock(&s->mu);
  uint64_t before = s->tx_parks;
  pthread_cond_broadcast(&s->cv);
  while (s->tx_parks == before && atoll_nrt_now(r) < until) {
    pthread_mutex_unlock(&s->mu);
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&s->mu);
  }
  if (s->tx_parks != before) {
    /* It counted the park under s->mu and waits on s->cv until woken: what is read here is the
     * state it found it could not act on. */
    out->why = !s->hq_head ? ATOLL_NRT_TX_HQ_EMPTY : s->flag_on ? ATOLL_NRT_TX_FLAG : ATOLL_NRT_TX_DQ_FULL;
  }
  out->hq = s->hq_count;
  out->dq = s->in_flight;
  pthread_mutex_unlock(&s->mu);
  return 0;
}
