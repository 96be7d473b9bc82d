/* Path helpers for resolving files named inside other files. */
#include <string.h>

#include "io/load.h"

const char *atoll_path_dir(atoll_arena *a, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    return atoll_arena_strdup(a, ".");
  if (slash == path)
    return atoll_arena_strdup(a, "/");
  return atoll_arena_strndup(a, path, (size_t)(slash - path));
}

const char *atoll_path_join(atoll_arena *a, const char *base_dir, const char *rel) {
  if (rel[0] == '/' || !base_dir || !base_dir[0] || strcmp(base_dir, ".") == 0)
    return atoll_arena_strdup(a, rel);
  size_t bl = strlen(base_dir), rl = strlen(rel);
  char *p = atoll_arena_alloc(a, bl + rl + 2);
  if (!p)
    return NULL;
  memcpy(p, base_dir, bl);
  size_t at = bl;
  if (base_dir[bl - 1] != '/')
    p[at++] = '/';
  memcpy(p + at, rel, rl + 1);
  return p;
}
