/* Simulator throughput benchmark: runs a scenario several times and prints the median events per
 * wall-clock second and speed_x (simulated time / wall time), with the CU engine it ran. Not a
 * test: machines are shared and noisy, so it prints figures and compares nothing. Wall time covers
 * the whole atoll_sim_run (the standalone runs of each model included), as `atoll sim` reports it;
 * the same figure over the process's CPU time is printed too, which other load on a shared machine
 * disturbs less (it does not count time spent waiting for a core). With --instructions it then
 * prints the figure load does not move at all: instructions per simulated second, counted by
 * callgrind (bench/sim_instructions.sh on the atoll binary beside it, same scenario, policy and
 * overrides; valgrind must be installed).
 *   bench_sim [SCENARIO] [--runs N] [--set PATH=VALUE]... [--instructions]
 * Default: scenarios/disb/C.yaml, 5 runs (N from 1 to 100). Every scenario, the default and one
 * given, runs with policy streams and 60 s of simulated time (--set policy=... and
 * --set duration_ms=... override them; the first output line names both): the figures docs quote
 * are DISB C's under these. The engine is the scenario's (sim.engine), e.g. --set sim.engine=blocks
 * for the block-level one. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench/bench_util.h"
#include "sim/cu_model.h"
#include "io/load.h"
#include "sim/run.h"

/* Appends arg to cmd in single quotes (a quote inside becomes '\''). False when it does not fit. */
static bool append_quoted(char *cmd, size_t cap, const char *arg) {
  size_t n = strlen(cmd);
  if (n + 2 >= cap)
    return false;
  cmd[n++] = ' ', cmd[n++] = '\'';
  for (const char *c = arg; *c; c++) {
    const char *piece = *c == '\'' ? "'\\''" : (char[2]){*c, 0};
    size_t len = strlen(piece);
    if (n + len + 2 >= cap)
      return false;
    memcpy(cmd + n, piece, len);
    n += len;
  }
  cmd[n++] = '\'', cmd[n] = 0;
  return true;
}

/* Runs bench/sim_instructions.sh on the atoll binary in bench_sim's own folder (a build's bin/). */
static int print_instructions(const char *self, const char *path, const char *policy, const atoll_set_override *sets,
                              uint32_t n_sets) {
  char atoll[4096];
  const char *slash = strrchr(self, '/');
  int len = slash ? (int)(slash - self) : 1;
  snprintf(atoll, sizeof atoll, "%.*s/atoll", len, slash ? self : ".");
  if (access(atoll, X_OK) != 0) {
    fprintf(stderr, "bench_sim: no atoll binary at %s to count instructions with\n", atoll);
    return 1;
  }
  char cmd[8192] = "sh";
  bool ok = append_quoted(cmd, sizeof cmd, ATOLL_SOURCE_DIR "/bench/sim_instructions.sh") &&
            append_quoted(cmd, sizeof cmd, atoll) && append_quoted(cmd, sizeof cmd, path) &&
            append_quoted(cmd, sizeof cmd, policy) && append_quoted(cmd, sizeof cmd, "2000") &&
            append_quoted(cmd, sizeof cmd, "12000");
  for (uint32_t i = 0; ok && i < n_sets; i++)
    ok = append_quoted(cmd, sizeof cmd, "--set") && append_quoted(cmd, sizeof cmd, sets[i].text);
  if (!ok) {
    fprintf(stderr, "bench_sim: arguments too long to count instructions\n");
    return 1;
  }
  printf("instructions per simulated second (callgrind, 2000 and 12000 ms):\n");
  fflush(stdout);
  return system(cmd) == 0 ? 0 : 1;
}

enum { MAX_RUNS = 100, MAX_SETS = 32 };
static const char usage[] =
    "bench_sim [SCENARIO] [--runs 1..100] [--set PATH=VALUE]... [--instructions]\n"
    "  (any scenario runs with policy=streams and duration_ms=60000 unless --set overrides them)";

int main(int argc, char **argv) {
  const char *path = ATOLL_SOURCE_DIR "/scenarios/disb/C.yaml";
  /* The defaults come first, so that a --set of the same path, applied after them, wins. */
  atoll_set_override sets[MAX_SETS] = {{"policy=streams"}, {"duration_ms=60000"}};
  uint32_t n_sets = 2;
  int runs = 5;
  bool instructions = false;
  for (int i = 1; i < argc; i++) {
    long long v;
    if (strcmp(argv[i], "--instructions") == 0) {
      instructions = true;
    } else if (strcmp(argv[i], "--runs") == 0) {
      if (!bench_opt_int("bench_sim", argc, argv, &i, 1, MAX_RUNS, &v))
        return bench_usage(usage);
      runs = (int)v;
    } else if (strcmp(argv[i], "--set") == 0) {
      const char *text = bench_opt_value("bench_sim", argc, argv, &i);
      if (!text)
        return bench_usage(usage);
      if (n_sets == MAX_SETS) {
        fprintf(stderr, "bench_sim: --set '%s': at most %d --set options\n", text, MAX_SETS - 2);
        return bench_usage(usage);
      }
      sets[n_sets++] = (atoll_set_override){.text = text};
    } else if (argv[i][0] != '-') {
      path = argv[i];
    } else {
      fprintf(stderr, "bench_sim: unknown option '%s'\n", argv[i]);
      return bench_usage(usage);
    }
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_scenario s;
  if (atoll_scenario_load_file(&a, path, sets, n_sets, &s, &d) != 0) {
    atoll_diag_print(&d, stderr);
    atoll_arena_free(&a);
    return 2;
  }
  double speed[MAX_RUNS], eps[MAX_RUNS], cpu_speed[MAX_RUNS];
  uint64_t events = 0;
  for (int r = 0; r < runs; r++) {
    atoll_run_results res;
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    int rc = atoll_sim_run(&s, NULL, &res);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    if (rc != 0) {
      fprintf(stderr, "bench_sim: run failed\n");
      atoll_arena_free(&a);
      return 1;
    }
    speed[r] = (double)s.duration_ns / 1e9 / res.wall_s;
    eps[r] = (double)res.events / res.wall_s;
    cpu_speed[r] = (double)s.duration_ns / 1e9 /
                   ((double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9);
    events = res.events;
    atoll_run_results_free(&res);
  }
  double eps_med = bench_median(eps, (size_t)runs), speed_med = bench_median(speed, (size_t)runs); /* sort */
  double cpu_med = bench_median(cpu_speed, (size_t)runs);
  /* %.10g: a duration under a second (duration_ms=600) printed with %.0f read "1 s". */
  printf("scenario %s, policy %s, engine %s, %.10g s simulated, %d runs\n", path, atoll_policy_name(s.policy.kind),
         atoll_sim_engine_name(s.engine), (double)s.duration_ns / 1e9, runs);
  printf("events per run %llu (%.3g per simulated second)\n", (unsigned long long)events,
         (double)events / ((double)s.duration_ns / 1e9));
  printf("events/s  median %.3g (min %.3g, max %.3g)\n", eps_med, eps[0], eps[runs - 1]);
  printf("speed_x   median %.1f (min %.1f, max %.1f)\n", speed_med, speed[0], speed[runs - 1]);
  printf("speed_x over CPU time  median %.1f (min %.1f, max %.1f)\n", cpu_med, cpu_speed[0], cpu_speed[runs - 1]);
  int rc = instructions ? print_instructions(argv[0], path, atoll_policy_name(s.policy.kind), sets + 2, n_sets - 2) : 0;
  atoll_arena_free(&a);
  return rc;
}
