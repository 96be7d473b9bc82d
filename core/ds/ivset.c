/* Interval set over caller-provided storage; see ivset.h for the design. */
#include "ds/ivset.h"

#include "atoll/error.h"

#include <stddef.h>

/* The O(1) part of atoll_ivset_is_valid(): enough for every access to stay in bounds. */
static bool shape_ok(const struct atoll_ivset *s) {
  return s != NULL && s->iv != NULL && s->cap != 0 && s->count <= s->cap;
}

/* Index of the first range with hi >= x, or count: the first range that overlaps or touches a
 * range starting at x. Binary search, valid because the hi values increase strictly. */
static uint32_t first_reaching(const struct atoll_ivset *s, uint64_t x) {
  uint32_t lo = 0;
  uint32_t hi = s->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (s->iv[mid].hi < x)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

/* Index of the first range with hi > x, or count: the first range that could hold byte x or
 * anything after it. */
static uint32_t first_ending_after(const struct atoll_ivset *s, uint64_t x) {
  uint32_t lo = 0;
  uint32_t hi = s->count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2u;
    if (s->iv[mid].hi <= x)
      lo = mid + 1u;
    else
      hi = mid;
  }
  return lo;
}

/* Moves iv[from..count) to start at index `to`, copying in the direction that never overwrites
 * a range before it is moved. Requires count - from + to <= cap. */
static void move_tail(struct atoll_ivset *s, uint32_t from, uint32_t to) {
  if (to < from) {
    for (uint32_t i = from; i < s->count; i++)
      s->iv[to + (i - from)] = s->iv[i];
  } else if (to > from) {
    for (uint32_t i = s->count; i > from; i--)
      s->iv[to + (i - 1u - from)] = s->iv[i - 1u];
  }
}

/* Replaces the ranges iv[a..b) with pieces[0..k), which the caller has computed to keep the set
 * canonical. Fails with ATOLL_EFULL, before writing anything, when the set would grow past cap;
 * the test is written so that nothing can wrap around UINT32_MAX. */
static int replace_span(struct atoll_ivset *s, uint32_t a, uint32_t b,
                        const struct atoll_interval *pieces, uint32_t k) {
  uint32_t removed = b - a;
  if (k > removed && s->cap - s->count < k - removed)
    return ATOLL_EFULL;
  move_tail(s, b, a + k);
  s->count = s->count - removed + k;
  for (uint32_t i = 0; i < k; i++)
    s->iv[a + i] = pieces[i];
  return ATOLL_OK;
}

/* Appends [lo, hi) to a set being built in increasing order of lo, merging it into the last
 * range when they overlap or touch. Because later ranges never start before lo, a range that is
 * appended rather than merged is one the final result needs, so running out of room here means
 * the result truly needs more than cap ranges. Returns false when out of room. */
static bool append_merged(struct atoll_ivset *out, uint64_t lo, uint64_t hi) {
  if (out->count > 0 && out->iv[out->count - 1u].hi >= lo) {
    if (out->iv[out->count - 1u].hi < hi)
      out->iv[out->count - 1u].hi = hi;
    return true;
  }
  if (out->count == out->cap)
    return false;
  out->iv[out->count].lo = lo;
  out->iv[out->count].hi = hi;
  out->count++;
  return true;
}

/* The checks shared by intersect, union and subtract. Only equality of pointers is compared:
 * ordering pointers into different objects is undefined in ISO C. */
static int check_binary(const struct atoll_ivset *a, const struct atoll_ivset *b,
                        const struct atoll_ivset *out) {
  if (!atoll_ivset_is_valid(a) || !atoll_ivset_is_valid(b) || !shape_ok(out))
    return ATOLL_EINVAL;
  if (out == a || out == b || out->iv == a->iv || out->iv == b->iv)
    return ATOLL_EINVAL;
  return ATOLL_OK;
}

static int fail_full(struct atoll_ivset *out) {
  out->count = 0;
  return ATOLL_EFULL;
}

bool atoll_ivset_is_valid(const struct atoll_ivset *s) {
  if (!shape_ok(s))
    return false;
  for (uint32_t i = 0; i < s->count; i++) {
    if (s->iv[i].lo >= s->iv[i].hi)
      return false;
    if (i > 0 && s->iv[i - 1u].hi >= s->iv[i].lo)
      return false;
  }
  return true;
}

int atoll_ivset_init(struct atoll_ivset *s, struct atoll_interval *iv, uint32_t cap) {
  if (s == NULL || iv == NULL || cap == 0)
    return ATOLL_EINVAL;
  s->iv = iv;
  s->cap = cap;
  s->count = 0;
  return ATOLL_OK;
}

uint32_t atoll_ivset_clear(struct atoll_ivset *s) {
  if (!shape_ok(s))
    return 0;
  uint32_t dropped = s->count;
  s->count = 0;
  return dropped;
}

int atoll_ivset_insert(struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!atoll_ivset_is_valid(s) || lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  /* iv[a..b) are the ranges that overlap or touch [lo, hi); they become one range. */
  uint32_t a = first_reaching(s, lo);
  uint32_t b = a;
  while (b < s->count && s->iv[b].lo <= hi)
    b++;
  struct atoll_interval merged = {lo, hi};
  if (b > a) {
    if (s->iv[a].lo < merged.lo)
      merged.lo = s->iv[a].lo;
    if (s->iv[b - 1u].hi > merged.hi)
      merged.hi = s->iv[b - 1u].hi;
  }
  return replace_span(s, a, b, &merged, 1);
}

int atoll_ivset_remove(struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!atoll_ivset_is_valid(s) || lo > hi)
    return ATOLL_EINVAL;
  if (lo == hi)
    return ATOLL_OK;
  /* iv[a..b) are the ranges that share a byte with [lo, hi); what survives of them is at most
   * a left piece of the first and a right piece of the last. */
  uint32_t a = first_ending_after(s, lo);
  uint32_t b = a;
  while (b < s->count && s->iv[b].lo < hi)
    b++;
  if (a == b)
    return ATOLL_OK;
  struct atoll_interval pieces[2];
  uint32_t k = 0;
  if (s->iv[a].lo < lo) {
    pieces[k].lo = s->iv[a].lo;
    pieces[k].hi = lo;
    k++;
  }
  if (s->iv[b - 1u].hi > hi) {
    pieces[k].lo = hi;
    pieces[k].hi = s->iv[b - 1u].hi;
    k++;
  }
  return replace_span(s, a, b, pieces, k);
}

bool atoll_ivset_contains(const struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!shape_ok(s) || lo > hi)
    return false;
  if (lo == hi)
    return true;
  /* Touching ranges are merged, so a covered range lies inside a single stored range. */
  uint32_t a = first_ending_after(s, lo);
  return a < s->count && s->iv[a].lo <= lo && hi <= s->iv[a].hi;
}

bool atoll_ivset_overlaps(const struct atoll_ivset *s, uint64_t lo, uint64_t hi) {
  if (!shape_ok(s) || lo >= hi)
    return false;
  uint32_t a = first_ending_after(s, lo);
  return a < s->count && s->iv[a].lo < hi;
}

bool atoll_ivset_intersects(const struct atoll_ivset *a, const struct atoll_ivset *b) {
  if (!shape_ok(a) || !shape_ok(b))
    return false;
  uint32_t i = 0;
  uint32_t j = 0;
  /* Advance whichever range ends first: it cannot meet any later range of the other set. */
  while (i < a->count && j < b->count) {
    if (a->iv[i].lo < b->iv[j].hi && b->iv[j].lo < a->iv[i].hi)
      return true;
    if (a->iv[i].hi <= b->iv[j].hi)
      i++;
    else
      j++;
  }
  return false;
}

int atoll_ivset_intersect(const struct atoll_ivset *a, const struct atoll_ivset *b,
                          struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  out->count = 0;
  uint32_t i = 0;
  uint32_t j = 0;
  while (i < a->count && j < b->count) {
    uint64_t lo = a->iv[i].lo > b->iv[j].lo ? a->iv[i].lo : b->iv[j].lo;
    uint64_t hi = a->iv[i].hi < b->iv[j].hi ? a->iv[i].hi : b->iv[j].hi;
    if (lo < hi && !append_merged(out, lo, hi))
      return fail_full(out);
    if (a->iv[i].hi <= b->iv[j].hi)
      i++;
    else
      j++;
  }
  return ATOLL_OK;
}

int atoll_ivset_union(const struct atoll_ivset *a, const struct atoll_ivset *b,
                      struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  out->count = 0;
  uint32_t i = 0;
  uint32_t j = 0;
  /* Take ranges from both inputs in order of lo, as in the merge step of merge sort. */
  while (i < a->count || j < b->count) {
    const struct atoll_interval *next;
    if (j == b->count || (i < a->count && a->iv[i].lo <= b->iv[j].lo))
      next = &a->iv[i++];
    else
      next = &b->iv[j++];
    if (!append_merged(out, next->lo, next->hi))
      return fail_full(out);
  }
  return ATOLL_OK;
}

int atoll_ivset_subtract(const struct atoll_ivset *a, const struct atoll_ivset *b,
                         struct atoll_ivset *out) {
  int rc = check_binary(a, b, out);
  if (rc != ATOLL_OK)
    return rc;
  out->count = 0;
  uint32_t j = 0;
  for (uint32_t i = 0; i < a->count; i++) {
    /* cur..hi is what is left of a's range i to cut; b's ranges before it never matter again,
     * and a b range that reaches past hi may also cut a's next range, so j stays on it. */
    uint64_t cur = a->iv[i].lo;
    uint64_t hi = a->iv[i].hi;
    while (j < b->count && b->iv[j].hi <= cur)
      j++;
    while (j < b->count && b->iv[j].lo < hi && cur < hi) {
      if (b->iv[j].lo > cur && !append_merged(out, cur, b->iv[j].lo))
        return fail_full(out);
      if (b->iv[j].hi >= hi) {
        cur = hi;
      } else {
        cur = b->iv[j].hi;
        j++;
      }
    }
    if (cur < hi && !append_merged(out, cur, hi))
      return fail_full(out);
  }
  return ATOLL_OK;
}

uint64_t atoll_ivset_bytes(const struct atoll_ivset *s) {
  if (!shape_ok(s))
    return 0;
  uint64_t total = 0;
  for (uint32_t i = 0; i < s->count; i++)
    total += s->iv[i].hi - s->iv[i].lo;
  return total;
}
