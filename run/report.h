/* The run report: statistics over a run's results, the `expect:` verdicts, and the writers.
 *
 * Definitions (REEF §6.2): a request's normalized latency is its end-to-end latency (done -
 * arrival) divided by its model's standalone latency; a client's normalized throughput is its
 * completed requests per second divided by the model's standalone maximum (1 / standalone
 * latency). Only requests that arrived at or after warmup_ns count; throughput counts those that
 * completed within the run, over the window duration - warmup. Percentiles are nearest-rank
 * (the ceil(p/100 * n)-th smallest value). `rt.*` pools every RT client's requests. */
#ifndef ATOLL_SIM_REPORT_H
#define ATOLL_SIM_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "run/results.h"

typedef struct atoll_stats {
  uint32_t n;
  double mean, p50, p95, p99, max;
  int32_t max_client;   /* the request that set max: client index and request id; -1 if n == 0 */
  uint64_t max_request;
  int64_t max_arrival_ns;
} atoll_stats;

typedef struct atoll_client_report {
  uint32_t requests, completed, dropped, deadline_misses;
  double throughput_rps, norm_throughput;
  atoll_stats latency_us, norm_latency;
  /* Outcomes (docs/report.md): shed and failed count all of the run, like dropped; goodput_rps is
   * the requests of the window completed within their deadline, per second. */
  uint32_t shed, completed_in_deadline;
  double goodput_rps;
  uint32_t failed;
  uint32_t demotions, recoveries; /* dart's overrun enforcement (docs/dart.md) */
  const char *failure; /* the first failure's message; NULL when none failed */
  /* Batches (docs/report.md): the mean and largest number of requests per model run, over the
   * runs that served the window's completed requests; NaN and 0 when none completed. */
  double batch_mean;
  uint32_t batch_max;
  /* QoS violations (Abacus §7): requests of the window completed late, shed or failed, or overdue
   * (below), plus the dropped ones; violation_ratio divides them by the requests (window) plus the
   * dropped ones. */
  uint32_t lost; /* requests of the window shed or failed */
  uint32_t qos_violations;
  double violation_ratio;
  const char *refusal; /* dart's admission refused the task at run time (NULL: it did not) */
  /* GSLICE's GPU utilisation efficacy (GUE): throughput_rps / the mean latency in ms; NaN when
   * nothing completed (docs/report.md). */
  double gue;
  /* Requests of the window still queued or running at its end, neither shed nor failed, whose
   * deadline had passed by then: late whenever they complete, so QoS violations too. */
  uint32_t overdue;
  /* The statistics over the window's completed requests and its unfinished ones (neither
   * completed, shed nor failed when the run ended), each unfinished one at its wait so far: since
   * its latency is at least that wait, each is a lower bound on the statistic over every request
   * of the window. A bound on latency is judged on it where it is the larger (docs/report.md); its
   * max then names the unfinished request. Equal to latency_us and norm_latency when nothing is
   * unfinished; n less theirs is the number unfinished. */
  atoll_stats latency_lower_us, norm_latency_lower;
} atoll_client_report;

typedef struct atoll_expect_verdict {
  double value;
  bool holds;
  double margin; /* > 0 inside the bound, < 0 outside */
  bool has_request; /* for a max: which request set it */
  int32_t client;
  uint64_t request;
  int64_t arrival_ns;
  bool unfinished; /* the request that set the max had not finished when the run ended */
  /* A mean or percentile judged on its lower bound with the unfinished requests' waits
   * (atoll_client_report's latency_lower_us), which was larger than the completed requests'. */
  bool lower_bound;
} atoll_expect_verdict;

typedef struct atoll_report {
  const atoll_run_results *res;
  atoll_client_report *clients; /* per scenario client */
  atoll_stats rt_latency_us, rt_norm_latency;
  double total_norm_throughput;
  uint32_t preemption_count;
  atoll_stats preemption_latency_us;
  double breakdown_us[3];  /* mean hq_reset, dq_evict, cu_kill over preemptions */
  uint64_t restored_kernels;
  double wasted_gpu_us, restore_us; /* totals */
  double cu_busy_frac, cu_busy_frac_rt, cu_busy_frac_be;
  double cu_busy_frac_be_padded; /* the part of cu_busy_frac_be with padded BE blocks resident */
  /* Padding (REEF Fig. 27): RT kernels completed in the window, how many ran in padded launches,
   * and those kernels' overhead (padded launch time less the kernel's time alone) in us and in
   * percent of the time alone; rt_overhead_cdf_us[i] is the overhead's (5 x i)-th percentile. */
  uint64_t rt_kernels;
  uint32_t rt_kernels_padded;
  atoll_stats rt_overhead_us, rt_overhead_pct;
  double rt_overhead_cdf_us[21];
  /* Operator groups (abacus; all 0 for other policies): how many ended in the window, per second,
   * and the predictor's error on them: mean |predicted - measured| / measured, and the p99 of
   * |predicted - measured| in us. */
  uint32_t groups;
  double groups_per_s, predictor_mape, predictor_p99_abs_err_us;
  atoll_expect_verdict *verdicts; /* per scenario expect */
  bool all_hold;
  /* Per GPU (gpu_count of them): CU busy fraction and the memory its clients' footprints need. */
  uint32_t n_gpus;
  double *gpu_busy_frac, *gpu_memory_mb;
  /* Native runs with device timestamps (results.h path_ns): the preemptions that have a critical
   * path, and its mean shares in us (flag write, DQ drain, kill, RT dispatch). Shown only when
   * path_count > 0, so simulated reports do not change. */
  uint32_t path_count;
  double path_us[4];
  atoll_stats rt_latency_lower_us, rt_norm_latency_lower; /* latency_lower_us's pooled over RT clients */
} atoll_report;

/* Computes every statistic and verdict; allocates with malloc (atoll_report_free). 0 or ATOLL_ENOMEM. */
int atoll_report_compute(const atoll_run_results *res, atoll_report *out);
void atoll_report_free(atoll_report *r);
/* The value of a report field by its dotted path (the grammar of include/atoll/expect.h).
 * Returns 0, or ATOLL_ENOENT for an unknown field. */
int atoll_report_field(const atoll_report *r, const char *field, double *value);

/* Human table on out: per client, RT pooled, preemptions, GPU busy, expect verdicts. */
void atoll_report_print_table(const atoll_report *r, FILE *out);
/* The JSON report (docs/report.md). include_run=false omits the "run" object (used to compare
 * runs for determinism). */
int atoll_report_write_json(const atoll_report *r, FILE *out, bool include_run);
/* One CSV row per client, with a header line when header is true. */
int atoll_report_write_csv(const atoll_report *r, FILE *out, bool header);
/* For each violated bound: "expect FAILED: <expr>: value V, bound B, margin M (set by request R
 * of client C, arrived at T ms)" on out. */
void atoll_report_print_violations(const atoll_report *r, FILE *out);
/* Overload (docs/report.md, "Overload"): whether client c was offered more than it was served: it
 * has open arrivals and dropped or shed a request, or completed fewer than 90 % of its window's
 * requests. */
bool atoll_report_client_overloaded(const atoll_report *r, uint32_t c);
/* One "TOOL: warning: client ..." line on out per overloaded client, with its offered and served
 * rates and loads (docs/scenarios.md, "Load") and its outcomes. Returns how many it printed. */
uint32_t atoll_report_warn_overload(const atoll_report *r, const char *tool, FILE *out);

#endif
