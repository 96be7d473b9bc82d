/* gpu_write_checked.c — a preset is written only once its text loads back as the same device
 * (gpu_write_checked.h says why). */
#define _POSIX_C_SOURCE 200809L /* open_memstream */
#include "io/gpu_write_checked.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/arena.h"
#include "io/gpu_write.h"
#include "io/load.h"
#include "io/model_write.h"

static const char *shown(const char *s) {
  return s ? s : "(none)";
}

static bool text_differs(const char *key, const char *a, const char *b, char *buf, size_t size) {
  if (a == b || (a && b && strcmp(a, b) == 0))
    return false;
  snprintf(buf, size, "%s '%s', read back '%s'", key, shown(a), shown(b));
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

int atoll_gpu_write_checked(FILE *out, const atoll_gpu *g, const char *header_comment, const char *const *notes,
                            atoll_diag *d) {
  char *text = NULL;
  size_t len = 0;
  FILE *mem = open_memstream(&text, &len);
  if (!mem) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "preset of device '%s': no memory to write it in", shown(g->name));
    return ATOLL_EIO;
  }
  const int wrc = atoll_gpu_write_yaml(mem, g, header_comment, notes);
  if (fclose(mem) != 0 || wrc != 0) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "preset of device '%s': could not be written in memory", shown(g->name));
    free(text);
    return ATOLL_EIO;
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag back_d;
  atoll_diag_clear(&back_d);
  const atoll_source src = {.name = "(the preset being written)", .text = text, .len = len};
  atoll_gpu back;
  char diff[1024] = "";
  int rc = atoll_gpu_load_source(&a, &src, &back, &back_d);
  if (rc != 0)
    snprintf(diff, sizeof diff, "it does not load (line %" PRIu32 ", column %" PRIu32 "%s%s: %s)", back_d.line,
             back_d.col, back_d.path[0] ? ", at " : "", back_d.path, back_d.msg);
  else if (atoll_gpu_first_difference(g, &back, diff, sizeof diff))
    rc = ATOLL_EINVAL;
  atoll_arena_free(&a);
  if (rc != 0) {
    atoll_diag_set(d, NULL, 0, 0, NULL,
                   "the preset of device '%s' does not read back as the device measured, so nothing was written: "
                   "%s (a bug in atoll: please report it with the command)",
                   shown(g->name), diff);
    free(text);
    return ATOLL_EINVAL;
  }
  rc = fwrite(text, 1, len, out) == len ? 0 : ATOLL_EIO;
  free(text);
  return rc;
}
