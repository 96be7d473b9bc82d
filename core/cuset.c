/* CU sets (include/atoll/cuset.h): a 256-bit bitmap. */
#include "atoll/cuset.h"

#include "atoll/error.h"

bool atoll_cuset_is_empty(const atoll_cuset *s) {
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    if (s->w[i])
      return false;
  return true;
}

bool atoll_cuset_has(const atoll_cuset *s, uint32_t cu) {
  return cu < ATOLL_CUSET_MAX && ((s->w[cu / 64] >> (cu % 64)) & 1u);
}

bool atoll_cuset_equal(const atoll_cuset *a, const atoll_cuset *b) {
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    if (a->w[i] != b->w[i])
      return false;
  return true;
}

bool atoll_cuset_intersects(const atoll_cuset *a, const atoll_cuset *b) {
  for (uint32_t i = 0; i < ATOLL_CUSET_WORDS; i++)
    if (a->w[i] & b->w[i])
      return true;
  return false;
}

uint32_t atoll_cuset_count(const atoll_cuset *s) {
  uint32_t n = 0;
  for (uint32_t cu = 0; cu < ATOLL_CUSET_MAX; cu++)
    n += atoll_cuset_has(s, cu);
  return n;
}

int atoll_cuset_add_range(atoll_cuset *s, uint32_t lo, uint32_t hi) {
  if (lo > hi || hi >= ATOLL_CUSET_MAX)
    return ATOLL_EINVAL;
  for (uint32_t cu = lo; cu <= hi; cu++)
    s->w[cu / 64] |= (uint64_t)1 << (cu % 64);
  return 0;
}

uint32_t atoll_cuset_end(const atoll_cuset *s) {
  for (uint32_t cu = ATOLL_CUSET_MAX; cu > 0; cu--)
    if (atoll_cuset_has(s, cu - 1))
      return cu;
  return 0;
}

uint32_t atoll_cuset_runs(const atoll_cuset *s, uint32_t *lo, uint32_t *hi) {
  uint32_t runs = 0;
  *lo = *hi = 0;
  for (uint32_t cu = 0; cu < ATOLL_CUSET_MAX; cu++) {
    if (!atoll_cuset_has(s, cu) || (cu > 0 && atoll_cuset_has(s, cu - 1)))
      continue;
    uint32_t end = cu;
    while (end < ATOLL_CUSET_MAX && atoll_cuset_has(s, end))
      end++;
    if (runs++ == 0)
      *lo = cu, *hi = end;
  }
  return runs;
}

int atoll_cuset_from_share(uint32_t cus, uint32_t first, uint32_t percent, atoll_cuset *out, uint32_t *next) {
  if (percent < 1 || percent > 100 || cus == 0 || cus > ATOLL_CUSET_MAX)
    return ATOLL_EINVAL;
  uint32_t n = (uint32_t)((uint64_t)percent * cus / 100);
  if (n == 0)
    n = 1;
  if (first >= cus || n > cus - first)
    return ATOLL_EINVAL;
  *out = (atoll_cuset){{0}};
  *next = first + n;
  return atoll_cuset_add_range(out, first, first + n - 1);
}
