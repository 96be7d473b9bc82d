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
    "  --out DIR          folder to write (created if missing)\n"
    "  --seed N           random seed (default 1); set k draws from stream k\n"
    "  --heavy-ratio F    fraction of heavy-model tasks, 0..1 (default 0.5)\n"
    "  --tasks N          RT tasks per set, 1..200 (default 10)\n"
    "  --sets N           how many sets (default 1)\n"
    "  --models DIR       folder of the model profiles (default: the data folder's models/)\n"
    "  --duration-ms N    each scenario's duration (default 60000)\n"
    "\n"
    "exit: 0 written; 2 bad input.\n"};

static const char *const heavy[] = {"vgg", "alexnet"}, *const light[] = {"pilotnet", "lenet"};

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

static int write_set(const char *path, const char *models, uint64_t seed, uint32_t k, double ratio, uint32_t n,
                     int64_t duration_ms) {
  atoll_rng rng;
  atoll_rng_seed(&rng, seed, k);
  uint32_t n_heavy = (uint32_t)llround(ratio * n);
  bool *is_heavy = calloc(n ? n : 1, sizeof *is_heavy);
  if (!is_heavy)
    return ATOLL_ENOMEM;
  /* Exactly n_heavy heavy tasks at random positions (a partial Fisher-Yates over the indices). */
  uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
  if (!idx) {
    free(is_heavy);
    return ATOLL_ENOMEM;
  }
  for (uint32_t i = 0; i < n; i++)
    idx[i] = i;
  for (uint32_t i = 0; i < n_heavy; i++) {
    uint32_t j = i + (uint32_t)(atoll_rng_unit(&rng) * (n - i));
    uint32_t x = idx[i];
    idx[i] = idx[j], idx[j] = x;
    is_heavy[idx[i]] = true;
  }
  FILE *f = fopen(path, "w");
  if (!f) {
    free(is_heavy), free(idx);
    return ATOLL_EIO;
  }
  fprintf(f, "# DART schedulability task set (atoll gen dart-tasksets --seed %llu --heavy-ratio %g --tasks %u), set %u\n",
          (unsigned long long)seed, ratio, n, k);
  fprintf(f, "description: DART bi-modal task set, %u RT tasks, heavy ratio %g\ngpu: mi50\nmodels:\n", n, ratio);
  /* Quoted: a folder's name may hold what YAML reads otherwise ("#" starts a comment). */
  for (int m = 0; m < 2; m++)
    for (int h = 0; h < 2; h++) {
      const char *name = h ? light[m] : heavy[m];
      char file[PATH_MAX + 64];
      profile_file(file, sizeof file, models, name);
      fprintf(f, "  %s: ", name);
      atoll_yaml_write_quoted(f, file);
      fputc('\n', f);
    }
  fprintf(f, "nodes: {search_cores: 8}\nclients:\n");
  for (uint32_t i = 0; i < n; i++) {
    const char *model = is_heavy[i] ? heavy[atoll_rng_unit(&rng) < 0.5 ? 0 : 1] : light[atoll_rng_unit(&rng) < 0.5 ? 0 : 1];
    /* Whole milliseconds for the deadline, microseconds for the phase: exact in YAML. */
    int64_t dl_ms = 300 + (int64_t)(atoll_rng_unit(&rng) * 201.0);
    if (dl_ms > 500)
      dl_ms = 500;
    double phase_ms = floor(atoll_rng_unit(&rng) * (double)dl_ms * 1000.0) / 1000.0;
    fprintf(f, "  - {name: rt_%02u_%s, model: %s, class: rt, deadline_ms: %lld, arrival: {kind: trace, times_ms: [%.3f], "
               "repeat_ms: %lld}}\n",
            i, model, model, (long long)dl_ms, phase_ms, (long long)dl_ms);
  }
  fprintf(f, "policy: {name: dart, be_batch: 1}\nduration_ms: %lld\nwarmup_ms: 0\nseed: %llu\n", (long long)duration_ms,
          (unsigned long long)(seed * 1000 + k));
  free(is_heavy), free(idx);
  return fclose(f) == 0 ? 0 : ATOLL_EIO;
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
  if (v[1] && !atoll_cli_parse_uint(v[1], 0, UINT64_MAX, &seed))
    return atoll_cli_usage_error(cmd, "--seed wants a whole number, not '%s'", v[1]);
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
    profile_file(file, sizeof file, models, m < 2 ? heavy[m] : light[m - 2]);
    if (!file_exists(file)) {
      fprintf(stderr, "atoll gen: %s: no such profile; --models DIR must hold %s, %s, %s and %s.yaml\n", file,
              heavy[0], heavy[1], light[0], light[1]);
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  struct stat st;
  if (mkdir(v[0], 0777) != 0 && (errno != EEXIST || stat(v[0], &st) != 0 || !S_ISDIR(st.st_mode))) {
    const char *why = errno == EEXIST ? "exists and is not a folder" : strerror(errno);
    fprintf(stderr, "atoll gen: --out %s: %s\n", v[0], why);
    return ATOLL_EXIT_BAD_INPUT;
  }
  for (unsigned long long k = 0; k < sets; k++) {
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/set-%04llu.yaml", v[0], k);
    rc = write_set(path, models, seed, (uint32_t)k, ratio, (uint32_t)tasks, (int64_t)dur);
    if (rc) {
      fprintf(stderr, "atoll gen: %s: %s\n", path, atoll_strerror(rc));
      return ATOLL_EXIT_BAD_INPUT;
    }
  }
  return ATOLL_EXIT_OK;
}
