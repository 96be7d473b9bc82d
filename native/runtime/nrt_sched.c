/* The scheduler thread and its inbox.
 *
 * The core is single threaded, so one thread owns it: every core event is called from here.
 * Back-end threads (completions, prologue starts) and client threads (arrivals) post events to the
 * inbox, a mutex-protected array that the scheduler swaps for an empty one and then handles
 * without the lock, so a producer never waits for the core. The scheduler busy-polls while events
 * are recent (an atomic count tells it, without the lock, whether anything is there), and parks
 * on a condition variable once nothing came for cfg.spin_ns: on a machine with fewer cores than
 * busy threads a spinning thread waits for a scheduler tick to run again, while a parked one is
 * woken at once by the poster. */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/runtime/nrt_internal.h"

enum { INBOX_INITIAL = 256, TIMERS_INITIAL = 64 };
static const int64_t PARK_MAX_NS = 2000000; /* a parked scheduler still checks stop and timers */

int atoll__nrt_inbox_init(atoll_nrt *r) {
  r->in_buf = malloc(INBOX_INITIAL * sizeof *r->in_buf);
  r->in_spare = malloc(INBOX_INITIAL * sizeof *r->in_spare);
  struct atoll_heap_item *items = malloc(TIMERS_INITIAL * sizeof *items);
  if (!r->in_buf || !r->in_spare || !items) {
    free(items);
    return ATOLL_ENOMEM;
  }
  r->in_cap = r->spare_cap = INBOX_INITIAL;
  atomic_init(&r->in_pending, 0);
  atoll_heap_init(&r->timers, items, TIMERS_INITIAL);
  if (pthread_mutex_init(&r->in_mu, NULL) != 0 || atoll__nrt_cond_init(&r->in_cv) != 0)
    return ATOLL_ENOMEM;
  return 0;
}

void atoll__nrt_inbox_free(atoll_nrt *r) {
  free(r->in_buf);
  free(r->in_spare);
  free(r->timers.items);
  pthread_mutex_destroy(&r->in_mu);
  pthread_cond_destroy(&r->in_cv);
}

int atoll_nrt_post(atoll_nrt *r, const atoll_nrt_event *ev) {
  pthread_mutex_lock(&r->in_mu);
  if (r->in_n == r->in_cap) {
    atoll_nrt_event *nb = realloc(r->in_buf, 2 * (size_t)r->in_cap * sizeof *nb);
    if (!nb) {
      pthread_mutex_unlock(&r->in_mu);
      atoll__nrt_set_failure(r, ATOLL_ENOMEM);
      return ATOLL_ENOMEM;
    }
    r->in_buf = nb;
    r->in_cap *= 2;
  }
  r->in_buf[r->in_n++] = *ev;
  atomic_store_explicit(&r->in_pending, r->in_n, memory_order_release);
  if (r->parked)
    pthread_cond_signal(&r->in_cv);
  pthread_mutex_unlock(&r->in_mu);
  return 0;
}

int atoll__nrt_set_timer(atoll_nrt *r, int64_t at, uint64_t cookie) {
  if (atoll_heap_count(&r->timers) == r->timers.cap) {
    uint32_t cap = r->timers.cap * 2;
    struct atoll_heap_item *items = realloc(r->timers.items, cap * sizeof *items);
    if (!items)
      return ATOLL_ENOMEM;
    r->timers.items = items; /* the heap's shape is unchanged: same items, more room */
    r->timers.cap = cap;
  }
  struct atoll_heap_item it = {.time = at, .order = r->timer_seq++, .value = cookie};
  return atoll_heap_push(&r->timers, &it);
}

/* A launch completed (or faulted): the core hears of it unless a preemption's restart point
 * superseded it. */
static void done_for_core(atoll_nrt *r, atoll_core *c, const atoll_nrt_event *ev) {
  if (ev->stream < r->n_streams && ev->seq < r->streams[ev->stream]->withhold_below) {
    r->withheld++;
    return; /* superseded by a preemption's restart point (nrt.c, dev_exec_index) */
  }
  /* A back-end that cannot observe prologues reports no start: the completion is one. */
  if (c && ev->start_ns < 0)
    atoll_core_on_cmd_started(c, ev->stream, ev->tag, ev->at_ns);
  if (c)
    atoll_core_on_cmd_done(c, ev->stream, ev->tag, ev->at_ns);
}

/* A launch that passed its prologue or completed: tell the core, as the simulated device does. */
static void device_event(atoll_nrt *r, const atoll_nrt_event *ev) {
  atoll_core *c = r->core;
  switch (ev->kind) {
  case ATOLL_NRT_EV_START:
    if (c)
      atoll_core_on_cmd_started(c, ev->stream, ev->tag, ev->at_ns);
    break;
  case ATOLL_NRT_EV_DONE:
    switch ((atoll_ndone_status)ev->status) {
    case ATOLL_ND_OK:
      done_for_core(r, c, ev);
      break;
    case ATOLL_ND_EVICTED:
      r->marks.evicted++;
      break;
    case ATOLL_ND_KILLED:
      /* Killed and evicted commands never complete for the core (it restarts them). */
      if (ev->start_ns >= 0)
        atomic_fetch_add_explicit(&r->st_killed_gpu_ns, ev->at_ns - ev->start_ns, memory_order_relaxed);
      break;
    case ATOLL_ND_FAULT:
      /* A fault fails the launch's request, not the device (fault.h): the runner's handler, which
       * sees this event next, marks the request failed, and the core takes the command as done so
       * the task runs to its end and the stream goes on serving. (Launches that could not be bound
       * or submitted also end as faults; the transmit thread flagged the run as failed for them.) */
      done_for_core(r, c, ev);
      break;
    }
    break;
  case ATOLL_NRT_EV_PART_DONE:
    if (ev->status == ATOLL_ND_OK)
      r->padded_parts++;
    if (c && ev->status == ATOLL_ND_OK)
      atoll_core_on_blocks_done(c, ev->stream, ev->tag, ev->a, ev->at_ns);
    break;
  case ATOLL_NRT_EV_DRAINED:
    if (ev->at_ns > r->marks.evict_done_ns)
      r->marks.evict_done_ns = ev->at_ns;
    break;
  default:
    break;
  }
}

/* Handles whatever the inbox holds; returns how many events. */
static uint32_t drain(atoll_nrt *r) {
  if (atomic_load_explicit(&r->in_pending, memory_order_acquire) == 0)
    return 0;
  pthread_mutex_lock(&r->in_mu);
  atoll_nrt_event *batch = r->in_buf;
  uint32_t n = r->in_n, cap = r->in_cap;
  r->in_buf = r->in_spare;
  r->in_cap = r->spare_cap;
  r->in_spare = batch;
  r->spare_cap = cap;
  r->in_n = 0;
  atomic_store_explicit(&r->in_pending, 0, memory_order_relaxed);
  pthread_mutex_unlock(&r->in_mu);
  for (uint32_t i = 0; i < n; i++) {
    device_event(r, &batch[i]);
    if (r->cfg.handler)
      r->cfg.handler(r->cfg.handler_ctx, &batch[i]);
  }
  atomic_fetch_add_explicit(&r->st_events, n, memory_order_relaxed);
  return n;
}

static uint32_t fire_timers(atoll_nrt *r) {
  uint32_t n = 0;
  struct atoll_heap_item it;
  while (atoll_heap_peek(&r->timers, &it) == 0 && it.time <= atoll_nrt_now(r)) {
    atoll_heap_pop(&r->timers, &it);
    if (r->core)
      atoll_core_on_timer(r->core, it.value, atoll_nrt_now(r));
    n++;
  }
  return n;
}

/* Sleeps until an event is posted, the next timer is due, or PARK_MAX_NS has passed. */
static void park(atoll_nrt *r) {
  int64_t until = atoll_nrt_now(r) + PARK_MAX_NS;
  struct atoll_heap_item it;
  if (atoll_heap_peek(&r->timers, &it) == 0 && it.time < until)
    until = it.time;
  struct timespec ts = r->t0;
  ts.tv_sec += until / 1000000000;
  ts.tv_nsec += until % 1000000000;
  if (ts.tv_nsec >= 1000000000)
    ts.tv_sec++, ts.tv_nsec -= 1000000000;
  pthread_mutex_lock(&r->in_mu);
  r->parked = 1;
  while (r->in_n == 0 && !atomic_load(&r->stop)) {
    if (pthread_cond_timedwait(&r->in_cv, &r->in_mu, &ts) == ETIMEDOUT)
      break;
  }
  r->parked = 0;
  pthread_mutex_unlock(&r->in_mu);
}

static void *sched_main(void *arg) {
  atoll_nrt *r = arg;
  if (r->cfg.sched_cpu >= 0)
    atoll__nrt_pin(pthread_self(), r->cfg.sched_cpu);
  /* In the RT class it never busy-polls (nrt.h, cfg.rt_threads). */
  const bool fifo = r->cfg.rt_threads && atoll__nrt_take_rt_class();
  if (r->first)
    r->first(r->first_ctx);
  int64_t last = atoll_nrt_now(r);
  while (!atomic_load_explicit(&r->stop, memory_order_relaxed)) {
    uint32_t n = drain(r);
    n += fire_timers(r);
    if (n) {
      last = atoll_nrt_now(r);
      continue;
    }
    if (!fifo && (r->cfg.spin_ns < 0 || atoll_nrt_now(r) - last < r->cfg.spin_ns)) {
      sched_yield();
      continue;
    }
    park(r);
    last = atoll_nrt_now(r);
  }
  drain(r); /* what was posted before the stop still reaches the core and the handler */
  return NULL;
}

int atoll_nrt_start(atoll_nrt *r, void (*first)(void *ctx), void *ctx) {
  if (r->sched_running)
    return ATOLL_EINVAL;
  r->first = first;
  r->first_ctx = ctx;
  atomic_store(&r->stop, 0);
  if (pthread_create(&r->sched, NULL, sched_main, r) != 0)
    return ATOLL_ENOMEM;
  atoll_nrt_name_thread(r->sched, "sched", -1);
  r->sched_running = 1;
  return 0;
}

void atoll_nrt_stop(atoll_nrt *r) {
  if (!r->sched_running)
    return;
  atomic_store(&r->stop, 1);
  pthread_mutex_lock(&r->in_mu);
  pthread_cond_signal(&r->in_cv);
  pthread_mutex_unlock(&r->in_mu);
  pthread_join(r->sched, NULL);
  r->sched_running = 0;
}

void atoll_nrt_take_marks(atoll_nrt *r, atoll_nrt_marks *out) {
  *out = r->marks;
  memset(&r->marks, 0, sizeof r->marks);
  atoll_npreempt_times t = {0};
  if (r->cfg.be_ops->preempt_times && r->cfg.be_ops->preempt_times(r->be, &t) == 0) {
    /* CLOCK_MONOTONIC to the runtime clock; a time before the runtime's origin reads as none. */
    const int64_t origin = (int64_t)r->t0.tv_sec * 1000000000 + r->t0.tv_nsec;
    const int64_t *in[4] = {&t.flag_ns, &t.drain_ns, &t.kill_ns, &t.rt_start_ns};
    int64_t *dst[4] = {&out->dev_flag_ns, &out->dev_drain_ns, &out->dev_kill_ns, &out->dev_rt_start_ns};
    for (int i = 0; i < 4; i++)
      *dst[i] = *in[i] > origin ? *in[i] - origin : 0;
  }
}
