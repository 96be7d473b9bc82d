/* Several processes sharing one search (sim/explore.h, atoll_explore_net), without MPI: P threads
 * each run atoll_explore_run as one "process" over an in-memory net (queues under one lock), so
 * the partitioned visited set, the handovers and the end of the search are checked in every
 * build, and under ThreadSanitizer (label threads). Merged like tools/atoll/mpi_explore.c does,
 * the processes' states, verdict and worst values must be the sequential search's. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/explore.h"
#include "tests/atoll_test.h"
#include "tests/test_scenario.h"

#define SRC(path) ATOLL_SOURCE_DIR "/" path

enum { MAX_PROCS = 4 };

typedef struct message {
  uint64_t h, events;
  bool point;
  atoll_choice_rec *c;
  uint32_t n;
} message;

typedef struct fake_net {
  pthread_mutex_t lock;
  uint32_t procs;
  message *box[MAX_PROCS];
  uint32_t n_box[MAX_PROCS], cap_box[MAX_PROCS];
  bool idle[MAX_PROCS];
  bool done;
  uint64_t handovers; /* states handed over with their choices */
} fake_net;

typedef struct proc {
  fake_net *net;
  uint32_t id;
  atoll_explore_net iface;
  const atoll_scenario *s;
  atoll_explore_opts o;
  atoll_explore_result r;
  int rc;
} proc;

/* The owner as mpi_explore.c picks it: bits 16-47 of the hash. */
static uint32_t owner(const fake_net *n, uint64_t h) {
  return (uint32_t)((((h >> 16) & 0xffffffffu) * (uint64_t)n->procs) >> 32);
}

static int offer(void *ctx, uint64_t h, uint64_t events, bool point, const atoll_choice_rec *c, uint32_t k) {
  proc *p = ctx;
  fake_net *n = p->net;
  uint32_t d = owner(n, h);
  if (d == p->id)
    return 0;
  pthread_mutex_lock(&n->lock);
  if (n->n_box[d] == n->cap_box[d]) {
    n->cap_box[d] = n->cap_box[d] ? 2 * n->cap_box[d] : 256;
    n->box[d] = realloc(n->box[d], n->cap_box[d] * sizeof *n->box[d]);
  }
  atoll_choice_rec *copy = NULL;
  if (point) {
    copy = malloc((k ? k : 1) * sizeof *copy);
    if (k) /* (the root state: no choices, maybe no array) */
      memcpy(copy, c, k * sizeof *copy);
    n->handovers++;
  }
  n->box[d][n->n_box[d]++] = (message){.h = h, .events = events, .point = point, .c = copy, .n = k};
  pthread_mutex_unlock(&n->lock);
  return 1;
}

/* Over when every process said it was idle and no message waits: under the one lock, a process
 * leaves idle only by taking its messages here. */
static int poll_net(void *ctx, bool idle, void (*deliver)(void *, uint64_t, uint64_t, const atoll_choice_rec *, uint32_t),
                    void *dctx) {
  proc *p = ctx;
  fake_net *n = p->net;
  pthread_mutex_lock(&n->lock);
  uint32_t got = n->n_box[p->id];
  for (uint32_t i = 0; i < got; i++) {
    message *m = &n->box[p->id][i];
    static const atoll_choice_rec none;
    deliver(dctx, m->h, m->events, m->point ? (m->c ? m->c : &none) : NULL, m->n);
    free(m->c);
  }
  n->n_box[p->id] = 0;
  n->idle[p->id] = idle && got == 0;
  bool all = true;
  for (uint32_t i = 0; i < n->procs; i++)
    all = all && n->idle[i] && n->n_box[i] == 0;
  n->done = n->done || all;
  int rc = got ? 1 : n->done ? 2 : 0;
  pthread_mutex_unlock(&n->lock);
  return rc;
}

static void *proc_main(void *arg) {
  proc *p = arg;
  p->rc = atoll_explore_run(p->s, &p->o, &p->r);
  return NULL;
}

static double worse(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a > b ? a : b; }

/* Explores s over `procs` processes of `threads` workers, one state in `every` a handover point,
 * and compares the merged result with the sequential one. Without pruning there is no visited set
 * to split: the root process runs the whole search. */
static void compare_mode(const char *path, const char *policy, uint32_t procs, uint32_t threads, uint32_t every,
                         bool no_pruning) {
  char set[64];
  snprintf(set, sizeof set, "policy=%s", policy);
  const char *sets[] = {set};
  atoll_test_scenario *t = atoll_test_load(path, sets, 1);
  atoll_explore_result seq;
  atoll_explore_opts so = {.no_pruning = no_pruning};
  assert_int_equal(atoll_explore_run(&t->s, &so, &seq), 0);
  fake_net net = {.procs = procs};
  pthread_mutex_init(&net.lock, NULL);
  proc p[MAX_PROCS];
  pthread_t th[MAX_PROCS];
  for (uint32_t i = 0; i < procs; i++) {
    p[i] = (proc){.net = &net, .id = i, .s = &t->s};
    p[i].iface = (atoll_explore_net){.ctx = &p[i], .every = every, .offer = offer, .poll = poll_net};
    p[i].o = (atoll_explore_opts){.threads = threads, .net = &p[i].iface, .root = i == 0, .no_pruning = no_pruning};
    assert_int_equal(pthread_create(&th[i], NULL, proc_main, &p[i]), 0);
  }
  uint64_t states = 0, busiest = 0, events = 0;
  double worst = NAN, bound = NAN;
  bool complete = true, violated = false;
  for (uint32_t i = 0; i < procs; i++) {
    pthread_join(th[i], NULL);
    assert_int_equal(p[i].rc, 0);
    states += p[i].r.states;
    events += p[i].r.events;
    busiest = p[i].r.events > busiest ? p[i].r.events : busiest;
    worst = worse(worst, p[i].r.worst_rt_latency_us);
    bound = worse(bound, p[i].r.bounds[0].worst);
    complete = complete && p[i].r.complete;
    violated = violated || p[i].r.violated;
    /* The nominal figures are the nominal schedule's on every process, not its first run's. */
    assert_memory_equal(p[i].r.choice_points, seq.choice_points, sizeof seq.choice_points);
    assert_true(p[i].r.nominal_rt_latency_us == seq.nominal_rt_latency_us);
    atoll_explore_free(&p[i].r);
  }
  print_message("%s %s: %u processes x %u threads, 1 in %u handed over: %llu states (sequential %llu), %llu "
                "handovers, %llu events, busiest %llu (sequential %llu)\n",
                path + strlen(ATOLL_SOURCE_DIR) + 1, policy, procs, threads, every, (unsigned long long)states,
                (unsigned long long)seq.states, (unsigned long long)net.handovers, (unsigned long long)events,
                (unsigned long long)busiest, (unsigned long long)seq.events);
  assert_true(complete);
  assert_int_equal(states, seq.states);
  assert_true(violated == seq.violated);
  assert_true(worst == seq.worst_rt_latency_us);
  assert_true(bound == seq.bounds[0].worst);
  if (no_pruning) {
    assert_true(net.handovers == 0);
    assert_true(busiest == events);
  } else {
    /* The work was shared: some states were handed over, and no process did all of it. */
    assert_true(net.handovers > 0);
    assert_true(busiest < events);
  }
  pthread_mutex_destroy(&net.lock);
  for (uint32_t i = 0; i < procs; i++)
    free(net.box[i]);
  atoll_explore_free(&seq);
  atoll_test_unload(t);
}

static void compare(const char *path, const char *policy, uint32_t procs, uint32_t threads, uint32_t every) {
  compare_mode(path, policy, procs, threads, every, false);
}

static void processes_count_the_sequential_states(void **state) {
  (void)state;
  for (int pol = 0; pol < 2; pol++) {
    const char *policy = pol ? "seq" : "reef";
    compare(SRC("scenarios/verify/tiny.yaml"), policy, 3, 1, 1);
    compare(SRC("scenarios/verify/tiny.yaml"), policy, 3, 1, 16);
    compare(SRC("scenarios/verify/tiny.yaml"), policy, 2, 2, 4);
  }
}

/* Larger: same-instant.yaml, and tiny.yaml without pruning (every schedule to its end). */
static void processes_share_a_larger_search(void **state) {
  (void)state;
  compare(SRC("scenarios/verify/same-instant.yaml"), "reef", 3, 1, 16);
  compare(SRC("scenarios/verify/same-instant.yaml"), "reef", 4, 1, 1);
  compare_mode(SRC("scenarios/verify/tiny.yaml"), "seq", 3, 1, 16, true);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(processes_count_the_sequential_states),
    cmocka_unit_test(processes_share_a_larger_search),
};

ATOLL_TEST_MAIN(tests)
