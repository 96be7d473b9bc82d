/* Shard files of `atoll sweep --shard K/N` and their merge (`atoll sweep --merge`).
 *
 * A shard runs the runs r of the cross product with r % N == K - 1 (round robin, so that runs of
 * every part of the grid, cheap and costly, are spread over the shards). Its file is the sweep's
 * CSV with three kinds of comment line, so that a merge can check it and put rows back in order:
 *
 *   # atoll sweep shard K/N of R runs: ID  first line; ID the sweep's SCENARIO and options
 *                                          (--set, --policy, --seed, --duration-ms) as given, tab-
 *                                          separated, with \t, \n and \\ escaped
 *   # run I: no row                        in place of the row of a run that failed (bad input)
 *   # end exit E                           last line: the shard finished; E its exit status
 *
 * The merge refuses shards whose IDs differ, naming the option that does. A shard of an older atoll
 * (first line without ": ID") merges only with others of its kind.
 *
 * The merge writes the header once and then, for r = 0 .. R-1, the next line of shard r % N: the
 * same bytes in the same order as a one-process sweep. */
#ifndef ATOLL_TOOLS_SWEEP_SHARD_H
#define ATOLL_TOOLS_SWEEP_SHARD_H

#include <stdint.h>
#include <stdio.h>

#include "tools/atoll/cli.h"

void atoll_sweep_shard_begin(FILE *f, uint32_t shard, uint32_t n_shards, uint32_t n_runs, const char *scenario,
                             const atoll_set_override *sets, uint32_t n_sets);
void atoll_sweep_shard_no_row(FILE *f, uint32_t run);
void atoll_sweep_shard_end(FILE *f, int exit_code);

/* `atoll sweep --merge SHARD_FILE... --csv FILE`: returns the highest exit status of the shards,
 * or ATOLL_EXIT_BAD_INPUT (nothing written) for shards that do not make up one whole sweep. */
int atoll_sweep_merge(const atoll_subcommand *cmd, int argc, char **argv);

#endif
