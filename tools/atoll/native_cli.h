/* Pieces shared by the native commands (cmd_native.c, cmd_hil.c, native_profile.c). */
#ifndef ATOLL_TOOLS_NATIVE_CLI_H
#define ATOLL_TOOLS_NATIVE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "atoll/scenario.h"
#include "tools/atoll/cli.h"
#include "native/runtime/nrun.h"

int atoll_cmd_native(int argc, char **argv);
int atoll_cmd_hil(int argc, char **argv);

/* Removes the boolean options `names` from argv, setting values[i] for those present. */
int atoll__native_flags(int *argc, char **argv, const char *const *names, bool *values, uint32_t n);
/* Resolves every model's `native:` name; prints why and returns ATOLL_EXIT_BAD_INPUT when one
 * has none or names no native model. */
int atoll__native_models(const atoll_scenario *s, const atoll_nmodel **out);
/* Parses an unsigned option value from min to max (NULL text: leaves *out); a usage error naming the
 * range in `unit`s ("--cus wants from 0 to 64 CUs"), whose exit code it returns, or 0. */
int atoll__native_uint(const atoll_subcommand *cmd, const char *opt, const char *text, uint32_t min, uint32_t max,
                       const char *unit, uint32_t *out);
/* Parses --nice (NULL text: leaves *out); a usage error's exit code, or 0. */
int atoll__native_nice(const atoll_subcommand *cmd, const char *text, int *out);
/* "WHAT at nice -20 (raised from 0) (--nice)": where --nice left the device's threads. */
struct atoll_measure_priority;
void atoll__native_print_nice(FILE *out, const struct atoll_measure_priority *p, const char *what);
/* Prints a failed native run's error; returns its exit code (4 for an unavailable device). */
int atoll__native_fail(const char *what, int rc, const char *err);
/* `atoll native --profile`: measures and writes the device preset and the models' profiles to
 * dir, each op's time the median of `repeats` timed runs, with `awake` keep-awake loops running
 * (--keep-awake; named in the files' headers); a summary on out. Returns an exit code. */
int atoll__native_profile(const atoll_scenario *s, const atoll_native_opts *o, const char *dir, uint32_t repeats,
                          uint32_t awake, FILE *out);
/* Timed runs per op of a model's measurement (`--repeats`, `atoll native --profile` and `atoll hil`):
 * the default, and the most the measurement keeps samples for. */
enum { ATOLL_PROFILE_REPEATS = 15, ATOLL_PROFILE_REPEATS_MAX = 200 };
/* The longest -o DIR of --profile: DIR/models/NAME.yaml stays within PATH_MAX. */
enum { ATOLL_PROFILE_DIR_MAX = 3800 };
/* Parses --repeats (NULL text: *out = ATOLL_PROFILE_REPEATS); a usage error's exit code, or 0. */
int atoll__native_repeats(const atoll_subcommand *cmd, const char *text, uint32_t *out);

#endif
