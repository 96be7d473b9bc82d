/* The GC thread: asynchronous reclamation of the commands an HQ reset dropped (REEF §4.2).
 *
 * A synchronous HQ reset frees every dropped command before the preemption can go on, so its cost
 * grows with the queue; with asynchronous reclamation the reset only cuts the list off and hands
 * it here, which makes the preemption's host work constant. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>

#include "atoll/error.h"
#include "native/runtime/nrt_internal.h"

enum { POOL_CHUNK = 1024 };

int atoll__nrt_pool_init(atoll_nrt *r) { return pthread_mutex_init(&r->pool_mu, NULL) == 0 ? 0 : ATOLL_ENOMEM; }

void atoll__nrt_pool_free(atoll_nrt *r) {
  for (uint32_t i = 0; i < r->n_chunks; i++)
    free(r->chunks[i]);
  free(r->chunks);
  r->chunks = NULL;
  r->n_chunks = r->cap_chunks = 0;
  r->pool = NULL;
  pthread_mutex_destroy(&r->pool_mu);
}

/* Adds a chunk of nodes to the pool. Called with pool_mu held. */
static int grow(atoll_nrt *r) {
  if (r->n_chunks == r->cap_chunks) {
    uint32_t cap = r->cap_chunks ? r->cap_chunks * 2 : 16;
    void **nc = realloc(r->chunks, cap * sizeof *nc);
    if (!nc)
      return ATOLL_ENOMEM;
    r->chunks = nc;
    r->cap_chunks = cap;
  }
  hq_node *chunk = malloc(POOL_CHUNK * sizeof *chunk);
  if (!chunk)
    return ATOLL_ENOMEM;
  r->chunks[r->n_chunks++] = chunk;
  for (uint32_t i = 0; i < POOL_CHUNK; i++) {
    chunk[i].next = i + 1 < POOL_CHUNK ? &chunk[i + 1] : r->pool;
  }
  r->pool = chunk;
  return 0;
}

hq_node *atoll__nrt_take_nodes(atoll_nrt *r, uint32_t n, hq_node **tail) {
  if (n == 0)
    return NULL;
  pthread_mutex_lock(&r->pool_mu);
  hq_node *head = NULL, *last = NULL;
  for (uint32_t i = 0; i < n; i++) {
    if (!r->pool && grow(r) != 0) {
      /* Give back what was taken. */
      if (last) {
        last->next = r->pool;
        r->pool = head;
      }
      pthread_mutex_unlock(&r->pool_mu);
      return NULL;
    }
    hq_node *node = r->pool;
    r->pool = node->next;
    node->next = NULL;
    node->pad = NULL;
    if (last)
      last->next = node;
    else
      head = node;
    last = node;
  }
  pthread_mutex_unlock(&r->pool_mu);
  *tail = last;
  return head;
}

/* Reclaiming a command is per command: its padded parts (if any) are freed and the node goes back
 * to the pool. That walk is what an asynchronous reset moves off the preemption's path. */
void atoll__nrt_free_nodes(atoll_nrt *r, hq_node *list, uint32_t *count) {
  uint32_t n = 0;
  hq_node *last = NULL;
  for (hq_node *x = list; x; x = x->next) {
    free(x->pad);
    x->pad = NULL;
    last = x;
    n++;
  }
  if (last) {
    pthread_mutex_lock(&r->pool_mu);
    last->next = r->pool;
    r->pool = list;
    pthread_mutex_unlock(&r->pool_mu);
  }
  if (count)
    *count = n;
}

static void *gc_main(void *arg) {
  atoll_nrt *r = arg;
#ifdef SCHED_IDLE
  /* Reclamation is background work: it runs when a CPU has nothing else to do, so that freeing a
   * long dropped queue never delays the preemption that dropped it (nor anything else). */
  struct sched_param idle = {.sched_priority = 0};
  pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
#endif
  pthread_mutex_lock(&r->gc_mu);
  for (;;) {
    while (!r->gc_list && !r->gc_stop)
      pthread_cond_wait(&r->gc_cv, &r->gc_mu);
    hq_node *list = r->gc_list;
    r->gc_list = NULL;
    int stop = r->gc_stop;
    pthread_mutex_unlock(&r->gc_mu);
    uint32_t n = 0;
    atoll__nrt_free_nodes(r, list, &n);
    atomic_fetch_add_explicit(&r->st_gc_freed, n, memory_order_relaxed);
    pthread_mutex_lock(&r->gc_mu);
    if (stop && !r->gc_list)
      break;
  }
  pthread_mutex_unlock(&r->gc_mu);
  return NULL;
}

int atoll__nrt_gc_start(atoll_nrt *r) {
  if (pthread_mutex_init(&r->gc_mu, NULL) != 0 || pthread_cond_init(&r->gc_cv, NULL) != 0)
    return ATOLL_ENOMEM;
  if (pthread_create(&r->gc, NULL, gc_main, r) != 0)
    return ATOLL_ENOMEM;
  atoll_nrt_name_thread(r->gc, "gc", -1);
  /* With the scheduler pinned, reclamation shares the scheduler's CPU: at SCHED_IDLE it runs only
   * in the busy-polling scheduler's yields, right after the preemption that handed it work (the
   * next arrival is milliseconds away). On a CU worker's CPU it took the worker's yields while the
   * worker waited for the RT kernel: at 10,000 queued kernels the RT kernel started 11-13 us after
   * the kill instead of 1.5 (bench_native_preempt --phases, docs/native.md). */
  if (r->cfg.sched_cpu >= 0)
    atoll__nrt_pin(r->gc, r->cfg.sched_cpu);
  r->gc_running = 1;
  return 0;
}

void atoll__nrt_gc_stop(atoll_nrt *r) {
  if (!r->gc_running)
    return;
  pthread_mutex_lock(&r->gc_mu);
  r->gc_stop = 1;
  pthread_cond_signal(&r->gc_cv);
  pthread_mutex_unlock(&r->gc_mu);
  pthread_join(r->gc, NULL);
  r->gc_running = 0;
  pthread_mutex_destroy(&r->gc_mu);
  pthread_cond_destroy(&r->gc_cv);
}

/* Puts a dropped HQ (its head and tail: the stream keeps both) in front of what the GC thread has
 * not reached yet, in O(1). */
void atoll__nrt_gc_give(atoll_nrt *r, hq_node *head, hq_node *tail) {
  if (!head)
    return;
  pthread_mutex_lock(&r->gc_mu);
  tail->next = r->gc_list;
  r->gc_list = head;
  pthread_cond_signal(&r->gc_cv);
  pthread_mutex_unlock(&r->gc_mu);
}
