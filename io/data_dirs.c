/* Where atoll's data (GPU presets, models, example scenarios) is found, without a path compiled in:
 * each entry of $ATOLL_PATH first (so that a user's copy of a preset overrides the shipped one, as
 * docs/dkp-results.md does for B), then the folder next to the running executable (an install is
 * relocatable: PREFIX/bin/atoll reads PREFIX/share/atoll; a build tree links BUILD/share/atoll to
 * the source's scenarios/). */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/load.h"

/* <dir of /proc/self/exe>/../share/atoll, or NULL where the executable's path is unknown. */
static const char *exe_data_dir(atoll_arena *a) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0)
    return NULL;
  exe[n] = '\0';
  const char *bin = atoll_path_dir(a, exe);
  const char *up = bin ? atoll_path_dir(a, bin) : NULL;
  return up ? atoll_path_join(a, up, "share/atoll") : NULL;
}

size_t atoll_data_dirs(atoll_arena *a, const char **dirs, size_t max) {
  size_t k = 0;
  const char *env = getenv("ATOLL_PATH");
  /* ATOLL_PATH is colon-separated, like PATH; empty entries are ignored. */
  for (const char *p = env; p && *p && k < max;) {
    const char *colon = strchr(p, ':');
    size_t len = colon ? (size_t)(colon - p) : strlen(p);
    if (len > 0) {
      const char *dir = atoll_arena_strndup(a, p, len);
      if (dir)
        dirs[k++] = dir;
    }
    p += len + (colon ? 1 : 0);
  }
  const char *own = exe_data_dir(a);
  if (own && k < max)
    dirs[k++] = own;
  return k;
}
