/* Writing a run report to a file or stdout (report_out.h). */
#include "tools/atoll/report_out.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "atoll/error.h"

int atoll_cli_write_file(const char *path, int (*fn)(FILE *, const void *), const void *ctx) {
  atoll_out_file out;
  if (atoll_out_file_open(&out, path) != 0) {
    perror(path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  errno = 0;
  int rc = fn(out.f, ctx);
  /* A failed write is said with its reason, kept before the close's calls can reset errno. */
  int why = ferror(out.f) ? (errno ? errno : EIO) : 0;
  errno = 0;
  if (atoll_out_file_close(&out, rc == 0) == 0)
    return 0;
  if (!why && rc == 0)
    why = errno ? errno : EIO;
  const bool to_stdout = strcmp(path, "-") == 0;
  const char *name = to_stdout ? "standard output" : path;
  if (why) {
    if (!(to_stdout && ferror(stdout))) /* standard output's error stays set: main says it at exit */
      fprintf(stderr, "%s: %s\n", name, strerror(why));
  } else {
    fprintf(stderr, "%s: not written: %s\n", name, atoll_strerror(rc));
  }
  return ATOLL_EXIT_BAD_INPUT;
}

/* What atoll_cli_write_report's callback needs. */
typedef struct report_output {
  const atoll_report *rep;
  int (*fn)(const atoll_report *, FILE *, bool);
} report_output;

static int write_report(FILE *f, const void *ctx) {
  const report_output *o = ctx;
  return o->fn(o->rep, f, true);
}

int atoll_cli_write_report(const char *path, const atoll_report *rep, int (*fn)(const atoll_report *, FILE *, bool)) {
  report_output o = {.rep = rep, .fn = fn};
  return atoll_cli_write_file(path, write_report, &o);
}

int atoll_cli_trace_open(atoll_cli_trace *t, const char *path) {
  int rc = atoll_out_file_open(&t->out, path);
  if (rc)
    perror(path);
  if (rc == 0 && atoll_trace_open_stream(&t->trace, t->out.f) != 0) {
    atoll_out_file_close(&t->out, false);
    fprintf(stderr, "%s: cannot write the trace\n", path);
    rc = ATOLL_EIO;
  }
  return rc ? ATOLL_EXIT_BAD_INPUT : 0;
}

int atoll_cli_trace_close(atoll_cli_trace *t, bool ok) {
  errno = 0;
  bool written = atoll_trace_close(&t->trace) == 0;
  int why = errno; /* the failed write's, for the caller's perror: the temporary's removal resets it */
  int rc = atoll_out_file_close(&t->out, ok && written);
  if (ok && !written)
    errno = why ? why : EIO;
  return rc == 0 || !ok ? 0 : ATOLL_EIO;
}
