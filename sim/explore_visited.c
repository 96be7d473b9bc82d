/* The explorer's visited-state set (explore_visited.h). */
#include "sim/explore_visited.h"

#include <stdlib.h>

#include "atoll/error.h"

void atoll_visited_init(atoll_visited *v, bool locked) {
  for (int i = 0; i < ATOLL_VISITED_SHARDS; i++) {
    v->shard[i] = (atoll_visited_shard){.slot = NULL};
    pthread_mutex_init(&v->shard[i].lock, NULL);
  }
  v->locked = locked;
  atomic_init(&v->count, 0);
}

void atoll_visited_free(atoll_visited *v) {
  for (int i = 0; i < ATOLL_VISITED_SHARDS; i++) {
    free(v->shard[i].slot);
    pthread_mutex_destroy(&v->shard[i].lock);
  }
}

static int grow(atoll_visited_shard *s) {
  uint64_t cap = s->cap ? s->cap * 2 : 1u << 12;
  uint64_t *ns = calloc(cap, sizeof *ns);
  if (!ns)
    return ATOLL_ENOMEM;
  for (uint64_t i = 0; i < s->cap; i++) {
    uint64_t k = s->slot[i];
    if (!k)
      continue;
    uint64_t j = k & (cap - 1);
    while (ns[j])
      j = (j + 1) & (cap - 1);
    ns[j] = k;
  }
  free(s->slot);
  s->slot = ns;
  s->cap = cap;
  return 0;
}

static int shard_add(atoll_visited_shard *s, uint64_t k) {
  if ((s->count + 1) * 4 > s->cap * 3) {
    int rc = grow(s);
    if (rc)
      return rc;
  }
  uint64_t j = k & (s->cap - 1);
  while (s->slot[j]) {
    if (s->slot[j] == k)
      return 1;
    j = (j + 1) & (s->cap - 1);
  }
  s->slot[j] = k;
  s->count++;
  return 0;
}

int atoll_visited_add(atoll_visited *v, uint64_t k) {
  if (k == 0)
    k = 1;
  /* The top bits pick the shard; the low bits, the slot within it. */
  atoll_visited_shard *s = &v->shard[k >> 58];
  if (v->locked)
    pthread_mutex_lock(&s->lock);
  int rc = shard_add(s, k);
  if (v->locked)
    pthread_mutex_unlock(&s->lock);
  if (rc == 0)
    atomic_fetch_add_explicit(&v->count, 1, memory_order_relaxed);
  return rc;
}

uint64_t atoll_visited_count(atoll_visited *v) { return atomic_load_explicit(&v->count, memory_order_relaxed); }

uint64_t atoll_visited_collect(atoll_visited *v, uint64_t *dst) {
  uint64_t n = 0;
  for (int i = 0; i < ATOLL_VISITED_SHARDS; i++)
    for (uint64_t j = 0; j < v->shard[i].cap; j++)
      if (v->shard[i].slot[j])
        dst[n++] = v->shard[i].slot[j];
  return n;
}
