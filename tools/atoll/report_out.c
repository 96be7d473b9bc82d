/* Writing a run report to a file or stdout (report_out.h). */
#include "tools/atoll/report_out.h"

#include <errno.h>

#include "atoll/error.h"

int atoll_cli_write_report(const atoll_subcommand *cmd, const char *path, const atoll_report *rep,
                           int (*fn)(const atoll_report *, FILE *, bool)) {
  atoll_out_file out;
  if (atoll_out_file_open(&out, path) != 0) {
    perror(path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (atoll_out_file_close(&out, fn(rep, out.f, true) == 0) != 0) {
    fprintf(stderr, "atoll %s: writing %s failed\n", cmd->name, path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  return 0;
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
