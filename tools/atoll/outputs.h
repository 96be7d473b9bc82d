/* The output files a command is asked for, checked before it runs: a long run that ends by failing
 * to write what it computed, or by writing it over its own input or another output, loses the run. */
#ifndef ATOLL_TOOLS_OUTPUTS_H
#define ATOLL_TOOLS_OUTPUTS_H

#include <stdbool.h>
#include <stdint.h>

#include "tools/atoll/cli.h"

/* Checks the outputs paths[0..n) (NULL: not asked for), named by options[i] in messages, against
 * each other and the command's inputs[0..n_inputs) (NULL entries skipped). Refused, each with a
 * usage error naming the option:
 *  - an empty name, or one that starts with "--" (a missing value: the next option taken as the
 *    file; "./--name" still names such a file);
 *  - more than one "-" (standard output): they would be written back to back, neither readable;
 *  - a folder, or a file whose folder does not exist;
 *  - two outputs naming one file, or an output naming an input (the rename that commits an output
 *    would replace it). Devices such as /dev/null may be named by several.
 * Returns 0, or ATOLL_EXIT_BAD_INPUT after the usage error. *to_stdout (may be NULL) says whether
 * an output is "-": the command's table then stays off standard output. */
int atoll_cli_check_outputs(const atoll_subcommand *cmd, const char *const *paths, const char *const *options,
                            uint32_t n, const char *const *inputs, uint32_t n_inputs, bool *to_stdout);

#endif
