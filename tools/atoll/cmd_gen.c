/* atoll gen dart-tasksets: DART's random bi-modal task sets (§VI-C, docs/dart.md) as scenarios. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atoll/error.h"
#include "atoll/memory.h"
#include "core/workload.h"
#include "io/arena.h"
#include "io/load.h"
#include "io/yquote.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_gen_def = {
    "gen", atoll_cmd_gen, "generate scenarios (DART's random task sets)",
    "usage: atoll gen dart-tasksets --out DIR [--seed N] [--heavy-ratio F] [--tasks N] [--sets N]\n"
    "                               [--models DIR] [--duration-ms N]\n"
    "\n"
    "Writes N scenarios DIR/set-0000.yaml ... of DART's schedulability experiments (docs/dart.md):\n"
    "RT tasks only, each a heavy model (vgg or alexnet, one of the two at random) with probability\n"
    "given by the heavy ratio (exactly round(F x tasks) heavy tasks, at random positions), else a\n"
    "light one (pilotnet or lenet); deadline = period, uniform in [300, 500] ms; the first release\n"
    "at a random phase in [0, period) (trace arrivals repeating every period), so that runs of a\n"
    "set see other alignments than all tasks released at 0; nodes {search_cores: 8}; policy dart.\n"
    "\n"
    "  --out DIR          folder to write (created if missing; the folder it is in must exist)\n"
    "  --seed N           random seed (default 1); set k draws from stream k\n"
    "  --heavy-ratio F    fraction of heavy-model tasks, 0..1 (default 0.5)\n"
    "  --tasks N          RT tasks per set, 1..200 (default 10)\n"
    "  --sets N           how many sets (default 1)\n"
    "  --models DIR       folder of the model profiles (default: the data folder's models/)\n"
    "  --duration-ms N    each scenario's duration (default 60000)\n"
    "\n"
    "exit: 0 written; 2 bad input.\n"};

static bool file_exists(const char *p) { return access(p, R_OK) == 0; }

/* The models folder: --models, else the first data folder holding models/vgg.yaml. */
static const char *models_dir(atoll_arena *a, const char *given, char *out) {
  if (given)
    return realpath(given, out);
  const char *dirs[ATOLL_DATA_DIRS_MAX];
  size_t n = atoll_data_dirs(a, dirs, ATOLL_DATA_DIRS_MAX);
  for (size_t i = 0; i < n; i++) {
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/models/vgg.yaml", dirs[i]);
    if (file_exists(probe)) {
      snprintf(probe, sizeof probe, "%s/models", dirs[i]);
      return realpath(probe, out) ? out : NULL;
    }
  }
  return NULL;
}

/* The profile of model `name` in the models folder. */
static void profile_file(char *buf, size_t size, const char *models, const char *name) {
  snprintf(buf, size, "%s/%s.yaml", models, name);
}

/* One task of a set: its model (0, 1 heavy; 2, 3 light, as `names` lists them), deadline and
 * first release. */
typedef struct gen_task {
  uint8_t model;
  int64_t dl_ms;
  double phase_ms;
} gen_task;

static const char *const names[4] = {"vgg", "alexnet", "pilotnet", "lenet"};

/* Set k's n tasks, drawn from stream k of seed (the same draws, in the same order, as the sets were
 * always made: a set is the same for the same options). */
static int draw_set(uint64_t seed, uint32_t k, double ratio, uint32_t n, gen_task *out) {
  atoll_rng rng;
  atoll_rng_seed(&rng, seed, k);
  uint32_t n_heavy = (uint32_t)llround(ratio * n);
  bool *is_heavy = calloc(n ? n : 1, sizeof *is_heavy);
  /* Exactly n_heavy heavy tasks at random positions (a partial Fisher-Yates over the indices). */
  uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!is_heavy || !idx) {
    free(is_heavy), free(idx);
    return ATOLL_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++)
    idx[i] = i;
  for (uint32_t i = 0; i < n_heavy; i++) {
    uint32_t j = i + (uint32_t)(atoll_rng_unit(&rng) * (n - i));
    j = j < n ? j : n - 1; /* the draw is in (0, 1]: 1 would pick one past the last */
    uint32_t x = idx[i];
    idx[i] = idx[j], idx[j] = x;
    is_heavy[idx[i]] = true;
  }
  for (uint32_t i = 0; i < n; i++) {
    uint8_t pick = atoll_rng_unit(&rng) < 0.5 ? 0 : 1;
    out[i].model = (uint8_t)(is_heavy[i] ? pick : 2 + pick);
    /* Whole milliseconds for the deadline, microseconds for the phase: exact in YAML. */
    int64_t dl_ms = 300 + (int64_t)(atoll_rng_unit(&rng) * 201.0);
    out[i].dl_ms = dl_ms > 500 ? 500 : dl_ms;
    out[i].phase_ms = floor(atoll_rng_unit(&rng) * (double)out[i].dl_ms * 1000.0) / 1000.0;
    if (out[i].phase_ms >= (double)out[i].dl_ms) /* a draw of 1: the phase is within [0, period) */
      out[i].phase_ms = (double)out[i].dl_ms - 0.001;
  }
  free(is_heavy), free(idx);
  return 0;
}

static int write_set(const char *path, const char *models, uint64_t seed, uint32_t k, double ratio, uint32_t n,
                     int64_t duration_ms, const gen_task *t) {
  FILE *f = fopen(path, "w");
  if (!f)
    return ATOLL_EIO;
  fprintf(f, "# DART schedulability task set (atoll gen dart-tasksets --seed %llu --heavy-ratio %g --tasks %u), set %u\n",
          (unsigned long long)seed, ratio, n, k);
  fprintf(f, "description: DART bi-modal task set, %u RT tasks, heavy ratio %g\ngpu: mi50\nmodels:\n", n, ratio);
  /* Quoted: a folder's name may hold what YAML reads otherwise ("#" starts a comment). */
  static const int order[4] = {0, 2, 1, 3}; /* vgg, pilotnet, alexnet, lenet, as the sets always listed them */
  for (int m = 0; m < 4; m++) {
    char file[PATH_MAX + 64];
    profile_file(file, sizeof file, models, names[order[m]]);
    fprintf(f, "  %s: ", names[order[m]]);
    atoll_yaml_write_quoted(f, file);
    fputc('\n', f);
  }
  fprintf(f, "nodes: {search_cores: 8}\nclients:\n");
  for (uint32_t i = 0; i < n; i++) {
    const char *model = names[t[i].model];
    fprintf(f, "  - {name: rt_%02u_%s, model: %s, class: rt, deadline_ms: %lld, arrival: {kind: trace, times_ms: [%.3f], "
               "repeat_ms: %lld}}\n",
            i, model, model, (long long)t[i].dl_ms, t[i].phase_ms, (long long)t[i].dl_ms);
  }
  fprintf(f, "policy: {name: dart, be_batch: 1}\nduration_ms: %lld\nwarmup_ms: 0\nseed: %llu\n", (long long)duration_ms,
          (unsigned long long)(seed * 1000 + k));
  return fclose(f) == 0 ? 0 : ATOLL_EIO;
}

/* What each model's instance holds on the GPU (weights and one request's activations, as a scenario
 * counts it: io/scenario_load.c) and the MI50's memory, for the check that every set fits. */
static int memory_of(const char *models, double mb[4], double *capacity_mb) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  const char *preset = atoll_gpu_find_preset(&a, "mi50", models);
  atoll_gpu g;
  int rc = preset ? atoll_gpu_load_file(&a, preset, &g, &d) : ATOLL_ENOENT;
  if (rc == 0)
    *capacity_mb = g.memory_mb;
  for (int m = 0; m < 4 && rc == 0; m++) {
    char file[PATH_MAX + 64];
    profile_file(file, sizeof file, models, names[m]);
    atoll_model model;
    rc = atoll_model_load_file(&a, file, &g, &model, &d);
    if (rc == 0)
      mb[m] = atoll_model_instance_mb(&model, 1);
  }
  if (rc) {
    if (d.set)
      atoll_diag_print(&d, stderr);
    else
      fprintf(stderr, "atoll gen: no GPU preset 'mi50', which the sets run on\n");
  }
  atoll_arena_free(&a);
  return rc;
}

int atoll_cmd_gen(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_gen_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--out", "--seed", "--heavy-ratio", "--tasks", "--sets", "--models", "--duration-ms"};
  const char *v[7];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, v, 7, false, &rc))
    return rc;
  if (o.n_positional != 1 || strcmp(o.positional[0], "dart-tasksets") != 0)
    return atoll_cli_usage_error(cmd, "want one generator, dart-tasksets");
  if (!v[0])
    return atoll_cli_usage_error(cmd, "--out DIR is required");
  uint64_t seed = 1, tasks = 10, sets = 1, dur = 60000;
  double ratio = 0.5;
  /* Set k's scenario runs with seed x 1000 + k, which must not wrap. */
  if (v[1] && !atoll_cli_parse_uint(v[1], 0, UINT64_MAX / 1000 - 1, &seed))
    return atoll_cli_usage_error(cmd, "--seed wants a whole number from 0 to %llu, not '%s'",
                                 (unsigned long long)(UINT64_MAX / 1000 - 1), v[1]);
  if (v[2]) {
    char *end;
    ratio = strtod(v[2], &end);
    if (*end || end == v[2] || !(ratio >= 0 && ratio <= 1))
      return atoll_cli_usage_error(cmd, "--heavy-ratio wants a fraction in [0, 1], not '%s'", v[2]);
  }
  if (v[3] && !atoll_cli_parse_uint(v[3], 1, 200, &tasks))
    return atoll_cli_usage_error(cmd, "--tasks wants 1..200, not '%s'", v[3]);
  if (v[4] && !atoll_cli_parse_uint(v[4], 1, 100000, &sets))
    return atoll_cli_usage_error(cmd, "--sets wants 1..100000, not '%s'", v[4]);
  if (v[6] && !atoll_cli_parse_uint(v[6], 1, 86400000, &dur))
    return atoll_cli_usage_error(cmd, "--duration-ms wants 1..86400000, not '%s'", v[6]);
  atoll_arena a;
  atoll_arena_init(&a);
  char models[PATH_MAX];
  if (!models_dir(&a, v[5], models)) {
    fprintf(stderr, "atoll gen: no models folder%s%s (give --models DIR)\n", v[5] ? " " : "", v[5] ? v[5] : "");
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  atoll_arena_free(&a);
  for (int m = 0; m < 4; m++) { /* the profiles the sets name, before any set is written */
    char file[PATH_MAX + 64];
    profile_file(file, sizeof file, models, names[m]);
    if (!file_exists(file)) {
      fprintf(stderr, "atoll gen: %s: no such profile; --models DIR must hold %s, %s, %s and %s.yaml\n", file,
              names[0], names[1], names[2], names[3]);
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  /* Every set is drawn and checked against the GPU's memory before any is written (a set of 110
   * heavy tasks needs 16,857 MB of the MI50's 16,384, and atoll check refused it). */
  double mb[4], capacity_mb = 0;
  if (memory_of(models, mb, &capacity_mb))
    return ATOLL_EXIT_BAD_INPUT;
  gen_task *t = malloc(tasks * sizeof *t);
  if (!t)
    return ATOLL_EXIT_BAD_INPUT;
  for (uint64_t k = 0; k < sets && capacity_mb > 0; k++) {
    if ((rc = draw_set(seed, (uint32_t)k, ratio, (uint32_t)tasks, t)))
      break;
    double need = 0;
    for (uint64_t i = 0; i < tasks; i++)
      need += mb[t[i].model];
    if (need > capacity_mb) {
      fprintf(stderr, "atoll gen: set %llu's %llu tasks need %.1f MB of GPU memory, more than the MI50's %.0f MB "
                      "(each task holds its model: vgg %.1f, alexnet %.1f, pilotnet %.1f, lenet %.1f MB); give fewer "
                      "--tasks or a lower --heavy-ratio\n",
              (unsigned long long)k, (unsigned long long)tasks, need, capacity_mb, mb[0], mb[1], mb[2], mb[3]);
      free(t);
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  if (rc) {
    fprintf(stderr, "atoll gen: %s\n", atoll_strerror(rc));
    free(t);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* The last set has the longest name. Cut names lost their ".yaml" and overwrote each other. */
  char last[PATH_MAX];
  if ((size_t)snprintf(last, sizeof last, "%s/set-%04llu.yaml", v[0], (unsigned long long)(sets - 1)) >= sizeof last) {
    fprintf(stderr, "atoll gen: --out %s: the sets' file names would be longer than %d characters\n", v[0],
            PATH_MAX - 1);
    free(t);
    return ATOLL_EXIT_BAD_INPUT;
  }
  struct stat st;
  if (mkdir(v[0], 0777) != 0 && (errno != EEXIST || stat(v[0], &st) != 0 || !S_ISDIR(st.st_mode))) {
    const char *why = errno == EEXIST ? "exists and is not a folder" : strerror(errno);
    fprintf(stderr, "atoll gen: --out %s: %s\n", v[0], why);
    free(t);
    return ATOLL_EXIT_BAD_INPUT;
  }
  for (uint64_t k = 0; k < sets && rc == 0; k++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/set-%04llu.yaml", v[0], (unsigned long long)k); /* fits: checked above */
    rc = draw_set(seed, (uint32_t)k, ratio, (uint32_t)tasks, t);
    if (rc == 0)
      rc = write_set(path, models, seed, (uint32_t)k, ratio, (uint32_t)tasks, (int64_t)dur, t);
    if (rc)
      fprintf(stderr, "atoll gen: %s: %s\n", path, atoll_strerror(rc));
  }
  free(t);
  return rc ? ATOLL_EXIT_BAD_INPUT : ATOLL_EXIT_OK;
}
