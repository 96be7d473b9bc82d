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
#include "nrt_internal.h"

void atoll__nrt_free_nodes(hq_node *list, uint32_t *count) {
  uint32_t n = 0;
  while (list) {
    hq_node *next = list->next;
    free(list->pad);
    free(list);
    list = next;
    n++;
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
    atoll__nrt_free_nodes(list, &n);
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
