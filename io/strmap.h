/* A map from strings to uint32_t values (open addressing, FNV-1a), for the loaders' name lookups
 * and duplicate checks: linear scans over every earlier name make a file with many names take
 * quadratic time, which an input must not be able to force.
 *
 * Keys are not copied: each must outlive the map (they live in the loaders' arenas). */
#ifndef ATOLL_IO_STRMAP_H
#define ATOLL_IO_STRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct atoll_strmap_slot {
  const char *key; /* NULL: empty */
  size_t len;
  uint32_t value;
} atoll_strmap_slot;

typedef struct atoll_strmap {
  atoll_strmap_slot *slots;
  uint32_t cap, n; /* cap is 0 or a power of two */
} atoll_strmap;

void atoll_strmap_init(atoll_strmap *m);
void atoll_strmap_free(atoll_strmap *m);
/* Adds key -> value unless key is present. Returns 0 when added, 1 when key was already there
 * (its value in *existing, which may be NULL; the map is unchanged), ATOLL_ENOMEM. */
int atoll_strmap_add(atoll_strmap *m, const char *key, size_t len, uint32_t value, uint32_t *existing);
/* Whether key is present; its value in *value (may be NULL). */
bool atoll_strmap_get(const atoll_strmap *m, const char *key, size_t len, uint32_t *value);

#endif
