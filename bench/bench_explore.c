/* Explorer benchmark: how fast `atoll explore` gets through states, and how large a scenario it
 * finishes within a time budget. Not a test: the machine is shared and noisy, so it prints figures
 * (medians of several runs, wall time and the process's CPU time) and compares nothing.
 *
 *   bench_explore [--runs N] [--budget S] [--policy NAME]
 *
 * Part 1 explores every scenario of scenarios/verify N times (default 3, at most 16) and prints the
 * median distinct states per second. Part 2 grows scenarios/verify/rt-vs-be.yaml: k RT requests, 0.6 ms
 * apart, against BE requests arriving every 1.2 ms on each of the two BE clients (k = 1, 2, ...),
 * and explores each until one does not finish within the budget (default 60 s); the largest k that
 * finished is the figure.
 *
 *   bench_explore --threads-scan FILE [--runs N] [--policy NAME]
 *
 * explores FILE with 1, 2 and 4 worker threads, N times each, interleaved in one process (so the
 * machine's load is shared alike), and prints the median states per wall second and per CPU
 * second, and each wall rate against one thread's (of the medians, and the median of each round's
 * ratio), with the load average before and after. On a machine with fewer free cores than
 * threads the wall ratio shows the sharing of the cores, not the explorer's scaling: the CPU rate
 * then says what each thread achieved (docs/scale-out.md).
 *
 *   bench_explore --once FILE [--policy NAME] [--from-start]
 *
 * explores FILE once on one thread and prints its states and events: what
 * bench/explore_instructions.sh counts instructions of, with checkpoints and (--from-start) with
 * every run replayed from the start.
 *
 * Exit status: 0, 1 when an exploration failed, 2 for bad arguments or a scenario that does not
 * load. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench/bench_util.h"
#include "sim/explore.h"
#include "io/load.h"

enum { MAX_RUNS = 16 };

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int load(atoll_arena *a, const char *path, const char *policy, atoll_scenario *s) {
  char set[128];
  if (snprintf(set, sizeof set, "policy=%s", policy) >= (int)sizeof set) {
    fprintf(stderr, "bench_explore: --policy '%s': no policy has so long a name\n", policy);
    return 2;
  }
  atoll_set_override sets[1] = {{.text = set, .option = "--policy"}}; /* errors name --policy */
  atoll_arena_init(a);
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_scenario_load_file(a, path, sets, 1, s, &d) != 0) {
    atoll_diag_print(&d, stderr);
    atoll_arena_free(a); /* what the failed load allocated */
    return 2;
  }
  return 0;
}

/* Part 1. Returns 0, 1 when an exploration failed, 2 when a scenario did not load; the other
 * scenarios are still measured. */
static int states_per_second(int runs, const char *policy) {
  int rc = 0;
  static const char *const files[] = {"tiny", "rt-vs-be", "jitter", "same-instant"};
  printf("part 1: distinct states per second (median of %d runs, policy %s)\n", runs, policy);
  printf("%-14s %10s %10s %12s %12s %10s\n", "scenario", "states", "runs", "states/s", "states/cpu-s", "wall s");
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/verify/%s.yaml", ATOLL_SOURCE_DIR, files[f]);
    atoll_arena a;
    atoll_scenario s;
    if (load(&a, path, policy, &s)) {
      rc = 2;
      continue;
    }
    double wall[MAX_RUNS], cpu[MAX_RUNS];
    uint64_t states = 0, runs_done = 0;
    int done = 0; /* explorations that finished: only they are in the medians */
    for (int i = 0; i < runs; i++) {
      atoll_explore_result r;
      double c0 = cpu_s();
      if (atoll_explore_run(&s, NULL, &r) != 0) {
        fprintf(stderr, "%s: explore failed\n", path);
        rc = rc ? rc : 1;
        break;
      }
      cpu[i] = (double)r.states / (cpu_s() - c0);
      wall[i] = r.wall_s;
      states = r.states;
      runs_done = r.schedules + r.pruned;
      atoll_explore_free(&r);
      done++;
    }
    if (done > 0) {
      double med_wall = bench_median(wall, (size_t)done), med_cpu = bench_median(cpu, (size_t)done);
      printf("%-14s %10llu %10llu %12.0f %12.0f %10.2f%s\n", files[f], (unsigned long long)states,
             (unsigned long long)runs_done, (double)states / med_wall, med_cpu, med_wall,
             done < runs ? " (runs that finished only)" : "");
    }
    atoll_arena_free(&a);
  }
  return rc;
}

/* rt-vs-be with k RT requests and the BE load scaled with them. */
static int grow(atoll_scenario *s, uint32_t k, int64_t *times, atoll_client *clients) {
  memcpy(clients, s->clients, s->n_clients * sizeof *clients);
  uint32_t be = (k + 1) / 2;
  int64_t *rt = times, *bg1 = times + k, *bg2 = times + k + be;
  for (uint32_t i = 0; i < k; i++)
    rt[i] = 150000 + (int64_t)i * 600000;
  for (uint32_t j = 0; j < be; j++) {
    bg1[j] = (int64_t)j * 1200000;
    bg2[j] = 600000 + (int64_t)j * 1200000;
  }
  clients[0].arrival.times_ns = rt, clients[0].arrival.n_times = k;
  clients[1].arrival.times_ns = bg1, clients[1].arrival.n_times = be;
  clients[2].arrival.times_ns = bg2, clients[2].arrival.n_times = be;
  s->clients = clients;
  s->duration_ns = rt[k - 1] + 4000000;
  return (int)(k + 2 * be);
}

/* Part 2. Returns 0, 1 when an exploration failed, 2 when the scenario did not load. Budgets print
 * with %g: --budget 0.5 printed with %.0f read "within 0 s". */
static int largest_within(double budget, const char *policy) {
  printf("\npart 2: the largest rt-vs-be variant explored completely within %g s (policy %s)\n", budget, policy);
  printf("%4s %9s %12s %12s %10s %12s %s\n", "k", "requests", "states", "runs", "wall s", "states/s", "result");
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/verify/rt-vs-be.yaml", ATOLL_SOURCE_DIR);
  atoll_arena a;
  atoll_scenario base;
  if (load(&a, path, policy, &base))
    return 2;
  uint32_t best = 0;
  int rc = 0;
  for (uint32_t k = 1; k <= 32; k++) {
    atoll_scenario s = base;
    int64_t times[3 * 32];
    atoll_client clients[3];
    int requests = grow(&s, k, times, clients);
    atoll_explore_opts o = {.max_seconds = budget};
    atoll_explore_result r;
    if (atoll_explore_run(&s, &o, &r) != 0) {
      fprintf(stderr, "k=%u: explore failed\n", k);
      rc = 1;
      break;
    }
    printf("%4u %9d %12llu %12llu %10.2f %12.0f %s\n", k, requests, (unsigned long long)r.states,
           (unsigned long long)(r.schedules + r.pruned), r.wall_s, (double)r.states / r.wall_s,
           r.complete ? "complete" : r.why);
    fflush(stdout);
    bool done = r.complete;
    atoll_explore_free(&r);
    if (!done)
      break;
    best = k;
  }
  printf("largest complete within %g s: k = %u RT requests (%u requests in all)\n", budget, best,
         best ? best + 2 * ((best + 1) / 2) : 0);
  atoll_arena_free(&a);
  return rc;
}

/* The machine's 1-minute load average (Linux), or NAN: the threads scan says what it ran beside. */
static double load_average(void) {
  FILE *f = fopen("/proc/loadavg", "r");
  double v = NAN;
  if (f) {
    if (fscanf(f, "%lf", &v) != 1)
      v = NAN;
    fclose(f);
  }
  return v;
}

/* Returns 0, 1 when an exploration failed, 2 when the scenario did not load. */
static int threads_scan(const char *path, int runs, const char *policy) {
  static const uint32_t threads[] = {1, 2, 4};
  enum { NT = sizeof threads / sizeof *threads };
  atoll_arena a;
  atoll_scenario s;
  if (load(&a, path, policy, &s))
    return 2;
  double wall[NT][MAX_RUNS], cpu[NT][MAX_RUNS], ratio[NT][MAX_RUNS];
  uint64_t states[NT] = {0};
  double load0 = load_average();
  for (int i = 0; i < runs; i++)
    for (int t = 0; t < NT; t++) {
      atoll_explore_opts o = {.threads = threads[t]};
      atoll_explore_result r;
      double c0 = cpu_s();
      if (atoll_explore_run(&s, &o, &r) != 0) {
        fprintf(stderr, "%s: explore failed\n", path);
        atoll_arena_free(&a);
        return 1;
      }
      cpu[t][i] = (double)r.states / (cpu_s() - c0);
      wall[t][i] = (double)r.states / r.wall_s;
      ratio[t][i] = wall[t][i] / wall[0][i]; /* against 1 thread in the same round */
      states[t] = r.states;
      atoll_explore_free(&r);
    }
  printf("threads scan: %s, policy %s, median of %d runs; load average %.2f before, %.2f after\n", path, policy,
         runs, load0, load_average());
  printf("%8s %10s %12s %12s %14s %14s\n", "threads", "states", "states/s", "states/cpu-s", "wall vs 1 thread",
         "same round");
  double base = 0;
  for (int t = 0; t < NT; t++) {
    double w = bench_median(wall[t], (size_t)runs), c = bench_median(cpu[t], (size_t)runs);
    double rr = bench_median(ratio[t], (size_t)runs);
    if (t == 0)
      base = w;
    printf("%8u %10llu %12.0f %12.0f %14.2f %14.2f\n", threads[t], (unsigned long long)states[t], w, c, w / base,
           rr);
  }
  atoll_arena_free(&a);
  return 0;
}

static int once(const char *path, const char *policy, bool from_start) {
  atoll_arena a;
  atoll_scenario s;
  if (load(&a, path, policy, &s))
    return 2;
  atoll_explore_opts o = {.replay_from_start = from_start};
  atoll_explore_result r;
  double c0 = cpu_s();
  int rc = atoll_explore_run(&s, &o, &r);
  if (rc == 0) {
    double cpu = cpu_s() - c0;
    printf("%s %s%s: states %llu events %llu replayed %llu cpu_s %.3f states_per_cpu_s %.0f\n", path, policy,
           from_start ? " (from the start)" : "", (unsigned long long)r.states, (unsigned long long)r.events,
           (unsigned long long)r.replayed_events, cpu, (double)r.states / cpu);
    atoll_explore_free(&r);
  }
  atoll_arena_free(&a);
  return rc ? 1 : 0;
}

static const char usage[] = "bench_explore [--runs 1..16] [--budget S] [--policy NAME] [--threads-scan FILE] "
                            "[--once FILE [--from-start]]";

int main(int argc, char **argv) {
  int runs = 3;
  const char *scan = NULL, *one = NULL;
  bool from_start = false;
  double budget = 60;
  const char *policy = "reef";
  for (int i = 1; i < argc; i++) {
    long long v;
    const char *arg = argv[i];
    if (strcmp(arg, "--runs") == 0) {
      if (!bench_opt_int("bench_explore", argc, argv, &i, 1, MAX_RUNS, &v))
        return bench_usage(usage);
      runs = (int)v;
    } else if (strcmp(arg, "--budget") == 0) {
      /* A day at most: beyond it the value is a typo, and a budget's seconds stay exact in a double. */
      if (!bench_opt_double("bench_explore", argc, argv, &i, 0, true, 86400, &budget))
        return bench_usage(usage);
    } else if (strcmp(arg, "--policy") == 0) {
      if (!(policy = bench_opt_value("bench_explore", argc, argv, &i)))
        return bench_usage(usage);
    } else if (strcmp(arg, "--threads-scan") == 0) {
      if (!(scan = bench_opt_value("bench_explore", argc, argv, &i)))
        return bench_usage(usage);
    } else if (strcmp(arg, "--once") == 0) {
      if (!(one = bench_opt_value("bench_explore", argc, argv, &i)))
        return bench_usage(usage);
    } else if (strcmp(arg, "--from-start") == 0) {
      from_start = true;
    } else {
      fprintf(stderr, "bench_explore: unknown argument '%s'\n", arg);
      return bench_usage(usage);
    }
  }
  if (from_start && !one) {
    fprintf(stderr, "bench_explore: --from-start applies to --once only\n");
    return bench_usage(usage);
  }
  if (one && scan) {
    fprintf(stderr, "bench_explore: --once and --threads-scan are two different measurements: give one\n");
    return bench_usage(usage);
  }
  if (one)
    return once(one, policy, from_start);
  if (scan)
    return threads_scan(scan, runs, policy);
  int rc1 = states_per_second(runs, policy), rc2 = largest_within(budget, policy);
  return rc1 > rc2 ? rc1 : rc2;
}
