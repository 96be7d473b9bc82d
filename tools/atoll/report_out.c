/* Writing a run report to a file or stdout (report_out.h). */
#include "tools/atoll/report_out.h"

#include <string.h>

#include "atoll/error.h"

int atoll_cli_write_report(const atoll_subcommand *cmd, const char *path, const atoll_report *rep,
                           int (*fn)(const atoll_report *, FILE *, bool)) {
  FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "w");
  if (!f) {
    perror(path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  int rc = fn(rep, f, true);
  if (f != stdout && fclose(f) != 0)
    rc = ATOLL_EIO;
  if (rc) {
    fprintf(stderr, "atoll %s: writing %s failed\n", cmd->name, path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  return 0;
}
