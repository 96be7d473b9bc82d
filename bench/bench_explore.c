/* Explorer benchmark: how fast `atoll explore` gets through states, and how large a scenario it
 * finishes within a time budget. Not a test: the machine is shared and noisy, so it prints figures
 * (medians of several runs, wall time and the process's CPU time) and compares nothing.
 *
 *   bench_explore [--runs N] [--budget S] [--policy NAME]
 *
 * Part 1 explores every scenario of scenarios/verify N times (default 3) and prints the median
 * distinct states per second. Part 2 grows scenarios/verify/rt-vs-be.yaml: k RT requests, 0.6 ms
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
 * every run replayed from the start. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim/explore.h"
#include "io/load.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int load(atoll_arena *a, const char *path, const char *policy, atoll_scenario *s) {
  char set[64];
  snprintf(set, sizeof set, "policy=%s", policy);
  atoll_set_override sets[1] = {{set}};
  atoll_arena_init(a);
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_scenario_load_file(a, path, sets, 1, s, &d) != 0) {
    atoll_diag_print(&d, stderr);
    return 2;
  }
  return 0;
}

static void states_per_second(int runs, const char *policy) {
  static const char *const files[] = {"tiny", "rt-vs-be", "jitter", "same-instant"};
  printf("part 1: distinct states per second (median of %d runs, policy %s)\n", runs, policy);
  printf("%-14s %10s %10s %12s %12s %10s\n", "scenario", "states", "runs", "states/s", "states/cpu-s", "wall s");
  for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
    char path[512];
    snprintf(path, sizeof path, "%s/scenarios/verify/%s.yaml", ATOLL_SOURCE_DIR, files[f]);
    atoll_arena a;
    atoll_scenario s;
    if (load(&a, path, policy, &s))
      continue;
    double wall[16], cpu[16];
    uint64_t states = 0, runs_done = 0;
    for (int i = 0; i < runs; i++) {
      atoll_explore_result r;
      double c0 = cpu_s();
      if (atoll_explore_run(&s, NULL, &r) != 0) {
        fprintf(stderr, "%s: explore failed\n", path);
        break;
      }
      cpu[i] = (double)r.states / (cpu_s() - c0);
      wall[i] = r.wall_s;
      states = r.states;
      runs_done = r.schedules + r.pruned;
      atoll_explore_free(&r);
    }
    double ws[16];
    memcpy(ws, wall, sizeof ws);
    qsort(ws, (size_t)runs, sizeof *ws, cmp_double);
    qsort(cpu, (size_t)runs, sizeof *cpu, cmp_double);
    double med_wall = ws[runs / 2];
    printf("%-14s %10llu %10llu %12.0f %12.0f %10.2f\n", files[f], (unsigned long long)states,
           (unsigned long long)runs_done, (double)states / med_wall, cpu[runs / 2], med_wall);
    atoll_arena_free(&a);
  }
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

static void largest_within(double budget, const char *policy) {
  printf("\npart 2: the largest rt-vs-be variant explored completely within %.0f s (policy %s)\n", budget, policy);
  printf("%4s %9s %12s %12s %10s %12s %s\n", "k", "requests", "states", "runs", "wall s", "states/s", "result");
  char path[512];
  snprintf(path, sizeof path, "%s/scenarios/verify/rt-vs-be.yaml", ATOLL_SOURCE_DIR);
  atoll_arena a;
  atoll_scenario base;
  if (load(&a, path, policy, &base))
    return;
  uint32_t best = 0;
  for (uint32_t k = 1; k <= 32; k++) {
    atoll_scenario s = base;
    int64_t times[3 * 32];
    atoll_client clients[3];
    int requests = grow(&s, k, times, clients);
    atoll_explore_opts o = {.max_seconds = budget};
    atoll_explore_result r;
    if (atoll_explore_run(&s, &o, &r) != 0) {
      fprintf(stderr, "k=%u: explore failed\n", k);
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
  printf("largest complete within %.0f s: k = %u RT requests (%u requests in all)\n", budget, best,
         best ? best + 2 * ((best + 1) / 2) : 0);
  atoll_arena_free(&a);
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

static void threads_scan(const char *path, int runs, const char *policy) {
  static const uint32_t threads[] = {1, 2, 4};
  enum { NT = sizeof threads / sizeof *threads };
  atoll_arena a;
  atoll_scenario s;
  if (load(&a, path, policy, &s))
    return;
  double wall[NT][16], cpu[NT][16], ratio[NT][16];
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
        return;
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
    qsort(wall[t], (size_t)runs, sizeof **wall, cmp_double);
    qsort(cpu[t], (size_t)runs, sizeof **cpu, cmp_double);
    qsort(ratio[t], (size_t)runs, sizeof **ratio, cmp_double);
    double w = wall[t][runs / 2];
    if (t == 0)
      base = w;
    printf("%8u %10llu %12.0f %12.0f %14.2f %14.2f\n", threads[t], (unsigned long long)states[t], w,
           cpu[t][runs / 2], w / base, ratio[t][runs / 2]);
  }
  atoll_arena_free(&a);
}

static int once(const char *path, const char *policy, bool from_start) {
  atoll_arena a;
  atoll_scenario s;
  if (load(&a, path, policy, &s))
    return 1;
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

int main(int argc, char **argv) {
  int runs = 3;
  const char *scan = NULL, *one = NULL;
  bool from_start = false;
  double budget = 60;
  const char *policy = "reef";
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
      budget = atof(argv[++i]);
    else if (strcmp(argv[i], "--policy") == 0 && i + 1 < argc)
      policy = argv[++i];
    else if (strcmp(argv[i], "--threads-scan") == 0 && i + 1 < argc)
      scan = argv[++i];
    else if (strcmp(argv[i], "--once") == 0 && i + 1 < argc)
      one = argv[++i];
    else if (strcmp(argv[i], "--from-start") == 0)
      from_start = true;
    else {
      fprintf(stderr, "usage: bench_explore [--runs N] [--budget S] [--policy NAME] [--threads-scan FILE] "
                      "[--once FILE [--from-start]]\n");
      return 2;
    }
  }
  if (runs < 1 || runs > 16)
    runs = 3;
  if (!(budget > 0))
    budget = 60;
  if (one)
    return once(one, policy, from_start);
  if (scan) {
    threads_scan(scan, runs, policy);
    return 0;
  }
  states_per_second(runs, policy);
  largest_within(budget, policy);
  return 0;
}
