/* Writing a run report (JSON or CSV) to a file or stdout: shared by `atoll sim` and `atoll native`,
 * whose reports are the same format. */
#ifndef ATOLL_TOOLS_REPORT_OUT_H
#define ATOLL_TOOLS_REPORT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "tools/atoll/cli.h"
#include "run/report.h"

/* Writes rep with fn (atoll_report_write_json or _csv) to path ("-": stdout). Returns 0, or
 * ATOLL_EXIT_BAD_INPUT after saying on stderr which file could not be opened or written. */
int atoll_cli_write_report(const atoll_subcommand *cmd, const char *path, const atoll_report *rep,
                           int (*fn)(const atoll_report *, FILE *, bool));

#endif
