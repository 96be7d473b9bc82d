/* A progress line for long runs: "sim: 3.20/10.00 s simulated  2.7 s/s  ETA 2.5 s" on stderr.
 *
 * Shown only when stderr is a terminal and the user did not ask for --quiet
 * (atoll_progress_wanted), and only once the work has lasted `delay` (2 s; the environment variable
 * ATOLL_PROGRESS_DELAY_MS overrides it), so short runs print nothing. The line is redrawn in place
 * at most every 0.2 s and erased at the end, so the command's own output is never mixed with it.
 * Any long-running command uses it: sim (simulated time), sweep and compare (runs), explore
 * (states, with no known total). Not thread-safe: call it from one thread, or under a lock. */
#ifndef ATOLL_TOOLS_PROGRESS_H
#define ATOLL_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct atoll_progress {
  FILE *out;          /* NULL: silent (every call returns at once) */
  const char *label;  /* "sim", "sweep", "explore" */
  const char *unit;   /* what `done` counts: "s simulated", "runs", "states" */
  double total;       /* 0: unknown (no ETA) */
  double start_s, last_s, delay_s;
  bool shown;         /* a line is on the terminal */
  double (*clock)(void); /* seconds, monotonic; NULL: CLOCK_MONOTONIC (tests pass their own) */
} atoll_progress;

/* Whether a command should show progress: stderr is a terminal and quiet is false. */
bool atoll_progress_wanted(bool quiet);
/* out is NULL (silent) or the terminal stream, normally stderr when atoll_progress_wanted(). */
void atoll_progress_start(atoll_progress *p, FILE *out, const char *label, const char *unit, double total);
/* `done` units of `total` are done. Cheap when nothing is to be drawn: call it often. */
void atoll_progress_update(atoll_progress *p, double done);
/* Erases the line, if one was drawn. */
void atoll_progress_end(atoll_progress *p);
/* The line's text for `done` after `elapsed_s` seconds (no escape codes); returns buf. */
const char *atoll_progress_format(char *buf, size_t size, const char *label, const char *unit, double done,
                                  double total, double elapsed_s);

#endif
