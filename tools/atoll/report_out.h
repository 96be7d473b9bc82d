/* Writing an output file or stdout whole or not at all, with one message for every failure; and
 * a run report (JSON or CSV), shared by `atoll sim` and `atoll native`, whose reports are the same
 * format. */
#ifndef ATOLL_TOOLS_REPORT_OUT_H
#define ATOLL_TOOLS_REPORT_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "io/out_file.h"
#include "run/report.h"
#include "run/trace.h"
#include "tools/atoll/cli.h"

/* Writes path ("-": stdout) with fn(f, ctx), whole or not at all (io/out_file.h). fn returns 0, or
 * an atoll error code when it could not produce the text (said here as "PATH: not written: WHY";
 * fn says nothing itself). A failed open or write is said as "PATH: REASON". Returns 0, or
 * ATOLL_EXIT_BAD_INPUT after the message on stderr. */
int atoll_cli_write_file(const char *path, int (*fn)(FILE *, const void *), const void *ctx);

/* Writes rep with fn (atoll_report_write_json or _csv) to path, as atoll_cli_write_file does. */
int atoll_cli_write_report(const char *path, const atoll_report *rep, int (*fn)(const atoll_report *, FILE *, bool));

/* A --trace timeline written whole or not at all: a run refused or failed after it opened leaves
 * the file that was there as it was (it left an empty or cut trace in its place). */
typedef struct atoll_cli_trace {
  atoll_trace trace;
  atoll_out_file out;
} atoll_cli_trace;

/* Opens path ("-": stdout). Returns 0, or ATOLL_EXIT_BAD_INPUT after saying why on stderr. */
int atoll_cli_trace_open(atoll_cli_trace *t, const char *path);
/* Ends the timeline; commits it when ok and every byte was written. Returns 0, or ATOLL_EIO (when
 * ok: the trace could not be written, and nothing was; errno says why, for perror). */
int atoll_cli_trace_close(atoll_cli_trace *t, bool ok);

#endif
