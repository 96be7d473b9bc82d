/* GPU preset writer and its read-back check (io/gpu_write.c, io/gpu_write_checked.c): what
 * `atoll native --profile` keeps of a measured device. */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/atoll_test.h"
#include "atoll/error.h"
#include "io/arena.h"
#include "io/gpu_write.h"
#include "io/gpu_write_checked.h"
#include "io/load.h"

/* A device as native --profile measures it: odd nanosecond costs, vendor cpu, no optional keys. */
static atoll_gpu measured(void) {
  atoll_gpu g = {.name = "cpu-2",
                 .vendor = "cpu",
                 .cus = 2,
                 .max_blocks_per_cu = 3,
                 .max_threads_per_cu = 3072,
                 .registers_per_cu = 65536,
                 .shared_bytes_per_cu = 65536,
                 .dq_capacity = 1024,
                 .copy_engines = 1};
  g.costs = (atoll_gpu_costs){.hq_transmit_ns = 1234567,
                              .cp_dispatch_ns = 4201,
                              .stream_switch_ns = 0,
                              .launch_sync_ns = 1,
                              .cu_reset_ns = 999,
                              .hq_reset_per_cmd_ns = 70,
                              .hq_reset_async_ns = 12000,
                              .evicted_kernel_ns = 350,
                              .dq_reset_ns = 0,
                              .kernel_select_ns = 830,
                              .copy_latency_ns = 9100,
                              .copy_bytes_per_us = 12954,
                              .dkp_overhead_ppm = 0};
  return g;
}

/* Runs the checked writer into memory; returns what reached the stream (caller frees). */
static char *write_checked(const atoll_gpu *g, const char *const *notes, int *rc, atoll_diag *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  assert_non_null(mem);
  atoll_diag_clear(d);
  *rc = atoll_gpu_write_checked(mem, g, "measured\nby a test", notes, d);
  assert_int_equal(fclose(mem), 0);
  return text;
}

static void measured_device_reads_back(void **state) {
  (void)state;
  const atoll_gpu g = measured();
  const char *notes[ATOLL_GPU_WRITTEN_COSTS] = {NULL};
  notes[1] = "measured: per kernel";
  notes[11] = "measured: a 4 MiB copy";
  int rc;
  atoll_diag d;
  char *text = write_checked(&g, notes, &rc, &d);
  assert_int_equal(rc, 0);
  assert_false(d.set);
  /* What was written is the plain writer's text, and loads as the device. */
  assert_non_null(strstr(text, "# measured\n# by a test\natoll_gpu: 1\nname: cpu-2\nvendor: cpu\n"));
  assert_non_null(strstr(text, "  cp_dispatch_us:      4.201  # measured: per kernel\n"));
  assert_non_null(strstr(text, "  hq_transmit_us:      1234.567\n"));
  assert_non_null(strstr(text, "  copy_bytes_per_us:   12954  # measured: a 4 MiB copy\n"));
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_source src = {.name = "t.yaml", .text = text, .len = strlen(text)};
  atoll_gpu back;
  atoll_diag ld;
  atoll_diag_clear(&ld);
  assert_int_equal(atoll_gpu_load_source(&a, &src, &back, &ld), 0);
  char diff[256];
  assert_false(atoll_gpu_first_difference(&g, &back, diff, sizeof diff));
  /* The keys it does not write take the loader's defaults. */
  assert_int_equal(back.partition_load_ns, ATOLL_PARTITION_LOAD_NS_DEFAULT);
  assert_int_equal(back.costs.host_launch_ns, 0);
  atoll_arena_free(&a);
  free(text);
}

/* Names the loader accepts but YAML would not read back from a plain scalar are quoted. */
static void yaml_words_are_quoted(void **state) {
  (void)state;
  static const char *const names[] = {"null", "yes", "-x", "8xA100", "1e3", ".5"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    atoll_gpu g = measured();
    g.name = names[i];
    int rc;
    atoll_diag d;
    char *text = write_checked(&g, NULL, &rc, &d);
    assert_int_equal(rc, 0);
    char want[64];
    snprintf(want, sizeof want, "\nname: \"%s\"\n", names[i]);
    assert_non_null(strstr(text, want));
    free(text);
  }
}

static void unloadable_preset_is_not_written(void **state) {
  (void)state;
  atoll_gpu g = measured();
  g.name = "my gpu"; /* a space: the loader takes letters, digits, '_', '-' and '.' only */
  int rc;
  atoll_diag d;
  char *text = write_checked(&g, NULL, &rc, &d);
  assert_int_equal(rc, ATOLL_EINVAL);
  assert_string_equal(text, "");
  assert_true(d.set);
  assert_non_null(strstr(d.msg, "preset of device 'my gpu' does not read back"));
  assert_non_null(strstr(d.msg, "nothing was written"));
  assert_non_null(strstr(d.msg, "at name: 'my gpu' is not a valid name"));
  free(text);
  /* A cost the loader refuses (a negative time) is caught the same way, at its key. */
  g = measured();
  g.costs.cu_reset_ns = -5;
  text = write_checked(&g, NULL, &rc, &d);
  assert_int_equal(rc, ATOLL_EINVAL);
  assert_string_equal(text, "");
  assert_non_null(strstr(d.msg, "costs.cu_reset_us"));
  free(text);
}

static void first_difference_names_the_field(void **state) {
  (void)state;
  const atoll_gpu a = measured();
  atoll_gpu b = a;
  char diff[256] = "";
  assert_false(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
  b.costs.cp_dispatch_ns = 4200;
  assert_true(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
  assert_string_equal(diff, "costs.cp_dispatch_us 4.201 us, read back 4.2 us");
  b.cus = 4; /* an earlier line of the preset: reported first */
  assert_true(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
  assert_string_equal(diff, "cus 2, read back 4");
  b = a;
  b.vendor = "amd";
  assert_true(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
  assert_string_equal(diff, "vendor 'cpu', read back 'amd'");
  b = a;
  b.costs.dkp_overhead_ppm = 7;
  assert_true(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
  assert_string_equal(diff, "costs.dkp_overhead_ppm 0, read back 7");
  /* Fields the writer leaves out are not compared. */
  b = a;
  b.hw_queues = 8;
  b.partition_load_ns = 1;
  assert_false(atoll_gpu_first_difference(&a, &b, diff, sizeof diff));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(measured_device_reads_back),
    cmocka_unit_test(yaml_words_are_quoted),
    cmocka_unit_test(unloadable_preset_is_not_written),
    cmocka_unit_test(first_difference_names_the_field),
};
ATOLL_TEST_MAIN(tests)
