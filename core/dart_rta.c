/* DART's response-time test (Eq. 5-6) and the single-processor test its baselines are measured
 * with (core/dart.h, docs/dart.md "Response-time analysis"). Pure arithmetic on stage times. */
#include "core/dart.h"

/* Saturating arithmetic: an iteration that runs away stops at the deadline check, never wraps. */
static int64_t sat_add(int64_t a, int64_t b) { return a > INT64_MAX - b ? INT64_MAX : a + b; }
static int64_t sat_mul(int64_t a, int64_t k) { return k != 0 && a > INT64_MAX / k ? INT64_MAX : a * k; }

static int64_t max_stage(const atoll_dart_rt_task *t, uint32_t n_nodes) {
  int64_t m = 0;
  for (uint32_t k = 0; k < n_nodes; k++)
    if (t->stage_ns[k] > m)
      m = t->stage_ns[k];
  return m;
}

uint32_t atoll_dart_split_merges(const int64_t *a, const int64_t *b, uint32_t n_nodes) {
  /* Paths visit nodes in index order (Eq. 7 places layers on nodes no earlier than the layer
   * before's). Between two consecutive shared nodes, a node that only one path visits is a split
   * followed by a merge. */
  uint32_t sm = 0;
  bool shared_seen = false, apart = false;
  /*@ loop invariant 0 <= k <= n_nodes;
      loop invariant sm <= k;
      loop assigns k, sm, shared_seen, apart;
      loop variant n_nodes - k;
  */
  for (uint32_t k = 0; k < n_nodes; k++) {
    bool in_a = a[k] > 0, in_b = b[k] > 0;
    if (in_a && in_b) {
      if (shared_seen && apart)
        sm++;
      shared_seen = true, apart = false;
    } else if (in_a || in_b) {
      apart = true;
    }
  }
  return sm;
}

/* A job of task w charged to task i: its largest stage, once more per split-and-merge of the two
 * paths (it may delay i again where the paths merge). */
static int64_t job_charge(const atoll_dart_rt_task *t, uint32_t n_nodes, uint32_t w, uint32_t i) {
  return sat_mul(max_stage(&t[w], n_nodes), 1 + (int64_t)atoll_dart_split_merges(t[w].stage_ns, t[i].stage_ns, n_nodes));
}

/* Tasks without a minimum inter-arrival time have no releases to count: one job of each. */
static bool counted_by_releases(const atoll_dart_rt_task *t, uint32_t h, uint32_t i) {
  return t[h].prio < t[i].prio && t[h].period_ns > 0;
}

int64_t atoll_dart_ce_ns(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, uint32_t i) {
  /* Eq. 6, first term: one job of every task of higher or equal priority (i included), once more
   * per split-and-merge of its path with i's. The jobs of the higher-priority tasks with a period
   * are left to Eq. 5 (atoll_dart_rt_test), which counts every job of theirs that can overlap i's,
   * the one already in the pipeline when i arrives included.
   * Third term (below): on each node of i's path, the largest lower-priority stage there, which may
   * have just started (RT stages run to their end; a lower-priority stage elsewhere never holds
   * a node i needs, so the paper's C_max of each lower-priority task is narrowed to the node). */
  int64_t ce = 0;
  for (uint32_t w = 0; w < n; w++)
    if (t[w].prio <= t[i].prio && !counted_by_releases(t, w, i))
      ce = sat_add(ce, job_charge(t, n_nodes, w, i));
  /* Second term: the largest RT stage on each node of i's path but its last (the pipeline's
   * stage-additive delay). */
  uint32_t last = n_nodes;
  for (uint32_t k = 0; k < n_nodes; k++)
    if (t[i].stage_ns[k] > 0)
      last = k;
  for (uint32_t k = 0; k < n_nodes; k++) {
    if (t[i].stage_ns[k] == 0)
      continue;
    int64_t mk = 0, lk = 0;
    for (uint32_t u = 0; u < n; u++) {
      if (t[u].stage_ns[k] > mk)
        mk = t[u].stage_ns[k];
      if (t[u].prio > t[i].prio && t[u].stage_ns[k] > lk)
        lk = t[u].stage_ns[k];
    }
    ce = sat_add(ce, sat_add(k == last ? 0 : mk, lk));
  }
  return ce;
}

/* The node of i's path when it has a single stage; n_nodes when it has several (or none). */
static uint32_t only_node(const atoll_dart_rt_task *t, uint32_t n_nodes, uint32_t i) {
  uint32_t k = n_nodes;
  for (uint32_t x = 0; x < n_nodes; x++)
    if (t[i].stage_ns[x] > 0) {
      if (k != n_nodes)
        return n_nodes;
      k = x;
    }
  return k;
}

/* Whether node k is the first of h's path: its stage there is released at h's arrival. */
static bool first_node(const atoll_dart_rt_task *t, uint32_t h, uint32_t k) {
  for (uint32_t x = 0; x < k; x++)
    if (t[h].stage_ns[x] > 0)
      return false;
  return true;
}

int64_t atoll_dart_node_rt_ns(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, uint32_t i,
                              const int64_t *r_ns) {
  uint32_t k = only_node(t, n_nodes, i);
  int64_t c = k < n_nodes ? t[i].stage_ns[k] : 0;
  int64_t limit = t[i].deadline_ns < t[i].period_ns ? t[i].deadline_ns : t[i].period_ns;
  if (k == n_nodes || t[i].period_ns <= 0)
    return -1;
  /* Node k's RT worker is one processor that runs RT stages without preemption, highest priority
   * first, each stage's time already holding the BE worker's intrusion (Eq. 4). A stage of h on k
   * is released when h's stage before it ends: at h's arrival when k is h's first node, else up to
   * R_h later (release jitter J_h). Blocking: the longest lower-priority stage on k, or i's own
   * previous stage when it is longer (Davis et al.'s sufficient form, as atoll_np_rt_test). */
  int64_t b = c;
  for (uint32_t h = 0; h < n; h++) {
    if (h == i || t[h].stage_ns[k] == 0)
      continue;
    if (t[h].prio > t[i].prio) {
      if (t[h].stage_ns[k] > b)
        b = t[h].stage_ns[k];
    } else if (t[h].prio == t[i].prio || t[h].period_ns <= 0 || (!first_node(t, h, k) && r_ns[h] < 0)) {
      return -1; /* a tie, a task without releases to count, or a jitter not known: no bound here */
    }
  }
  int64_t w = b, prev = -1;
  while (w != prev && sat_add(w, c) <= limit) {
    prev = w;
    w = b;
    for (uint32_t h = 0; h < n; h++)
      if (h != i && t[h].stage_ns[k] > 0 && t[h].prio < t[i].prio) {
        int64_t window = first_node(t, h, k) ? prev : sat_add(prev, r_ns[h]);
        w = sat_add(w, sat_mul(t[h].stage_ns[k], window / t[h].period_ns + 1));
      }
  }
  /* Past min(D_i, T_i) the form no longer holds (a job of i could still wait at its next
   * release): no bound from this test, Eq. 5's stands. */
  return sat_add(w, c) <= limit ? sat_add(w, c) : -1;
}

/* The task not yet analysed (r_ns < 0) of highest priority, ties to the earlier; n when none. */
static uint32_t next_to_analyse(const atoll_dart_rt_task *t, uint32_t n, const int64_t *r_ns) {
  uint32_t best = n;
  for (uint32_t i = 0; i < n; i++)
    if (r_ns[i] < 0 && (best == n || t[i].prio < t[best].prio))
      best = i;
  return best;
}

bool atoll_dart_rt_test(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, int64_t *r_ns) {
  bool ok = true;
  for (uint32_t i = 0; i < n; i++)
    r_ns[i] = -1;
  /* Highest priority first: a task's count of higher-priority jobs uses their bounds. */
  for (uint32_t i; (i = next_to_analyse(t, n, r_ns)) < n;) {
    int64_t ce = atoll_dart_ce_ns(t, n, n_nodes, i);
    /* Eq. 5: the jobs of each higher-priority task h that can overlap i's job -- released in
     * (A_i - R_h, A_i + R_i), since one released earlier has left the pipeline by A_i -- at most
     * ceil((R_i + R_h) / T_h) of them, each charged as in Eq. 6's first term. With R_h <= T_h this
     * is at most the paper's count, ceil(R_i / T_h) releases plus Eq. 6's one job in the pipeline;
     * it is valid while the higher-priority tasks meet their deadlines, as the set must. Iterated
     * to a fixed point or past the deadline: the sequence rises monotonically, so the first value
     * past the deadline proves the miss. */
    int64_t r = ce, prev = -1;
    while (r != prev && r <= t[i].deadline_ns) {
      prev = r;
      r = ce;
      for (uint32_t h = 0; h < n; h++)
        if (counted_by_releases(t, h, i)) {
          int64_t window = sat_add(prev, r_ns[h]);
          r = sat_add(r, sat_mul(job_charge(t, n_nodes, h, i), window / t[h].period_ns + (window % t[h].period_ns != 0)));
        }
    }
    /* A task of one stage: node k alone decides its response, which the single-processor test
     * bounds too (the pipeline's count charges a higher-priority job that was in the pipeline when
     * i arrived, which on one processor belongs to the busy period the test starts from). Both
     * bounds are safe, so the smaller holds. */
    int64_t node = atoll_dart_node_rt_ns(t, n, n_nodes, i, r_ns);
    if (node >= 0 && node < r)
      r = node;
    r_ns[i] = r;
    if (r > t[i].deadline_ns)
      ok = false;
  }
  return ok;
}

bool atoll_np_rt_test(const atoll_np_task *t, uint32_t n, int64_t be_block_ns, int64_t *r_ns) {
  bool ok = true;
  for (uint32_t i = 0; i < n; i++) {
    /* Blocking: the longest lower-priority job (RT or BE) that may have just started, or i's own
     * previous job when it is longer (Davis et al.'s sufficient form of the non-preemptive test,
     * which stays safe when a level-i busy period holds several of i's jobs). */
    int64_t b = be_block_ns > t[i].c_ns ? be_block_ns : t[i].c_ns;
    for (uint32_t l = 0; l < n; l++)
      if (t[l].prio > t[i].prio && t[l].c_ns > b)
        b = t[l].c_ns;
    /* The start time w: every higher-priority job released at or before it goes first. */
    int64_t w = b, prev = -1;
    while (w != prev && sat_add(w, t[i].c_ns) <= t[i].deadline_ns) {
      prev = w;
      w = b;
      for (uint32_t h = 0; h < n; h++)
        if (t[h].prio < t[i].prio && t[h].period_ns > 0)
          w = sat_add(w, sat_mul(t[h].c_ns, prev / t[h].period_ns + 1));
    }
    r_ns[i] = sat_add(w, t[i].c_ns);
    if (r_ns[i] > t[i].deadline_ns)
      ok = false;
  }
  return ok;
}
