#include "tools/atoll/cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "io/suggest.h"
#include "sim/inss_fit.h"
#include "sim/run.h"

void atoll_cli_print_help(const atoll_subcommand *cmd, FILE *out) { fputs(cmd->usage, out); }

int atoll_cli_usage_error(const atoll_subcommand *cmd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "atoll %s: ", cmd->name);
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n(see 'atoll %s --help')\n", cmd->name);
  va_end(ap);
  return ATOLL_EXIT_BAD_INPUT;
}

int atoll_cli_report(const atoll_diag *d) {
  atoll_diag_print(d, stderr);
  return ATOLL_EXIT_BAD_INPUT;
}

int atoll_cli_load_scenario(const atoll_subcommand *cmd, const atoll_run_opts *o, atoll_arena *a, atoll_scenario *s) {
  return atoll_cli_load_scenario_memo(cmd, o, NULL, a, s);
}

int atoll_cli_load_scenario_memo(const atoll_subcommand *cmd, const atoll_run_opts *o, const atoll_model_memo *memo,
                                 atoll_arena *a, atoll_scenario *s) {
  if (o->n_positional != 1)
    return atoll_cli_usage_error(cmd, "expected one SCENARIO file");
  atoll_arena_init(a);
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_scenario_load_file_memo(a, o->positional[0], o->sets, o->n_sets, memo, s, &d) != 0) {
    atoll_arena_free(a);
    return atoll_cli_report(&d);
  }
  return atoll_cli_inss_model(a, s, false);
}

const atoll_scenario *atoll_cli_load_memo(const char *path, const atoll_set_override *sets, uint32_t n_sets,
                                          atoll_arena *a, atoll_scenario *s, atoll_model_memo *memo) {
  atoll_arena_init(a);
  atoll_diag d;
  atoll_diag_clear(&d);
  *memo = (atoll_model_memo){0};
  if (atoll_scenario_load_file(a, path, sets, n_sets, s, &d) != 0)
    return NULL;
  *memo = (atoll_model_memo){.models = s->models, .n = s->n_models};
  return s;
}

int atoll_cli_fit_inss(atoll_arena *a, atoll_scenario *s, bool always, bool *fitted, double *mape_pct) {
  *fitted = false;
  bool uses = s->policy.kind == ATOLL_POLICY_INSS || s->policy.kind == ATOLL_POLICY_GPULET;
  if (s->inss || !(uses || always))
    return 0;
  atoll_inss_model *m = atoll_arena_calloc(a, 1, sizeof *m);
  atoll_inss_fit_report *rep = malloc(sizeof *rep);
  int rc = m && rep ? atoll_sim_inss_fit(s, m, rep) : ATOLL_ENOMEM;
  if (rc == 0) {
    *fitted = true;
    *mape_pct = rep->mape_test_pct;
    s->inss = m;
  }
  free(rep);
  return rc;
}

const char *atoll_cli_fit_why(const atoll_scenario *s, int rc) {
  /* The fit's runs bind each model to its CUs (sim/inss_fit.c), which the rate engine lacks. */
  if (rc == ATOLL_ENOTSUP && s->engine == ATOLL_ENGINE_RATE)
    return "the fit runs the models on static partitions (streams bound to CU sets), which sim.engine=rate "
           "does not model; fit on fluid or blocks (atoll fit inss) and give the model as the policy's model:";
  return atoll_strerror(rc);
}

int atoll_cli_inss_model(atoll_arena *a, atoll_scenario *s, bool always) {
  bool fitted;
  double mape = 0;
  int rc = atoll_cli_fit_inss(a, s, always, &fitted, &mape);
  if (rc) {
    fprintf(stderr, "atoll: fitting InSS's model for %s: %s\n", s->path, atoll_cli_fit_why(s, rc));
    atoll_arena_free(a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (fitted)
    atoll_cli_fit_note(s, "", mape);
  return 0;
}

void atoll_cli_fit_note(const atoll_scenario *s, const char *run, double mape_pct) {
  fprintf(stderr,
          "atoll: %s%s has no InSS model (policy model:); fitted one on the simulated %s, held-out MAPE %.2f %%\n",
          run, s->path, s->gpu.name, mape_pct);
}

static int add_set(const atoll_subcommand *cmd, atoll_run_opts *o, const char *text) {
  if (o->n_sets >= ATOLL_CLI_MAX_SETS)
    return atoll_cli_usage_error(cmd, "too many --set options");
  o->sets[o->n_sets++] = (atoll_set_override){.text = text};
  return 0;
}

enum { MAX_HELP_OPTIONS = 64, OPTION_LEN = 32 };

/* The options a command's help text names: every "--word" and " -x" in it, once each. */
static uint32_t help_options(const atoll_subcommand *cmd, char names[][OPTION_LEN], uint32_t max) {
  uint32_t n = 0;
  for (const char *p = cmd->usage; p && *p && n < max; p++) {
    if (*p != '-' || (p > cmd->usage && p[-1] != ' ' && p[-1] != '[' && p[-1] != '\n' && p[-1] != ','))
      continue;
    size_t len;
    if (p[1] == '-') { /* --word-with-dashes */
      len = 2;
      while ((p[len] >= 'a' && p[len] <= 'z') || (p[len] >= '0' && p[len] <= '9') || p[len] == '-')
        len++;
      if (len == 2 || len >= OPTION_LEN)
        continue;
    } else { /* -x alone, not -1 or -word */
      bool alnum_after = (p[2] >= 'a' && p[2] <= 'z') || (p[2] >= '0' && p[2] <= '9');
      if (!(p[1] >= 'a' && p[1] <= 'z') || alnum_after)
        continue;
      len = 2;
    }
    char word[OPTION_LEN];
    memcpy(word, p, len);
    word[len] = '\0';
    uint32_t k = 0;
    while (k < n && strcmp(names[k], word) != 0)
      k++;
    if (k == n)
      memcpy(names[n++], word, len + 1);
    p += len - 1;
  }
  return n;
}

static int unknown_option(const atoll_subcommand *cmd, const char *a, const char *const *known, uint32_t n_known) {
  static char names[MAX_HELP_OPTIONS][OPTION_LEN];
  const char *all[MAX_HELP_OPTIONS + 48];
  uint32_t n = 0;
  for (uint32_t k = 0; k < n_known && n < 48; k++)
    all[n++] = known[k];
  uint32_t h = help_options(cmd, names, MAX_HELP_OPTIONS);
  /* The help also names other commands' options ("atoll explore --witness" in sim's): the refused
   * option itself is no suggestion ("unknown option '--witness'; did you mean '--witness'?"). */
  for (uint32_t k = 0; k < h; k++)
    if (strcmp(names[k], a) != 0)
      all[n++] = names[k];
  char hint[96];
  return atoll_cli_usage_error(cmd, "unknown option '%s'%s", a, atoll_suggest_text(hint, sizeof hint, a, all, n));
}

int atoll_cli_unknown_option(const atoll_subcommand *cmd, const char *arg) { return unknown_option(cmd, arg, NULL, 0); }

/* Whether cmd's help names option `name`. The run options a command takes are those its help
 * lists: bound took --seed and --duration-ms, fit --policy, native --quiet, and did nothing with
 * them. -q goes with --quiet. */
static bool help_names(const atoll_subcommand *cmd, const char *name) {
  static char names[MAX_HELP_OPTIONS][OPTION_LEN];
  uint32_t n = help_options(cmd, names, MAX_HELP_OPTIONS);
  bool quiet = strcmp(name, "-q") == 0;
  for (uint32_t k = 0; k < n; k++)
    if (strcmp(names[k], name) == 0 || (quiet && strcmp(names[k], "--quiet") == 0))
      return true;
  return false;
}

/* The --set text for a shorthand option lives as long as the process: argv does. */
static char shorthand_buf[3][256];

int atoll_cli_parse(const atoll_subcommand *cmd, int argc, char **argv, atoll_run_opts *opts, const char *const *extra,
                    const char **extra_values, uint32_t n_extra, bool run_options) {
  memset(opts, 0, sizeof *opts);
  for (uint32_t i = 0; i < n_extra; i++)
    extra_values[i] = NULL;
  atoll_set_override later[ATOLL_CLI_MAX_SETS];
  uint32_t n_later = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      return ATOLL_CLI_HELP;
    uint32_t e = 0;
    while (e < n_extra && strcmp(a, extra[e]) != 0)
      e++;
    if (e < n_extra) {
      if (i + 1 >= argc)
        return atoll_cli_usage_error(cmd, "%s needs a value", a);
      extra_values[e] = argv[++i];
      continue;
    }
    static const char *const shorthand[] = {"--policy", "--seed", "--duration-ms"};
    static const char *const target[] = {"policy", "seed", "duration_ms"};
    int s = 0;
    while (s < 3 && strcmp(a, shorthand[s]) != 0)
      s++;
    if (run_options && s < 3 && help_names(cmd, a)) {
      if (i + 1 >= argc)
        return atoll_cli_usage_error(cmd, "%s needs a value", a);
      const char *value = argv[++i];
      /* Refused, not cut: a cut seed or duration would run as another number. */
      int len = snprintf(shorthand_buf[s], sizeof shorthand_buf[s], "%s=%s", target[s], value);
      if (len >= (int)sizeof shorthand_buf[s])
        return atoll_cli_usage_error(cmd, "%s: a value of %zu characters; at most %zu", a, strlen(value),
                                     sizeof shorthand_buf[s] - strlen(target[s]) - 2);
      int rc = add_set(cmd, opts, shorthand_buf[s]);
      if (rc)
        return rc;
      opts->sets[opts->n_sets - 1].option = shorthand[s];
      continue;
    }
    if (run_options && (strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0) && help_names(cmd, a)) {
      opts->quiet = true;
      continue;
    }
    if (run_options && strcmp(a, "--set") == 0) {
      if (i + 1 >= argc)
        return atoll_cli_usage_error(cmd, "--set needs PATH=VALUE");
      if (n_later >= ATOLL_CLI_MAX_SETS)
        return atoll_cli_usage_error(cmd, "too many --set options");
      later[n_later++] = (atoll_set_override){.text = argv[++i]};
      continue;
    }
    bool run_option = s < 3 || strcmp(a, "--quiet") == 0 || strcmp(a, "-q") == 0;
    if (run_options && run_option) /* another command's: said as such, not "did you mean" */
      return atoll_cli_usage_error(cmd, "%s takes no %s: it would change nothing here", cmd->name, a);
    if (a[0] == '-' && a[1] != '\0') {
      /* The options this command takes, for "did you mean": those parsed here, and those only
       * its help names (flags a command strips before calling this, such as native's --verify). */
      const char *known[48];
      uint32_t n = 0;
      for (uint32_t k = 0; k < n_extra && n < 40; k++)
        known[n++] = extra[k];
      if (run_options) {
        static const char *const run_opts[] = {"--policy", "--seed", "--duration-ms", "--quiet", "--set"};
        for (uint32_t k = 0; k < 5; k++)
          if (help_names(cmd, run_opts[k]))
            known[n++] = run_opts[k];
      }
      known[n++] = "--help";
      return unknown_option(cmd, a, known, n);
    }
    if (opts->n_positional >= sizeof opts->positional / sizeof opts->positional[0])
      return atoll_cli_usage_error(cmd, "too many arguments");
    opts->positional[opts->n_positional++] = a;
  }
  for (uint32_t i = 0; i < n_later; i++) {
    int rc = add_set(cmd, opts, later[i].text);
    if (rc)
      return rc;
  }
  return 0;
}

bool atoll_cli_parse_or_help(const atoll_subcommand *cmd, int argc, char **argv, atoll_run_opts *opts,
                             const char *const *extra, const char **extra_values, uint32_t n_extra, bool run_options,
                             int *exit_code) {
  int rc = atoll_cli_parse(cmd, argc, argv, opts, extra, extra_values, n_extra, run_options);
  *exit_code = rc;
  if (rc != ATOLL_CLI_HELP)
    return rc == 0;
  atoll_cli_print_help(cmd, stdout);
  *exit_code = ATOLL_EXIT_OK;
  return false;
}

void atoll_fmt_ns(char *buf, size_t size, int64_t ns) {
  if (ns >= 1000000)
    snprintf(buf, size, "%.2f ms", (double)ns / 1e6);
  else
    snprintf(buf, size, "%.1f us", (double)ns / 1e3);
}

void atoll_fmt_bytes(char *buf, size_t size, uint64_t bytes) {
  if (bytes >= 1000000)
    snprintf(buf, size, "%.1f MB", (double)bytes / 1e6);
  else if (bytes >= 1000)
    snprintf(buf, size, "%.1f kB", (double)bytes / 1e3);
  else
    snprintf(buf, size, "%llu B", (unsigned long long)bytes);
}

bool atoll_cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out) {
  if (!text || !isdigit((unsigned char)text[0]))
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(text, &end, 10);
  if (errno == ERANGE || *end || v < min || v > max)
    return false;
  *out = v;
  return true;
}

bool atoll_cli_parse_decimal(const char *text, double *out) {
  size_t len = strspn(text, "0123456789.eE+-");
  char *end;
  double v = strtod(text, &end);
  if (len == 0 || text[len] != '\0' || end != text + len)
    return false;
  *out = v;
  return true;
}

uint64_t atoll_cli_default_jobs(uint64_t max) {
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  if (cores < 1)
    return 1;
  return (uint64_t)cores < max ? (uint64_t)cores : max;
}

void atoll_cli_force_set(atoll_run_opts *o, atoll_set_override set) {
  /* The parser stops at ATOLL_CLI_MAX_SETS; the array has one more. A second forced setting would
   * need a larger array, not a silent drop. */
  atoll_cli_force_set_at(o, o->n_sets, set);
}

void atoll_cli_force_set_at(atoll_run_opts *o, uint32_t at, atoll_set_override set) {
  if (o->n_sets > ATOLL_CLI_MAX_SETS || at > o->n_sets)
    abort();
  memmove(&o->sets[at + 1], &o->sets[at], (o->n_sets - at) * sizeof o->sets[0]);
  o->sets[at] = set;
  o->n_sets++;
}

bool atoll_cli_sim_refused(const atoll_subcommand *cmd, const atoll_scenario *s) {
  char why[256];
  if (!atoll_sim_refusal(s, why, sizeof why))
    return false;
  fprintf(stderr, "atoll %s: %s\n", cmd->name, why);
  return true;
}
