/* write_checked.c — the text is made in memory and reaches the file only once it reads back
 * (write_checked.h). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "io/write_checked.h"

#include <inttypes.h>
#include <stdlib.h>

#include "atoll/error.h"

int atoll__write_checked(FILE *out, const atoll__checked_write *w, atoll_diag *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "%s: no memory to write it in", w->subject);
    return ATOLL_EIO;
  }
  const int wrc = w->write(mem, w->obj);
  if (fclose(mem) != 0 || wrc != 0) {
    if (wrc == ATOLL_EINVAL)
      atoll_diag_set(d, NULL, 0, 0, NULL, "%s: %s is not valid (a bug in atoll: please report it)", w->subject,
                     w->what);
    else
      atoll_diag_set(d, NULL, 0, 0, NULL, "%s: could not be written in memory", w->subject);
    free(text);
    return wrc == ATOLL_EINVAL ? ATOLL_EINVAL : ATOLL_EIO;
  }
  atoll_diag back_d;
  atoll_diag_clear(&back_d);
  const atoll_source src = {.name = "(the text being written)", .text = text, .len = len};
  char diff[1024] = "";
  if (w->check(&src, w->obj, &back_d, diff, sizeof diff) != 0) {
    if (back_d.set)
      snprintf(diff, sizeof diff, "it does not load (line %" PRIu32 ", column %" PRIu32 "%s%s: %s)", back_d.line,
               back_d.col, back_d.path[0] ? ", at " : "", back_d.path, back_d.msg);
    atoll_diag_set(d, NULL, 0, 0, NULL,
                   "the %s does not read back as %s, so nothing was written: %s (a bug in atoll: please report "
                   "it with %s)",
                   w->subject, w->made_from, diff, w->report);
    free(text);
    return ATOLL_EINVAL;
  }
  const int rc = fwrite(text, 1, len, out) == len ? 0 : ATOLL_EIO;
  free(text);
  return rc;
}
