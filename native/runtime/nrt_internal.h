/* The native runtime's internals, shared by its files (streams and transmit threads, the
 * scheduler thread and its inbox, the GC thread). Not installed. */
#ifndef ATOLL_NATIVE_NRT_INTERNAL_H
#define ATOLL_NATIVE_NRT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "core/ds/heap.h"
#include "native/runtime/nrt.h"

enum { NRT_MAX_STREAMS = 64 };

/* Back-end tags: the stream in the top 16 bits, then a part bit; a launch carries its stream
 * sequence number (from 1), a padded launch's BE part (seq << 3 | part index). */
#define NRT_TAG_PART (1ull << 47)
static inline uint64_t nrt_tag(uint32_t stream, uint64_t seq) { return ((uint64_t)stream << 48) | seq; }
static inline uint64_t nrt_part_tag(uint32_t stream, uint64_t seq, uint32_t part) {
  return ((uint64_t)stream << 48) | NRT_TAG_PART | (seq << 3) | part;
}
static inline uint32_t nrt_tag_stream(uint64_t t) { return (uint32_t)(t >> 48); }
static inline int nrt_tag_is_part(uint64_t t) { return (t & NRT_TAG_PART) != 0; }
static inline uint64_t nrt_tag_seq(uint64_t t) {
  return nrt_tag_is_part(t) ? (t & (NRT_TAG_PART - 1)) >> 3 : t & ((1ull << 48) - 1);
}
static inline uint32_t nrt_tag_part(uint64_t t) { return (uint32_t)(t & 7); }

/* A padded launch's parts, kept with its HQ node. */
typedef struct hq_pad {
  uint32_t rt_cus, n_parts;
  atoll_pad_part parts[ATOLL_NPAD_MAX];
  void *payloads[ATOLL_NPAD_MAX];
} hq_pad;

/* One command in a host queue. Nodes are allocated when the core launches and freed once
 * transmitted, or, after an HQ reset, by the caller or the GC thread. */
typedef struct hq_node {
  struct hq_node *next;
  atoll_cmd cmd;
  void *payload;
  hq_pad *pad;
} hq_node;

/* A launch in flight (transmitted, not completed), found by its sequence number. */
typedef struct inflight {
  uint64_t seq, core_tag;
  uint32_t model, op;
  uint8_t rt;
  uint32_t n_parts;
  uint64_t part_tag[ATOLL_NPAD_MAX];
  uint32_t part_blocks[ATOLL_NPAD_MAX];
  int64_t start_ns;
} inflight;

typedef struct nrt_stream {
  atoll_nrt *r;
  uint32_t index, priority;
  char name[48];
  atoll_nqueue *q;
  pthread_mutex_t mu;
  pthread_cond_t cv; /* the transmit thread waits here; so do waiters for an empty DQ */
  hq_node *hq_head, *hq_tail;
  uint32_t hq_count;
  uint32_t dq_cap, in_flight;
  inflight *rec;     /* rec_cap (a power of two, > every capacity set) records, by seq; a
                        record stays readable until rec_cap later launches reuse it */
  uint32_t rec_cap;
  uint64_t next_seq; /* the last transmitted launch (0: none yet) */
  uint64_t done_seq; /* the last completed one */
  uint8_t flag_on;   /* the back-end's flag is set until launch flag_seq has completed */
  uint64_t flag_seq;
  /* Scheduler thread only: completions of launches before this one, heard of after a preemption
   * read the execution index, are withheld from the core (nrt_sched.c, device_event); and the CU
   * resets counted when the stream's flag was last set (a reset since then killed what ran). */
  uint64_t withhold_below;
  uint64_t resets_at_flag;
  uint8_t stop;
  uint64_t tx_parks; /* times the transmit thread found nothing it may move and waited */
  pthread_t tx;
  uint8_t tx_running;
  /* The CUs its queue is bound to (empty: all), and a move to other CUs (set_stream_cus, a
   * re-provisioned share) waiting for the launches in flight to leave: while one waits, the HQ
   * transmits nothing, so no launch runs on the old CUs after one on the new. */
  atoll_cuset cus, move_to;
  uint8_t move_pending;
  uint32_t moves; /* switches made (atoll_nrt_stream_moves) */
} nrt_stream;

struct atoll_nrt {
  atoll_nrt_cfg cfg;
  atoll_device_ops ops;
  void *be;
  atoll_nbackend_info info;
  struct timespec t0;
  atoll_core *core;
  const atoll_core_observer *obs;
  nrt_stream *streams[NRT_MAX_STREAMS];
  uint32_t n_streams;
  char stream_err[256]; /* why the back-end refused a bound queue (atoll_nrt_stream_error) */

  /* The inbox: producers append to buf under in_mu; the scheduler swaps it with spare. */
  pthread_mutex_t in_mu;
  pthread_cond_t in_cv;
  atoll_nrt_event *in_buf, *in_spare;
  uint32_t in_n, in_cap, spare_cap;
  atomic_uint in_pending;
  int parked;

  /* The scheduler thread. */
  pthread_t sched;
  uint8_t sched_running;
  atomic_int stop;
  void (*first)(void *);
  void *first_ctx;
  struct atoll_heap timers; /* (at, sequence) -> cookie */
  uint64_t timer_seq;
  atoll_nrt_marks marks;
  uint64_t withheld; /* completions withheld from the core (nrt_sched.c) */
  uint64_t padded_parts; /* BE parts of padded launches that ran to the end */
  uint64_t resets;       /* CU resets issued (scheduler thread) */

  /* HQ nodes come from a pool (nrt_gc.c): a launch of thousands of commands takes them in one
   * lock instead of one malloc each, and reclaiming returns them. */
  pthread_mutex_t pool_mu;
  hq_node *pool;
  void **chunks;
  uint32_t n_chunks, cap_chunks;

  /* The GC thread. */
  pthread_t gc;
  uint8_t gc_running;
  pthread_mutex_t gc_mu;
  pthread_cond_t gc_cv;
  hq_node *gc_list;
  int gc_stop;

  atomic_int failure;
  /* Statistics: updated with relaxed atomics from any thread. */
  atomic_ullong st_events, st_launches, st_evicted, st_killed, st_faults, st_hq_reset, st_gc_freed, st_cu_resets;
  atomic_ullong st_tx_wakeups;
  atomic_llong st_killed_gpu_ns, st_reset_ns;
};

/* nrt_sched.c */
int atoll__nrt_inbox_init(atoll_nrt *r);
void atoll__nrt_inbox_free(atoll_nrt *r);
int atoll__nrt_set_timer(atoll_nrt *r, int64_t at, uint64_t cookie);
/* nrt_gc.c */
int atoll__nrt_gc_start(atoll_nrt *r);
void atoll__nrt_gc_stop(atoll_nrt *r);
void atoll__nrt_gc_give(atoll_nrt *r, hq_node *head, hq_node *tail);
/* Reclaims a chain of nodes (their padded parts, then the nodes themselves, back to the pool). */
void atoll__nrt_free_nodes(atoll_nrt *r, hq_node *list, uint32_t *count);
/* A chain of n zeroed nodes from the pool (*tail its last), or NULL when out of memory. */
hq_node *atoll__nrt_take_nodes(atoll_nrt *r, uint32_t n, hq_node **tail);
int atoll__nrt_pool_init(atoll_nrt *r);
void atoll__nrt_pool_free(atoll_nrt *r);
/* nrt.c */
void atoll__nrt_on_complete(void *ctx, uint64_t tag, atoll_ndone_status status);
void atoll__nrt_on_start(void *ctx, uint64_t tag);
void atoll__nrt_set_failure(atoll_nrt *r, int rc);
/* nrt_util.c */
int atoll__nrt_pin(pthread_t t, int cpu);
/* Puts the calling thread in the RT class of cfg.rt_threads (nrt.h); whether it runs SCHED_FIFO. */
bool atoll__nrt_take_rt_class(void);
int atoll__nrt_cond_init(pthread_cond_t *cv);

#endif
