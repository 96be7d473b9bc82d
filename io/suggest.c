#include "io/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

enum { MAX_LEN = 63, FAR = 1000 };

uint32_t atoll_edit_distance(const char *a, const char *b) {
  size_t n = strlen(a), m = strlen(b);
  if (n > MAX_LEN || m > MAX_LEN)
    return FAR;
  /* Three rows suffice: the swap of adjacent characters looks two rows back. */
  uint32_t rows[3][MAX_LEN + 1];
  uint32_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= m; j++)
    prev[j] = (uint32_t)j;
  for (size_t i = 1; i <= n; i++) {
    cur[0] = (uint32_t)i;
    for (size_t j = 1; j <= m; j++) {
      int ai = tolower((unsigned char)a[i - 1]), bj = tolower((unsigned char)b[j - 1]);
      uint32_t best = prev[j - 1] + (ai != bj);
      if (prev[j] + 1 < best)
        best = prev[j] + 1;
      if (cur[j - 1] + 1 < best)
        best = cur[j - 1] + 1;
      if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) && tolower((unsigned char)a[i - 2]) == bj &&
          prev2[j - 2] + 1 < best)
        best = prev2[j - 2] + 1;
      cur[j] = best;
    }
    uint32_t *t = prev2;
    prev2 = prev;
    prev = cur;
    cur = t;
  }
  return prev[m];
}

/* The one candidate that is word with a unit suffix ("duration" -> "duration_ms", "rate" ->
 * "rate_hz"), or NULL: none, or several (a word with two units to choose from is left open).
 * Edit distance misses these: the suffix is 3 or 4 edits, past the limit of a short word. */
static const char *unit_completion(const char *word, size_t len, const char *const *candidates, uint32_t n) {
  const char *found = NULL;
  if (len == 0)
    return NULL;
  for (uint32_t i = 0; i < n; i++) {
    const char *c = candidates[i];
    if (!c || strncmp(c, word, len) != 0 || c[len] != '_')
      continue;
    /* A unit is a short run of letters: "ms", "us", "hz", "mb", not "per_core" or "timeout". */
    size_t u = 0;
    while (isalpha((unsigned char)c[len + 1 + u]))
      u++;
    if (u == 0 || u > 3 || c[len + 1 + u] != '\0')
      continue;
    if (found)
      return NULL;
    found = c;
  }
  return found;
}

const char *atoll_suggest(const char *word, const char *const *candidates, uint32_t n) {
  size_t len = strlen(word);
  uint32_t limit = len <= 4 ? 1 : len <= 8 ? 2 : 3;
  const char *best = NULL;
  uint32_t best_d = limit + 1;
  for (uint32_t i = 0; i < n; i++) {
    if (!candidates[i])
      continue;
    uint32_t d = atoll_edit_distance(word, candidates[i]);
    if (d < best_d) {
      best_d = d;
      best = candidates[i];
    }
  }
  return best ? best : unit_completion(word, len, candidates, n);
}

const char *atoll_suggest_text(char *buf, size_t size, const char *word, const char *const *candidates, uint32_t n) {
  const char *s = atoll_suggest(word, candidates, n);
  if (s)
    snprintf(buf, size, "; did you mean '%s'?", s);
  else if (size)
    buf[0] = '\0';
  return buf;
}
