/* Shared pieces of the atoll command line: subcommand table, run options, help text. */
#ifndef ATOLL_TOOLS_CLI_H
#define ATOLL_TOOLS_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "io/arena.h"
#include "tools/atoll/commands.h"
#include "io/load.h"

typedef struct atoll_subcommand {
  const char *name;
  int (*run)(int argc, char **argv); /* argv[0] is the subcommand name */
  const char *summary;
  const char *usage; /* full --help text */
} atoll_subcommand;

/* Options every run command takes. --policy, --seed and --duration-ms are --set shorthands,
 * applied before the --set options in the order given. */
enum { ATOLL_CLI_MAX_SETS = 64 }; /* --set options and their shorthands, together */

typedef struct atoll_run_opts {
  /* The command line's, then one a command adds itself (atoll_cli_force_set): always room for it. */
  atoll_set_override sets[ATOLL_CLI_MAX_SETS + 1];
  uint32_t n_sets;
  const char *positional[32]; /* calibrate takes a GPU and its profiles */
  uint32_t n_positional;
  bool quiet; /* --quiet / -q: no progress line (progress.h) */
} atoll_run_opts;

enum { ATOLL_CLI_HELP = 1000 };

/* Parses argv[1..) into opts. Options in `extra` (e.g. "-o", "--json") take one value each and are
 * returned through extra_values in the same order (NULL when absent). Returns 0,
 * ATOLL_CLI_HELP for --help, or ATOLL_EXIT_BAD_INPUT after printing a usage error. */
int atoll_cli_parse(const atoll_subcommand *cmd, int argc, char **argv, atoll_run_opts *opts, const char *const *extra,
                    const char **extra_values, uint32_t n_extra, bool run_options);
/* atoll_cli_parse with --help answered here, the start of most commands: returns true when the
 * command goes on (*exit_code 0); false when it is done, *exit_code then the status to exit with
 * (ATOLL_EXIT_OK after printing the help on stdout, or ATOLL_EXIT_BAD_INPUT after a usage error). */
bool atoll_cli_parse_or_help(const atoll_subcommand *cmd, int argc, char **argv, atoll_run_opts *opts,
                             const char *const *extra, const char **extra_values, uint32_t n_extra, bool run_options,
                             int *exit_code);
/* A whole number in [min, max] written in decimal digits only: no sign, space or suffix (strtoull
 * alone takes " 5", "+5" and "-1", the last as its largest value) and nothing past the range.
 * Returns true with *out set, false (out untouched) otherwise; the caller says what it wanted. */
bool atoll_cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);
/* A number in decimal notation, the whole text: digits, '.', a sign and an exponent only (strtod
 * alone also takes hex, inf, nan and leading spaces), as atoll sim reads its numbers. Returns true
 * with *out set (it may be any finite or out-of-range value: the caller checks its range). */
bool atoll_cli_parse_decimal(const char *text, double *out);
/* The worker threads a command runs when not told: one per online core, from 1 to max (a machine
 * with more cores than a command takes still runs it). */
uint64_t atoll_cli_default_jobs(uint64_t max);
/* Appends a setting the command imposes (fit's policy, compare's column), after the command line's
 * so that it wins. At most one per parse: the parser leaves room for one. */
void atoll_cli_force_set(atoll_run_opts *o, atoll_set_override set);
/* The same, inserted before o->sets[at] (at <= o->n_sets) instead: where the command line had the
 * option it stands for, so that the settings after it still apply (compare's policy=NAME sits
 * where --policy stood, and a later --set policy.OPTION=... is not reset by it). */
void atoll_cli_force_set_at(atoll_run_opts *o, uint32_t at, atoll_set_override set);
int atoll_cli_usage_error(const atoll_subcommand *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void atoll_cli_print_help(const atoll_subcommand *cmd, FILE *out);
/* The usage error for an option the command does not take, with "did you mean" among the options
 * its help names. Returns ATOLL_EXIT_BAD_INPUT. */
int atoll_cli_unknown_option(const atoll_subcommand *cmd, const char *arg);
/* Prints a diag to stderr and returns ATOLL_EXIT_BAD_INPUT. */
int atoll_cli_report(const atoll_diag *d);
/* Loads the one SCENARIO positional argument with the run options' overrides into a fresh arena.
 * Returns 0, or an exit code after printing the usage error or the located input error (the
 * arena is then freed). */
int atoll_cli_load_scenario(const atoll_subcommand *cmd, const atoll_run_opts *o, atoll_arena *a, atoll_scenario *s);
/* Whether atoll sim would refuse s (atoll_sim_refusal): then says why on stderr as "atoll CMD: WHY",
 * in sim's words, so that a command refuses before its work what sim refuses. */
bool atoll_cli_sim_refused(const atoll_subcommand *cmd, const atoll_scenario *s);
/* The same, taking the profiles memo holds instead of loading them again (io/load.h; NULL: none):
 * for commands that load one scenario several times (compare, one load per policy). */
int atoll_cli_load_scenario_memo(const atoll_subcommand *cmd, const atoll_run_opts *o, const atoll_model_memo *memo,
                                 atoll_arena *a, atoll_scenario *s);
/* The scenario at path with sets, loaded once (into a, which this initialises and the caller frees)
 * for its profiles to serve a command's several runs: fills memo from it and returns it, or leaves
 * memo empty and returns NULL when it does not load. Silent: each run then loads on its own and
 * says why. */
const atoll_scenario *atoll_cli_load_memo(const char *path, const atoll_set_override *sets, uint32_t n_sets,
                                          atoll_arena *a, atoll_scenario *s, atoll_model_memo *memo);
/* InSS's latency model for a scenario whose policy uses one (inss, gpulet; any policy when
 * `always`) and names no model: file: fitted at start on the simulated GPU (atoll fit inss) into
 * the arena, with a note on stderr. Returns 0, or an exit code (the arena then freed). */
int atoll_cli_inss_model(atoll_arena *a, atoll_scenario *s, bool always);
/* The same fit, silent, for callers that report for themselves (atoll sweep's runs): 0, with
 * *fitted whether it fitted one and *mape_pct the fit's held-out error, or an error code; the arena
 * stays the caller's. */
int atoll_cli_fit_inss(atoll_arena *a, atoll_scenario *s, bool always, bool *fitted, double *mape_pct);
/* The note on stderr that a model was fitted for s, after "atoll: " and `run` ("" or "run N: "). */
void atoll_cli_fit_note(const atoll_scenario *s, const char *run, double mape_pct);
/* Why atoll_cli_fit_inss failed with rc for s, as a phrase for a message. */
const char *atoll_cli_fit_why(const atoll_scenario *s, int rc);

int atoll_cmd_check(int argc, char **argv);
int atoll_cmd_import(int argc, char **argv);
int atoll_cmd_model(int argc, char **argv);
int atoll_cmd_sim(int argc, char **argv);
int atoll_cmd_calibrate(int argc, char **argv);
int atoll_cmd_sweep(int argc, char **argv);
int atoll_cmd_bound(int argc, char **argv);
int atoll_cmd_compare(int argc, char **argv);
int atoll_cmd_dot(int argc, char **argv);
int atoll_cmd_gen(int argc, char **argv);

int atoll_cmd_explore(int argc, char **argv);
int atoll_cmd_train_predictor(int argc, char **argv);
int atoll_cmd_fit(int argc, char **argv);
int atoll_cmd_predict(int argc, char **argv);
int atoll_cmd_selftest(int argc, char **argv);
int atoll_cmd_capacity(int argc, char **argv);

/* Every command's entry, one per name of commands.h. */
#define ATOLL_DECLARE_COMMAND(name) extern const atoll_subcommand atoll_cmd_##name##_def;
ATOLL_COMMANDS(ATOLL_DECLARE_COMMAND)
#undef ATOLL_DECLARE_COMMAND

/* Human figures: "13233.0 us", "4.82 ms". */
void atoll_fmt_ns(char *buf, size_t size, int64_t ns);
void atoll_fmt_bytes(char *buf, size_t size, uint64_t bytes);

#endif
