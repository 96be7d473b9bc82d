#include "io/strmap.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

void atoll_strmap_init(atoll_strmap *m) { memset(m, 0, sizeof *m); }

void atoll_strmap_free(atoll_strmap *m) {
  free(m->slots);
  memset(m, 0, sizeof *m);
}

static uint64_t hash(const char *s, size_t len) {
  uint64_t h = 1469598103934665603u;
  for (size_t i = 0; i < len; i++)
    h = (h ^ (unsigned char)s[i]) * 1099511628211u;
  return h;
}

/* The slot holding key, or the empty slot where it would go. */
static atoll_strmap_slot *find(const atoll_strmap *m, const char *key, size_t len) {
  uint32_t mask = m->cap - 1;
  for (uint32_t i = (uint32_t)hash(key, len) & mask;; i = (i + 1) & mask) {
    atoll_strmap_slot *s = &m->slots[i];
    if (!s->key || (s->len == len && memcmp(s->key, key, len) == 0))
      return s;
  }
}

static int grow(atoll_strmap *m) {
  /* At most half full, so probes stay short and find() always reaches an empty slot. */
  uint32_t cap = m->cap ? m->cap * 2 : 16;
  if (cap == 0 || cap > UINT32_MAX / 2)
    return ATOLL_ENOMEM;
  atoll_strmap old = *m;
  m->slots = calloc(cap, sizeof *m->slots);
  if (!m->slots) {
    *m = old;
    return ATOLL_ENOMEM;
  }
  m->cap = cap;
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.slots[i].key)
      *find(m, old.slots[i].key, old.slots[i].len) = old.slots[i];
  free(old.slots);
  return 0;
}

int atoll_strmap_add(atoll_strmap *m, const char *key, size_t len, uint32_t value, uint32_t *existing) {
  if (m->cap) {
    atoll_strmap_slot *s = find(m, key, len);
    if (s->key) {
      if (existing)
        *existing = s->value;
      return 1;
    }
  }
  if ((m->n + 1) * 2 > m->cap) {
    int rc = grow(m);
    if (rc)
      return rc;
  }
  *find(m, key, len) = (atoll_strmap_slot){.key = key, .len = len, .value = value};
  m->n++;
  return 0;
}

bool atoll_strmap_get(const atoll_strmap *m, const char *key, size_t len, uint32_t *value) {
  if (!m->cap)
    return false;
  const atoll_strmap_slot *s = find(m, key, len);
  if (s->key && value)
    *value = s->value;
  return s->key != NULL;
}
