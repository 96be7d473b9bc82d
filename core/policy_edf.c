/* edf: earliest deadline first across RT and BE requests. Every client has its own queue; the
 * GPU runs one request at a time, never preempted, and when it frees up takes, over all queues,
 * the waiting request with the earliest absolute deadline (a client without a deadline: never
 * before one with a deadline; ties go to the earlier arrival, then the lower client index).
 * A client's requests share its relative deadline, so each queue's oldest request is its earliest
 * and only queue heads need comparing.
 *
 * Option drop_late (default false): a queued request whose deadline has passed is shed rather than
 * run late. The policy asks the device for a timer just past each queued request's deadline, so
 * one is shed when its deadline passes, not only when the GPU frees up. */
#include "core/policy.h"

typedef struct edf_state {
  int32_t owner; /* the queue whose request is on the GPU, or -1 */
} edf_state;

enum { OPT_DROP_LATE };
static const atoll_policy_option options[] = {
    [OPT_DROP_LATE] = {.key = "drop_late", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_I64,
                       .offset = ATOLL_OPTION_AT(param[0]), .def = 0, .max = 1},
};

static bool drop_late(const atoll_core *c) { return c->s->policy.param[0] != 0; }

static void init(atoll_core *c) { ((edf_state *)atoll__policy_state(c))->owner = -1; }

/* The task at the head of q's pending queue, or NULL. */
static const atoll_task *head(const atoll_core *c, uint32_t q) {
  uint64_t id;
  return atoll_ring_peek(&c->queues[q].pending, 0, &id) == 0 ? &c->tasks[id] : NULL;
}

/* Sheds the requests at the heads of the queues whose deadline is before now. */
static void shed_late(atoll_core *c, int64_t now) {
  if (!drop_late(c))
    return;
  for (uint32_t q = 0; q < c->n_queues; q++)
    for (const atoll_task *t = head(c, q); t && t->deadline_ns < now; t = head(c, q))
      atoll__queue_shed_at(c, q, 0, now);
}

static bool earlier(const atoll_task *a, const atoll_task *b) {
  if (a->deadline_ns != b->deadline_ns)
    return a->deadline_ns < b->deadline_ns;
  return a->arrival_ns < b->arrival_ns;
}

static void pick(atoll_core *c, int64_t now) {
  edf_state *st = atoll__policy_state(c);
  if (st->owner >= 0)
    return;
  shed_late(c, now);
  int32_t best = -1;
  for (uint32_t q = 0; q < c->n_queues; q++) {
    const atoll_task *t = head(c, q);
    if (t && (best < 0 || earlier(t, head(c, (uint32_t)best))))
      best = (int32_t)q;
  }
  if (best < 0 || !atoll__queue_activate_at(c, (uint32_t)best, 0))
    return;
  st->owner = best;
  atoll__launch_rest(c, (uint32_t)best);
}

static void on_queued(atoll_core *c, uint32_t q, int64_t now) {
  const atoll_queue *qu = &c->queues[q];
  uint64_t id;
  /* The new request is the last in its queue. */
  if (drop_late(c) && atoll_ring_peek(&qu->pending, atoll_ring_count(&qu->pending) - 1, &id) == 0 &&
      c->tasks[id].deadline_ns != INT64_MAX)
    atoll__timer_set(c, c->tasks[id].deadline_ns + 1, 0);
  pick(c, now);
}

static void on_task_done(atoll_core *c, uint32_t q, int64_t now) {
  (void)q;
  ((edf_state *)atoll__policy_state(c))->owner = -1;
  pick(c, now);
}

static void on_timer(atoll_core *c, uint64_t cookie, int64_t now) {
  (void)cookie;
  shed_late(c, now);
}

static bool state_valid(const atoll_core *c) {
  return ((const edf_state *)atoll__policy_state_c(c))->owner < (int32_t)c->n_queues;
}

const atoll_policy_ops atoll__policy_edf = {
    .queue_per_client = true,
    .state_size = sizeof(edf_state),
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .init = init,
    .on_queued = on_queued,
    .on_task_done = on_task_done,
    .on_timer = on_timer,
    .state_valid = state_valid,
};
