/* DART's schedulability analysis on a scenario (docs/dart.md, "Response-time analysis"): the plan
 * the simulator runs (run/dart_plan.h), each RT stage's time with the overheads of Eq. 1-4, and the
 * test of Eq. 5-6 under dart, or the single-processor non-preemptive test under base-gpu and
 * base-cpu (core/dart.h). `atoll bound --analysis dart`, `atoll check` and the dart policy's
 * admission of tasks arriving at run time use it. */
#ifndef ATOLL_SIM_DART_BOUND_H
#define ATOLL_SIM_DART_BOUND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "run/dart_plan.h"

typedef struct atoll_dart_bound_task {
  uint32_t client;      /* scenario client index */
  uint32_t prio;        /* deadline-monotonic order among the RT clients, 0 highest */
  int64_t period_ns;    /* minimum inter-arrival time */
  int64_t deadline_ns;
  int64_t c_max_ns;     /* its largest stage with overheads (C_max; the baselines: the whole job) */
  int64_t wcrt_ns;      /* the bound (past the deadline: where the iteration stopped) */
  bool ok;
} atoll_dart_bound_task;

typedef struct atoll_dart_bound_result {
  atoll_policy_kind policy;
  atoll_dart_plan plan;
  atoll_dart_bound_eps eps[ATOLL_DART_MAX_NODES]; /* dart only */
  int64_t be_block_ns;                            /* baselines: the longest BE job */
  atoll_dart_bound_task *tasks;                   /* the RT clients analysed, scenario order */
  uint32_t n_tasks;
  bool schedulable;
  bool no_plan; /* dart with search_cores: no node configuration passed (tasks' wcrt INT64_MAX) */
} atoll_dart_bound_result;

/* Analyses s under its policy (dart, base-gpu or base-cpu). admitted: per client, whether it
 * belongs to the task set (NULL: every client); RT clients outside it are left out of the test,
 * BE clients outside it out of eps^gm and the baselines' blocking. Returns 0; ATOLL_EINVAL with the
 * reason in why (another policy, an RT client without a minimum inter-arrival time, no plan);
 * ATOLL_ENOMEM. Free with atoll_dart_bound_free. */
int atoll_dart_bound_compute(const atoll_scenario *s, const bool *admitted, atoll_dart_bound_result *out, char *why,
                             size_t why_len);
void atoll_dart_bound_free(atoll_dart_bound_result *r);

/* DART's admission of client c arriving at run time (§V-2), with plan (already holding its stages)
 * and admitted[] the clients running: an RT task when every admitted RT task and it pass the
 * test -- *wcrt_ns, *deadline_ns: its bound and deadline; a BE task when its longest GPU copy is
 * within the current eps^gm -- *wcrt_ns, *deadline_ns: that copy and eps^gm. */
bool atoll_dart_admit(const atoll_scenario *s, const atoll_dart_plan *plan, const bool *admitted, uint32_t c,
                      int64_t *wcrt_ns, int64_t *deadline_ns);

#endif
