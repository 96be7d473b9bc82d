#include "io/out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atoll/error.h"

int atoll_out_file_open(atoll_out_file *o, const char *path) {
  *o = (atoll_out_file){.path = path};
  if (strcmp(path, "-") == 0) {
    o->f = stdout;
    return 0;
  }
  struct stat st;
  bool exists = stat(path, &st) == 0; /* stat follows a link: st is its target's */
  if (exists && !S_ISREG(st.st_mode)) {
    o->f = fopen(path, "w");
    return o->f ? 0 : ATOLL_EIO;
  }
  /* A link to a file: the file is what is replaced (realpath fails only for a dangling link, which
   * is then replaced by the file, as a new name would be). */
  const char *target = path;
  struct stat lst;
  if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, o->target))
    target = o->target;
  /* A cut name would be another file's, which the failure path removes: refused instead, with the
   * errno a too-long name gets from the system, so that callers say why as for any other failure. */
  if ((target == path && snprintf(o->target, sizeof o->target, "%s", path) >= (int)sizeof o->target) ||
      snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->target, (long)getpid()) >= (int)sizeof o->tmp) {
    o->tmp[0] = '\0';
    errno = ENAMETOOLONG;
    return ATOLL_EINVAL;
  }
  o->f = fopen(o->tmp, "w");
  if (!o->f) {
    o->tmp[0] = '\0';
    return ATOLL_EIO;
  }
  /* The file that replaces one keeps its permissions (a rename would otherwise reset a 0444 or 0600
   * file to the umask's mode); the open stream still writes. Best effort: a failure leaves those. */
  if (exists)
    (void)fchmod(fileno(o->f), st.st_mode & 07777);
  return 0;
}

int atoll_out_file_close(atoll_out_file *o, bool ok) {
  if (o->f == stdout)
    return fflush(stdout) == 0 && ok ? 0 : ATOLL_EIO;
  bool written = !ferror(o->f);
  written = fclose(o->f) == 0 && written;
  o->f = NULL;
  if (!o->tmp[0]) /* written in place */
    return ok && written ? 0 : ATOLL_EIO;
  if (ok && written && rename(o->tmp, o->target) == 0)
    return 0;
  int why = errno;
  remove(o->tmp);
  errno = why;
  return ATOLL_EIO;
}
