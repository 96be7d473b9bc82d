/* A set of compute units (AMD CUs or NVIDIA SMs): the CUs a stream or client may run blocks on.
 * Fixed-size and pointer-free, so a stream configuration stays a plain value; 256 CUs cover current
 * GPUs (MI50: 60, A100: 108, H100/H200: 132, MI300X: 304 would not: see ATOLL_CUSET_MAX). The
 * empty set means "no binding": every CU of the GPU. docs/partitions.md. */
#ifndef ATOLL_CUSET_H
#define ATOLL_CUSET_H

#include <stdbool.h>
#include <stdint.h>

enum { ATOLL_CUSET_MAX = 256, ATOLL_CUSET_WORDS = ATOLL_CUSET_MAX / 64 };

typedef struct atoll_cuset {
  uint64_t w[ATOLL_CUSET_WORDS]; /* bit i of word i / 64: CU i */
} atoll_cuset;

bool atoll_cuset_is_empty(const atoll_cuset *s);
bool atoll_cuset_has(const atoll_cuset *s, uint32_t cu);
bool atoll_cuset_equal(const atoll_cuset *a, const atoll_cuset *b);
bool atoll_cuset_intersects(const atoll_cuset *a, const atoll_cuset *b);
uint32_t atoll_cuset_count(const atoll_cuset *s);
/* Adds CUs lo..hi (both included). ATOLL_EINVAL when lo > hi or hi >= ATOLL_CUSET_MAX. */
int atoll_cuset_add_range(atoll_cuset *s, uint32_t lo, uint32_t hi);
/* The highest CU in the set plus one (0 for the empty set). */
uint32_t atoll_cuset_end(const atoll_cuset *s);
/* The number of maximal runs of consecutive CUs; *lo and *hi get the first run as [lo, hi). */
uint32_t atoll_cuset_runs(const atoll_cuset *s, uint32_t *lo, uint32_t *hi);
/* The CUs a GPU% share maps onto on a GPU of `cus` CUs: floor(percent x cus / 100) CUs (at least
 * one), starting at CU `first`. *next gets the CU after the last. ATOLL_EINVAL when percent is not
 * in 1..100 or the CUs run past the GPU's. */
int atoll_cuset_from_share(uint32_t cus, uint32_t first, uint32_t percent, atoll_cuset *out, uint32_t *next);

#endif
