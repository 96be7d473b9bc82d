/* The explorer's set of visited states: 64-bit state hashes, shared by its worker threads.
 *
 * The set is split into 64 shards by the hash's top bits, each an open-addressing table with its
 * own lock, so that workers adding states at once rarely wait for each other (a lock-free table
 * could not grow in place; a sharded one grows one shard at a time). With one worker the locks
 * are skipped. What the set holds does not depend on the order states are added in: the count of
 * a complete exploration is the same with any number of workers. */
#ifndef ATOLL_SIM_EXPLORE_VISITED_H
#define ATOLL_SIM_EXPLORE_VISITED_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

enum { ATOLL_VISITED_SHARDS = 64 };

typedef struct atoll_visited_shard {
  pthread_mutex_t lock;
  uint64_t *slot; /* 0 marks an empty slot */
  uint64_t cap, count; /* cap is a power of two */
} atoll_visited_shard;

typedef struct atoll_visited {
  atoll_visited_shard shard[ATOLL_VISITED_SHARDS];
  bool locked;         /* more than one worker adds states */
  atomic_ulong count;  /* states in every shard */
} atoll_visited;

void atoll_visited_init(atoll_visited *v, bool locked);
void atoll_visited_free(atoll_visited *v);
/* Adds k; returns 1 if it was there already, 0 if added, or ATOLL_ENOMEM. */
int atoll_visited_add(atoll_visited *v, uint64_t k);
uint64_t atoll_visited_count(atoll_visited *v);
/* Copies every state into dst (room for atoll_visited_count); returns how many. No adds meanwhile. */
uint64_t atoll_visited_collect(atoll_visited *v, uint64_t *dst);

#endif
