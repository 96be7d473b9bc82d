/* Checking a command's output files before it runs (outputs.h). */
#include "tools/atoll/outputs.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

/* Whether a and b are one regular file (both exist; a link counts as its target, which is what the
 * output's rename replaces). */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* Whether path exists and is not a regular file (a device, a FIFO: several outputs may share it). */
static bool is_special(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Refuses path when it is a folder or its folder does not exist. */
static int check_place(const atoll_subcommand *cmd, const char *option, const char *path) {
  struct stat st;
  if (stat(path, &st) == 0)
    return S_ISDIR(st.st_mode) ? atoll_cli_usage_error(cmd, "%s %s is a folder: name a file in it", option, path) : 0;
  char dir[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash)
    return 0; /* in the working folder */
  size_t len = slash == path ? 1 : (size_t)(slash - path);
  if (len >= sizeof dir) /* too long for any folder: the open says so */
    return 0;
  memcpy(dir, path, len);
  dir[len] = '\0';
  if (stat(dir, &st) != 0) {
    int e = errno;
    return atoll_cli_usage_error(cmd, "%s %s: the folder %s %s", option, path, dir,
                                 e == ENOENT || e == ENOTDIR ? "does not exist" : strerror(e));
  }
  return S_ISDIR(st.st_mode) ? 0 : atoll_cli_usage_error(cmd, "%s %s: %s is not a folder", option, path, dir);
}

int atoll_cli_check_outputs(const atoll_subcommand *cmd, const char *const *paths, const char *const *options,
                            uint32_t n, const char *const *inputs, uint32_t n_inputs, bool *to_stdout) {
  const char *on_stdout = NULL;
  int rc;
  for (uint32_t i = 0; i < n; i++) {
    const char *p = paths[i];
    if (!p)
      continue;
    if (p[0] == '\0')
      return atoll_cli_usage_error(cmd, "%s needs a file name ('-' for standard output)", options[i]);
    if (strncmp(p, "--", 2) == 0)
      return atoll_cli_usage_error(cmd, "%s %s: a value that looks like an option (write ./%s for such a file)",
                                   options[i], p, p);
    if (strcmp(p, "-") == 0) {
      if (on_stdout)
        return atoll_cli_usage_error(cmd, "%s - and %s -: one output at most on standard output", on_stdout,
                                     options[i]);
      on_stdout = options[i];
      continue;
    }
    if ((rc = check_place(cmd, options[i], p)))
      return rc;
    for (uint32_t j = 0; j < n_inputs; j++)
      if (inputs[j] && (strcmp(p, inputs[j]) == 0 || same_file(p, inputs[j])))
        return atoll_cli_usage_error(cmd, "%s %s is %s%s: writing it would replace it", options[i], p,
                                     strcmp(p, inputs[j]) == 0 ? "an input" : "the input ",
                                     strcmp(p, inputs[j]) == 0 ? "" : inputs[j]);
    for (uint32_t j = 0; j < i; j++)
      if (paths[j] && strcmp(paths[j], "-") != 0 && !is_special(p) &&
          (strcmp(p, paths[j]) == 0 || same_file(p, paths[j])))
        return atoll_cli_usage_error(cmd, "%s %s and %s %s name one file: each output needs its own", options[j],
                                     paths[j], options[i], p);
  }
  if (to_stdout)
    *to_stdout = on_stdout != NULL;
  return 0;
}
