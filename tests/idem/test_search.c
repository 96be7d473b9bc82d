/* The group search on hand-made traces: REEF's Fig. 9, in-place ops, memset/memcpy completing a
 * group, partial and overlapping ranges, order within one op, not-restorable ops, long groups and
 * the top of the address space. Each case runs both the sweep and REEF's backward growth. */
#include "tests/idem/idem_test.h"

static void fig9_k3_restarts_at_k1(void **state) {
  (void)state;
  /* REEF journal Fig. 9: K3 reads C, E and writes E; (K1, K2, K3) is the minimal group. */
  static const char text[] = "kernel K0\nr 0x100 1\nr 0x101 1\nw 0x102 1\nw 0x103 1\n"
                             "kernel K1\nr 0x103 1\nw 0x104 1\n"
                             "kernel K2\nr 0x104 1\nw 0x105 1\n"
                             "kernel K3\nr 0x102 1\nr 0x104 1\nw 0x104 1\n";
  expect_entries(text, (const uint32_t[]){0, 1, 2, 1}, 4);
}

static void fig9_shipped_trace(void **state) {
  (void)state;
  idem_trace t;
  idem_trace_init(&t);
  atoll_diag d;
  atoll_diag_clear(&d);
  assert_rc(idem_read_path(IDEM_FMT_TEXT, ATOLL_SOURCE_DIR "/scenarios/idem/fig9.txt", &t, &d), ATOLL_OK);
  uint32_t e[4];
  assert_u64(t.n_ops, 4);
  assert_rc(idem_search(&t, e), ATOLL_OK);
  check_entries(e, (const uint32_t[]){0, 1, 2, 1}, 4, "fig9.txt");
  idem_trace_free(&t);
}

static void in_place_add_alone_is_not_restorable(void **state) {
  (void)state;
  /* x += 1 on a buffer nothing wrote before: every group reads x first and writes it. */
  expect_entries("kernel add_inplace\nr 0x1000 4096\nw 0x1000 4096\n", (const uint32_t[]){NONE}, 1);
}

static void in_place_add_after_its_producer(void **state) {
  (void)state;
  /* conv writes x, add_inplace updates it: restoring the add re-runs conv first. */
  expect_entries("kernel conv\nr 0x0 64\nw 0x1000 4096\nkernel add_inplace\nr 0x1000 4096\nw 0x1000 4096\n",
                 (const uint32_t[]){0, 0}, 2);
}

static void memset_completes_a_group(void **state) {
  (void)state;
  /* An accumulating kernel (reads then writes its output) after the memset that zeroes it. */
  expect_entries("kernel gemm_in\nr 0x0 64\nw 0x100 64\nmemset zero_acc\nw 0x1000 256\n"
                 "kernel accumulate\nr 0x100 64\nr 0x1000 256\nw 0x1000 256\n",
                 (const uint32_t[]){0, 1, 1}, 3);
}

static void memcpy_completes_a_group(void **state) {
  (void)state;
  expect_entries("memcpy upload\nw 0x1000 256\nkernel scale_inplace\nr 0x1000 256\nw 0x1000 256\n"
                 "memcpy download\nr 0x1000 256\n",
                 (const uint32_t[]){0, 0, 2}, 3);
}

static void partial_producer_leaves_bytes_unwritten(void **state) {
  (void)state;
  /* Only the first half was written before the in-place op: the second half is an input nobody
   * produced, so no group works. */
  expect_entries("kernel half\nw 0x1000 128\nkernel inplace\nr 0x1000 256\nw 0x1000 256\n",
                 (const uint32_t[]){0, NONE}, 2);
}

static void partial_producers_together_complete_it(void **state) {
  (void)state;
  /* Two producers cover the two halves: the group must reach back to the older one. */
  expect_entries("kernel lo\nw 0x1000 128\nkernel hi\nw 0x1080 128\nkernel inplace\nr 0x1000 256\nw 0x1000 256\n",
                 (const uint32_t[]){0, 1, 0}, 3);
}

static void in_place_on_a_slice_only(void **state) {
  (void)state;
  /* The op reads all of x but writes back only a slice: only that slice is clobbered. The
   * producer of the slice is op 1, while op 0 produced the rest. */
  expect_entries("kernel a\nw 0x1000 256\nkernel b\nw 0x1040 16\nkernel slice\nr 0x1000 256\nw 0x1040 16\n",
                 (const uint32_t[]){0, 1, 1}, 3);
}

static void overlapping_lines_in_one_op(void **state) {
  (void)state;
  /* r [0,10) then w [5,15): bytes 5..9 are read first and written: in place. */
  expect_entries("kernel k\nr 0x0 10\nw 0x5 10\n", (const uint32_t[]){NONE}, 1);
  /* w [5,15) then r [0,10): bytes 5..9 are written first; 0..4 are only read. */
  expect_entries("kernel k\nw 0x5 10\nr 0x0 10\n", (const uint32_t[]){0}, 1);
}

static void write_then_read_within_one_op(void **state) {
  (void)state;
  /* A scratch buffer the kernel fills and then reads back: its own output, not an input. */
  expect_entries("kernel scratch\nw 0x2000 64\nr 0x2000 64\nr 0x0 16\nw 0x3000 16\n", (const uint32_t[]){0}, 1);
}

static void read_then_write_is_read_first_whatever_follows(void **state) {
  (void)state;
  /* A later read or write of the same bytes in the op does not change the first access. */
  expect_entries("kernel k\nr 0x0 8\nw 0x0 8\nr 0x0 8\nw 0x0 8\n", (const uint32_t[]){NONE}, 1);
}

static void reader_between_writer_and_overwriter(void **state) {
  (void)state;
  /* op1 reads x, op2 overwrites x: op2 alone is idempotent, but a group starting at op1 would read
   * x and then clobber it. op3 is in place on y, produced by op0: its group must start at op0,
   * which also covers x (written first there). */
  expect_entries("kernel p\nw 0x100 8\nw 0x200 8\nkernel r\nr 0x100 8\nw 0x300 8\nkernel o\nw 0x100 8\n"
                 "kernel ip\nr 0x200 8\nw 0x200 8\n",
                 (const uint32_t[]){0, 1, 2, 0}, 4);
}

static void group_blocked_by_an_unproduced_input(void **state) {
  (void)state;
  /* y's producer is op0, but x is read at op1 without producer and overwritten at op2: the group
   * 0..3 reads x first and writes it, and every shorter group reads y first. */
  expect_entries("kernel p\nw 0x200 8\nkernel r\nr 0x100 8\nw 0x300 8\nkernel o\nw 0x100 8\n"
                 "kernel ip\nr 0x200 8\nw 0x200 8\n",
                 (const uint32_t[]){0, 1, 2, NONE}, 4);
}

static void later_ops_unaffected_by_a_not_restorable_one(void **state) {
  (void)state;
  expect_entries("kernel bad\nr 0x0 8\nw 0x0 8\nkernel next\nr 0x0 8\nw 0x100 8\nkernel again\nr 0x100 8\n"
                 "w 0x100 8\n",
                 (const uint32_t[]){NONE, 1, 1}, 3);
}

static void op_without_accesses_is_idempotent(void **state) {
  (void)state;
  expect_entries("kernel empty\nmemset nothing\nkernel k\nr 0x0 4\nw 0x10 4\n", (const uint32_t[]){0, 1, 2}, 3);
}

static void top_of_the_address_space(void **state) {
  (void)state;
  expect_entries("kernel p\nw 0xfffffffffffffff0 15\nkernel ip\nr 0xfffffffffffffff0 15\nw 0xfffffffffffffff0 15\n"
                 "kernel ip2\nr 0xffffffffffffffe0 31\nw 0xffffffffffffffe0 31\n",
                 (const uint32_t[]){0, 0, NONE}, 3);
}

static void long_group_reaches_far_back(void **state) {
  (void)state;
  /* op0 produces x; 2,000 ops read x and write their own outputs; the last updates x in place:
   * its group spans everything. */
  enum { N = 2000 };
  size_t cap = 64 + (size_t)N * 48;
  char *text = malloc(cap);
  assert_non_null(text);
  size_t len = (size_t)snprintf(text, cap, "kernel produce\nw 0x100000 4096\n");
  for (int k = 1; k < N - 1; k++)
    len += (size_t)snprintf(text + len, cap - len, "kernel k%d\nr 0x100000 4096\nw 0x%x 16\n", k, 0x200000 + 16 * k);
  snprintf(text + len, cap - len, "kernel update\nr 0x100000 4096\nw 0x100000 4096\n");
  uint32_t want[N];
  for (int k = 0; k < N; k++)
    want[k] = (uint32_t)k;
  want[N - 1] = 0;
  expect_entries(text, want, N);
  free(text);
}

static void bert_softmax_readwrite_view(void **state) {
  (void)state;
  /* bert's softmax kernels, whole-tensor view: kernel0 reads x and readwrites m (read first, then
   * write), kernel1 reads m and writes e, kernel2 reads e and readwrites m again. m has no
   * producer that writes it first, so neither is restorable; kernel1 is idempotent. */
  expect_entries("kernel producer\nw 0x1000 64\nkernel softmax0\nr 0x1000 64\nr 0x2000 32\nw 0x2000 32\n"
                 "kernel softmax1\nr 0x2000 32\nw 0x3000 64\nkernel softmax2\nr 0x3000 64\nr 0x2000 32\nw 0x2000 32\n",
                 (const uint32_t[]){0, NONE, 2, NONE}, 4);
}

static void badset_marks_and_finds(void **state) {
  (void)state;
  idem_badset b;
  assert_rc(idem_badset_init(&b), ATOLL_OK);
  for (int k = 0; k < 3000; k++)
    assert_rc(idem_badset_push(&b), ATOLL_OK);
  assert_u64(idem_badset_find(&b, 10), 10);
  idem_badset_mark(&b, 5, 10);
  assert_u64(idem_badset_find(&b, 10), 4);
  assert_u64(idem_badset_find(&b, 11), 11);
  idem_badset_mark(&b, 0, 4);
  assert_u64(idem_badset_find(&b, 10), NONE);
  idem_badset_mark(&b, 2999, 2999);
  assert_u64(idem_badset_find(&b, 2999), 2998);
  idem_badset_mark(&b, 100, 2998);
  assert_u64(idem_badset_find(&b, 2999), 99);
  idem_badset_free(&b);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(fig9_k3_restarts_at_k1),
    cmocka_unit_test(fig9_shipped_trace),
    cmocka_unit_test(in_place_add_alone_is_not_restorable),
    cmocka_unit_test(in_place_add_after_its_producer),
    cmocka_unit_test(memset_completes_a_group),
    cmocka_unit_test(memcpy_completes_a_group),
    cmocka_unit_test(partial_producer_leaves_bytes_unwritten),
    cmocka_unit_test(partial_producers_together_complete_it),
    cmocka_unit_test(in_place_on_a_slice_only),
    cmocka_unit_test(overlapping_lines_in_one_op),
    cmocka_unit_test(write_then_read_within_one_op),
    cmocka_unit_test(read_then_write_is_read_first_whatever_follows),
    cmocka_unit_test(reader_between_writer_and_overwriter),
    cmocka_unit_test(group_blocked_by_an_unproduced_input),
    cmocka_unit_test(later_ops_unaffected_by_a_not_restorable_one),
    cmocka_unit_test(op_without_accesses_is_idempotent),
    cmocka_unit_test(top_of_the_address_space),
    cmocka_unit_test(long_group_reaches_far_back),
    cmocka_unit_test(bert_softmax_readwrite_view),
    cmocka_unit_test(badset_marks_and_finds),
};
ATOLL_TEST_MAIN(tests)
