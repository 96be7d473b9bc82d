/* gpu_write_checked.c — a preset is written only once its text loads back as the same device
 * (gpu_write_checked.h says why). */
#include "io/gpu_write_checked.h"

#include <inttypes.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/arena.h"
#include "io/gpu_write.h"
#include "io/load.h"
#include "io/model_write.h"
#include "io/write_checked.h"

static bool text_differs(const char *key, const char *a, const char *b, char *buf, size_t size) {
  if (a == b || (a && b && strcmp(a, b) == 0))
    return false;
  snprintf(buf, size, "%s '%s', read back '%s'", key, atoll__shown(a), atoll__shown(b));
  return true;
}

static bool count_differs(const char *key, uint64_t a, uint64_t b, char *buf, size_t size) {
  if (a == b)
    return false;
  snprintf(buf, size, "%s %" PRIu64 ", read back %" PRIu64, key, a, b);
  return true;
}

static bool time_differs(const char *key, int64_t a, int64_t b, char *buf, size_t size) {
  if (a == b)
    return false;
  char x[32], y[32];
  snprintf(buf, size, "costs.%s %s us, read back %s us", key, atoll_format_us(a, x, sizeof x),
           atoll_format_us(b, y, sizeof y));
  return true;
}

bool atoll_gpu_first_difference(const atoll_gpu *a, const atoll_gpu *b, char *buf, size_t size) {
  const atoll_gpu_costs *x = &a->costs, *y = &b->costs;
  /* In the order the writer writes them, so the first difference is the first line that differs. */
  return text_differs("name", a->name, b->name, buf, size) ||
         text_differs("vendor", a->vendor, b->vendor, buf, size) ||
         count_differs("cus", a->cus, b->cus, buf, size) ||
         count_differs("max_blocks_per_cu", a->max_blocks_per_cu, b->max_blocks_per_cu, buf, size) ||
         count_differs("max_threads_per_cu", a->max_threads_per_cu, b->max_threads_per_cu, buf, size) ||
         count_differs("registers_per_cu", a->registers_per_cu, b->registers_per_cu, buf, size) ||
         count_differs("shared_bytes_per_cu", a->shared_bytes_per_cu, b->shared_bytes_per_cu, buf, size) ||
         count_differs("dq_capacity", a->dq_capacity, b->dq_capacity, buf, size) ||
         count_differs("copy_engines", a->copy_engines, b->copy_engines, buf, size) ||
         time_differs("hq_transmit_us", x->hq_transmit_ns, y->hq_transmit_ns, buf, size) ||
         time_differs("cp_dispatch_us", x->cp_dispatch_ns, y->cp_dispatch_ns, buf, size) ||
         time_differs("stream_switch_us", x->stream_switch_ns, y->stream_switch_ns, buf, size) ||
         time_differs("launch_sync_us", x->launch_sync_ns, y->launch_sync_ns, buf, size) ||
         time_differs("cu_reset_us", x->cu_reset_ns, y->cu_reset_ns, buf, size) ||
         time_differs("hq_reset_per_cmd_us", x->hq_reset_per_cmd_ns, y->hq_reset_per_cmd_ns, buf, size) ||
         time_differs("hq_reset_async_us", x->hq_reset_async_ns, y->hq_reset_async_ns, buf, size) ||
         time_differs("evicted_kernel_us", x->evicted_kernel_ns, y->evicted_kernel_ns, buf, size) ||
         time_differs("dq_reset_us", x->dq_reset_ns, y->dq_reset_ns, buf, size) ||
         time_differs("kernel_select_us", x->kernel_select_ns, y->kernel_select_ns, buf, size) ||
         time_differs("copy_latency_us", x->copy_latency_ns, y->copy_latency_ns, buf, size) ||
         count_differs("costs.copy_bytes_per_us", x->copy_bytes_per_us, y->copy_bytes_per_us, buf, size) ||
         count_differs("costs.dkp_overhead_ppm", x->dkp_overhead_ppm, y->dkp_overhead_ppm, buf, size);
}

/* The preset and its comments, for the callbacks of atoll__write_checked. */
typedef struct gpu_job {
  const atoll_gpu *g;
  const char *header_comment;
  const char *const *notes;
} gpu_job;

static int write_gpu(FILE *out, const void *obj) {
  const gpu_job *j = obj;
  return atoll_gpu_write_yaml(out, j->g, j->header_comment, j->notes);
}

static int check_gpu(const atoll_source *src, const void *obj, atoll_diag *d, char *diff, size_t size) {
  const gpu_job *j = obj;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu back;
  int rc = atoll_gpu_load_source(&a, src, &back, d);
  if (rc == 0 && atoll_gpu_first_difference(j->g, &back, diff, size))
    rc = ATOLL_EINVAL;
  atoll_arena_free(&a);
  return rc;
}

int atoll_gpu_write_checked(FILE *out, const atoll_gpu *g, const char *header_comment, const char *const *notes,
                            atoll_diag *d) {
  const gpu_job job = {.g = g, .header_comment = header_comment, .notes = notes};
  char subject[ATOLL_MAX_NAME_BYTES + 32];
  snprintf(subject, sizeof subject, "preset of device '%s'", atoll__shown(g->name));
  const atoll__checked_write w = {.subject = subject,
                                  .what = "the device",
                                  .made_from = "the device measured",
                                  .report = "the command",
                                  .obj = &job,
                                  .write = write_gpu,
                                  .check = check_gpu};
  return atoll__write_checked(out, &w, d);
}
