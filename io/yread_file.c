#include "io/yread_file.h"

#include "atoll/error.h"

int atoll_yread_file_map(atoll_arena *a, const char *path, atoll_diag *d, atoll_yread *r, size_t size, void **obj,
                         const atoll_ynode **root, const char *what, const char *const *keys, uint32_t nkeys,
                         const atoll_ynode **vals) {
  atoll_source *src;
  atoll_ynode *tree;
  *obj = NULL;
  *root = NULL;
  int rc = atoll_ytree_load_file(a, path, &src, &tree, d);
  if (rc)
    return rc;
  if (!tree) { /* an empty file has no node to point at: its first line, named */
    atoll_diag_set(d, src, 1, 1, NULL, "empty %s file", what);
    return ATOLL_EPARSE;
  }
  *root = tree;
  atoll_yread_init(r, a, d);
  /* Allocated before the keys are read, so that an allocation failure is the error reported even
   * where the mapping is wrong too, as the loaders always did. */
  if (!(*obj = atoll_arena_calloc(a, 1, size)))
    return atoll_yread_oom(r, tree);
  return atoll_yread_map(r, tree, what, keys, nkeys, vals);
}
