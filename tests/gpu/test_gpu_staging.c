/* The GPU back-end's staging ring (native/gpu/gpu_staging.h): FIFO allocation of a queue's pinned
 * bounce buffer, released oldest first as launches complete in order. */
#include "tests/atoll_test.h"

#include <string.h>

#include "native/gpu/gpu_staging.h"

static void fills_then_wraps_to_the_start(void **state) {
  (void)state;
  gpu_staging s;
  gpu_staging_init(&s, 1024);
  size_t off[4], span[4];
  assert_int_equal(gpu_staging_alloc(&s, 300, &off[0], &span[0]), 0); /* 320 bytes at 0 */
  assert_int_equal(off[0], 0);
  assert_int_equal(span[0], 320);
  assert_int_equal(gpu_staging_alloc(&s, 400, &off[1], &span[1]), 0); /* 448 at 320 */
  assert_int_equal(off[1], 320);
  assert_int_equal(span[1], 448);
  /* 256 bytes remain at the end (768..1024): a 300-byte request does not fit there, nor at the
   * start while the first allocation lives. */
  assert_int_equal(gpu_staging_alloc(&s, 300, &off[2], &span[2]), ATOLL_EFULL);
  gpu_staging_release(&s, span[0]);
  /* Now [0, 320) is free: the request wraps, and its span covers the skipped tail. */
  assert_int_equal(gpu_staging_alloc(&s, 300, &off[2], &span[2]), 0);
  assert_int_equal(off[2], 0);
  assert_int_equal(span[2], 256 + 320);
  assert_int_equal(s.used, 448 + 576);
  assert_int_equal(gpu_staging_alloc(&s, 1, &off[3], &span[3]), ATOLL_EFULL); /* full */
  gpu_staging_release(&s, span[1]);
  gpu_staging_release(&s, span[2]);
  assert_int_equal(s.used, 0);
}

static void allocations_never_overlap(void **state) {
  (void)state;
  /* Random-sized allocations and in-order releases; every live allocation is checked against the
   * others through an ownership map of the buffer. */
  enum { CAP = 4096, LIVE_MAX = 64 };
  gpu_staging s;
  gpu_staging_init(&s, CAP);
  int owner[CAP];
  for (int i = 0; i < CAP; i++)
    owner[i] = -1;
  size_t off[LIVE_MAX], span[LIVE_MAX], bytes[LIVE_MAX];
  int id[LIVE_MAX];
  unsigned head = 0, count = 0, next_id = 0;
  uint32_t rng = 12345;
  for (int step = 0; step < 20000; step++) {
    rng = rng * 1103515245u + 12345u;
    const size_t want = 1 + (rng >> 8) % 900;
    unsigned slot = (head + count) % LIVE_MAX;
    int rc = count < LIVE_MAX ? gpu_staging_alloc(&s, want, &off[slot], &span[slot]) : ATOLL_EFULL;
    if (rc == 0) {
      assert_cmp(off[slot] + want, <=, CAP);
      for (size_t b = off[slot]; b < off[slot] + want; b++) {
        assert_int_equal(owner[b], -1);
        owner[b] = (int)next_id;
      }
      bytes[slot] = want;
      id[slot] = (int)next_id++;
      count++;
    } else {
      assert_int_equal(rc, ATOLL_EFULL);
      assert_cmp(count, >, 0); /* an empty ring fits any request up to its size */
      for (size_t b = off[head]; b < off[head] + bytes[head]; b++) {
        assert_int_equal(owner[b], id[head]);
        owner[b] = -1;
      }
      gpu_staging_release(&s, span[head]);
      head = (head + 1) % LIVE_MAX;
      count--;
    }
  }
}

static void too_large_and_undo(void **state) {
  (void)state;
  gpu_staging s;
  gpu_staging_init(&s, 1000); /* rounded down to 960 */
  assert_int_equal(s.cap, 960);
  size_t off, span;
  assert_int_equal(gpu_staging_alloc(&s, 961, &off, &span), ATOLL_ERANGE);
  assert_int_equal(gpu_staging_alloc(&s, 960, &off, &span), 0);
  assert_int_equal(span, 960);
  gpu_staging_undo_newest(&s, span);
  assert_int_equal(s.used, 0);
  assert_int_equal(gpu_staging_alloc(&s, 0, &off, &span), 0); /* a zero-byte copy still gets a slot */
  assert_int_equal(span, GPU_STAGING_ALIGN);
}

int main(int argc, char **argv) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(fills_then_wraps_to_the_start),
      cmocka_unit_test(allocations_never_overlap),
      cmocka_unit_test(too_large_and_undo),
  };
  return ATOLL_TEST_RUN(tests, argc, argv);
}
