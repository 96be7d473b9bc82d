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

int64_t atoll_dart_ce_ns(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, uint32_t i) {
  /* Eq. 6, first term: every task of higher or equal priority (i included) once, and once more per
   * split-and-merge of its path with i's; with Eq. 5's releases this charges each higher-priority
   * task one job more than the window holds, the one already in the pipeline when i arrives.
   * Third term (below): on each node of i's path, the largest lower-priority stage there, which may
   * have just started (RT stages run to their end; a lower-priority stage elsewhere never holds
   * a node i needs, so the paper's C_max of each lower-priority task is narrowed to the node). */
  int64_t ce = 0;
  for (uint32_t w = 0; w < n; w++)
    if (t[w].prio <= t[i].prio)
      ce = sat_add(ce, sat_mul(max_stage(&t[w], n_nodes),
                               1 + (int64_t)atoll_dart_split_merges(t[w].stage_ns, t[i].stage_ns, n_nodes)));
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

bool atoll_dart_rt_test(const atoll_dart_rt_task *t, uint32_t n, uint32_t n_nodes, int64_t *r_ns) {
  bool ok = true;
  for (uint32_t i = 0; i < n; i++) {
    int64_t ce = atoll_dart_ce_ns(t, n, n_nodes, i);
    /* Eq. 5: the releases of higher-priority tasks, each charged its largest stage, to a fixed
     * point or past the deadline. The sequence rises monotonically, so the first value past the
     * deadline proves the miss. */
    int64_t r = ce, prev = -1;
    while (r != prev && r <= t[i].deadline_ns) {
      prev = r;
      r = ce;
      for (uint32_t h = 0; h < n; h++)
        if (t[h].prio < t[i].prio && t[h].period_ns > 0)
          r = sat_add(r, sat_mul(max_stage(&t[h], n_nodes), (prev + t[h].period_ns - 1) / t[h].period_ns));
    }
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
