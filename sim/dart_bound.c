/* DART's schedulability analysis on a scenario (sim/dart_bound.h). */
#include "sim/dart_bound.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "atoll/error.h"
#include "core/dart.h"
#include "run/driver.h"
#include "sim/bound.h"

static bool in_set(const bool *admitted, uint32_t c) { return !admitted || admitted[c]; }

/* Whole-job time of client c under a baseline (one stage) at batch b. */
static int64_t job_ns(const atoll_scenario *s, const atoll_dart_plan *p, uint32_t c, uint32_t b) {
  int64_t t = 0;
  for (uint32_t st = 0; st < p->clients[c].n_stages; st++)
    t += atoll_dart_stage_ns(s, p, c, st, b);
  return t;
}

static int fill_tasks(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *r, char *why,
                      size_t why_len) {
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    if (cl->cls != ATOLL_CLASS_RT || !in_set(admitted, c))
      continue;
    int64_t alone = r->plan.clients ? job_ns(s, &r->plan, c, 1) : 0;
    int64_t gap = atoll_bound_min_gap_ns(s, cl, alone);
    if (gap <= 0)
      return atoll__bound_fail(why, why_len, "client '%s': its arrivals have no minimum inter-arrival time", cl->name);
    atoll_dart_bound_task *t = &r->tasks[r->n_tasks++];
    int64_t dl = (int64_t)atoll_run_deadline_ns(cl, alone);
    *t = (atoll_dart_bound_task){.client = c, .period_ns = gap, .deadline_ns = dl > 0 ? dl : gap};
  }
  /* Deadline-monotonic priorities, ties to the earlier client: the order the simulator's RT
   * workers use. */
  for (uint32_t i = 0; i < r->n_tasks; i++)
    for (uint32_t j = 0; j < r->n_tasks; j++)
      if (j != i && (r->tasks[j].deadline_ns < r->tasks[i].deadline_ns ||
                     (r->tasks[j].deadline_ns == r->tasks[i].deadline_ns && r->tasks[j].client < r->tasks[i].client)))
        r->tasks[i].prio++;
  return 0;
}

static int test_dart(const atoll_scenario *s, atoll_dart_bound_result *r) {
  uint32_t N = r->plan.n_nodes, n = r->n_tasks;
  atoll_dart_rt_task *t = calloc(n ? n : 1, sizeof *t);
  int64_t *rows = calloc((size_t)(n ? n : 1) * N, sizeof *rows), *wcrt = calloc(n ? n : 1, sizeof *wcrt);
  if (!t || !rows || !wcrt) {
    free(t), free(rows), free(wcrt);
    return ATOLL_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t c = r->tasks[i].client;
    int64_t *row = rows + (size_t)i * N;
    /* Eq. 1-2 (the plan's stage time, with eps^s to hand over to the next node) plus Eq. 4. */
    for (uint32_t st = 0; st < r->plan.clients[c].n_stages; st++) {
      uint32_t k = r->plan.clients[c].stages[st].node;
      const atoll_dart_bound_eps *e = &r->eps[k];
      row[k] += atoll_dart_stage_ns(s, &r->plan, c, st, 1) + e->cp_ns + (e->gp_ns > e->gm_ns ? e->gp_ns : e->gm_ns);
    }
    for (uint32_t k = 0; k < N; k++)
      if (row[k] > r->tasks[i].c_max_ns)
        r->tasks[i].c_max_ns = row[k];
    t[i] = (atoll_dart_rt_task){.period_ns = r->tasks[i].period_ns, .deadline_ns = r->tasks[i].deadline_ns,
                                .prio = r->tasks[i].prio, .stage_ns = row};
  }
  r->schedulable = atoll_dart_rt_test(t, n, N, wcrt);
  for (uint32_t i = 0; i < n; i++)
    r->tasks[i].wcrt_ns = wcrt[i], r->tasks[i].ok = wcrt[i] <= r->tasks[i].deadline_ns;
  free(t), free(rows), free(wcrt);
  return 0;
}

static int test_baseline(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *r) {
  uint32_t n = r->n_tasks;
  for (uint32_t c = 0; c < s->n_clients; c++)
    if (s->clients[c].cls == ATOLL_CLASS_BE && in_set(admitted, c)) {
      int64_t j = job_ns(s, &r->plan, c, atoll_dart_be_batch(s, c));
      r->be_block_ns = j > r->be_block_ns ? j : r->be_block_ns;
    }
  atoll_np_task *t = calloc(n ? n : 1, sizeof *t);
  int64_t *wcrt = calloc(n ? n : 1, sizeof *wcrt);
  if (!t || !wcrt) {
    free(t), free(wcrt);
    return ATOLL_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++) {
    r->tasks[i].c_max_ns = job_ns(s, &r->plan, r->tasks[i].client, 1);
    t[i] = (atoll_np_task){.c_ns = r->tasks[i].c_max_ns, .period_ns = r->tasks[i].period_ns,
                           .deadline_ns = r->tasks[i].deadline_ns, .prio = r->tasks[i].prio};
  }
  r->schedulable = atoll_np_rt_test(t, n, r->be_block_ns, wcrt);
  for (uint32_t i = 0; i < n; i++)
    r->tasks[i].wcrt_ns = wcrt[i], r->tasks[i].ok = wcrt[i] <= r->tasks[i].deadline_ns;
  free(t), free(wcrt);
  return 0;
}

static int analyse(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *r, char *why, size_t why_len);

int atoll_dart_bound_compute(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *r, char *why,
                             size_t why_len) {
  *r = (atoll_dart_bound_result){.policy = s->policy.kind};
  if (s->policy.kind != ATOLL_POLICY_DART && s->policy.kind != ATOLL_POLICY_BASE_GPU &&
      s->policy.kind != ATOLL_POLICY_BASE_CPU)
    return atoll__bound_fail(why, why_len, "the dart analysis covers policies dart, base-gpu and base-cpu, not %s",
                             atoll_policy_name(s->policy.kind));
  int rc = atoll_dart_plan_for(s, &r->plan);
  bool searched = s->policy.kind == ATOLL_POLICY_DART && s->node_search_cores;
  if (rc == ATOLL_EINVAL && !searched)
    return atoll__bound_fail(why, why_len, "the scenario has no nodes for policy %s",
                             atoll_policy_name(s->policy.kind));
  /* Alg. 1-2 found no node configuration that passes: the set is not schedulable (no bound). */
  r->no_plan = rc == ATOLL_EINVAL;
  if (rc && !r->no_plan)
    return rc;
  rc = analyse(s, admitted, r, why, why_len);
  if (rc)
    atoll_dart_bound_free(r);
  return rc;
}

/* The test on the plan in r (r->no_plan says there is none). */
static int analyse(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *r, char *why, size_t why_len) {
  if (!(r->tasks = calloc(s->n_clients ? s->n_clients : 1, sizeof *r->tasks)))
    return ATOLL_ENOMEM;
  int rc = fill_tasks(s, admitted, r, why, why_len);
  if (rc == 0 && r->no_plan) {
    for (uint32_t i = 0; i < r->n_tasks; i++)
      r->tasks[i].wcrt_ns = INT64_MAX, r->tasks[i].ok = false;
    r->schedulable = r->n_tasks == 0;
  } else if (rc == 0 && s->policy.kind == ATOLL_POLICY_DART) {
    atoll_dart_plan_eps(s, &r->plan, admitted, r->eps);
    rc = test_dart(s, r);
  } else if (rc == 0) {
    rc = test_baseline(s, admitted, r);
  }
  return rc;
}

bool atoll_dart_admit(const atoll_scenario *s, const atoll_dart_plan *plan, const bool *admitted, uint32_t c,
                      int64_t *wcrt_ns, int64_t *deadline_ns) {
  atoll_dart_bound_result r = {.policy = s->policy.kind, .plan = *plan};
  *wcrt_ns = INT64_MAX, *deadline_ns = 0;
  if (s->clients[c].cls == ATOLL_CLASS_BE) {
    /* A BE task delays RT stages only by its copies on the GPU node (its kernels are preempted):
     * it is accepted when its longest copy is within the current eps^gm. */
    int64_t gm = 0;
    for (uint32_t o = 0; o < s->n_clients; o++)
      if (admitted[o] && s->clients[o].cls == ATOLL_CLASS_BE) {
        int64_t t = atoll_dart_be_copy_ns(s, plan, o, atoll_dart_be_batch(s, o));
        gm = t > gm ? t : gm;
      }
    *wcrt_ns = atoll_dart_be_copy_ns(s, plan, c, atoll_dart_be_batch(s, c)), *deadline_ns = gm;
    return *wcrt_ns <= gm;
  }
  bool *with = malloc(s->n_clients * sizeof *with);
  if (!with)
    return false;
  for (uint32_t o = 0; o < s->n_clients; o++)
    with[o] = admitted[o] || o == c;
  bool ok = false;
  if (analyse(s, with, &r, NULL, 0) == 0) {
    ok = r.schedulable;
    for (uint32_t i = 0; i < r.n_tasks; i++)
      if (r.tasks[i].client == c)
        *wcrt_ns = r.tasks[i].wcrt_ns, *deadline_ns = r.tasks[i].deadline_ns;
  }
  free(r.tasks);
  free(with);
  return ok;
}

void atoll_dart_bound_free(atoll_dart_bound_result *r) {
  atoll_dart_plan_free(&r->plan);
  free(r->tasks);
  r->tasks = NULL;
  r->n_tasks = 0;
}
