/* GPU preset writer (gpu_write.h). Key order and alignment follow the shipped presets, so a
 * measured preset reads like a hand-written one. */
#include "io/gpu_write.h"

#include "atoll/error.h"
#include "io/model_write.h"
#include "io/yquote.h"

static void us(FILE *f, const char *key, int64_t ns, const char *note) {
  char buf[32];
  fprintf(f, "  %-20s %s", key, atoll_format_us(ns, buf, sizeof buf));
  if (note)
    fprintf(f, "  # %s", note);
  fputc('\n', f);
}

int atoll_gpu_write_yaml(FILE *out, const atoll_gpu *g, const char *header_comment, const char *const *notes) {
  atoll_write_comment_lines(out, header_comment);
  /* Quoted where a plain scalar would not read back as the same string ("null", "-x", "8xA100"). */
  fputs("atoll_gpu: 1\nname: ", out);
  atoll_yaml_write_str(out, g->name);
  fputs("\nvendor: ", out);
  atoll_yaml_write_str(out, g->vendor);
  fputc('\n', out);
  fprintf(out, "cus: %u\nmax_blocks_per_cu: %u\nmax_threads_per_cu: %u\nregisters_per_cu: %u\n", g->cus,
          g->max_blocks_per_cu, g->max_threads_per_cu, g->registers_per_cu);
  fprintf(out, "shared_bytes_per_cu: %u\ndq_capacity: %u\ncopy_engines: %u\ncosts:\n", g->shared_bytes_per_cu,
          g->dq_capacity, g->copy_engines);
  const atoll_gpu_costs *c = &g->costs;
  const char *const *n = notes;
  us(out, "hq_transmit_us:", c->hq_transmit_ns, n ? n[0] : NULL);
  us(out, "cp_dispatch_us:", c->cp_dispatch_ns, n ? n[1] : NULL);
  us(out, "stream_switch_us:", c->stream_switch_ns, n ? n[2] : NULL);
  us(out, "launch_sync_us:", c->launch_sync_ns, n ? n[3] : NULL);
  us(out, "cu_reset_us:", c->cu_reset_ns, n ? n[4] : NULL);
  us(out, "hq_reset_per_cmd_us:", c->hq_reset_per_cmd_ns, n ? n[5] : NULL);
  us(out, "hq_reset_async_us:", c->hq_reset_async_ns, n ? n[6] : NULL);
  us(out, "evicted_kernel_us:", c->evicted_kernel_ns, n ? n[7] : NULL);
  us(out, "dq_reset_us:", c->dq_reset_ns, n ? n[8] : NULL);
  us(out, "kernel_select_us:", c->kernel_select_ns, n ? n[9] : NULL);
  us(out, "copy_latency_us:", c->copy_latency_ns, n ? n[10] : NULL);
  fprintf(out, "  %-20s %llu", "copy_bytes_per_us:", (unsigned long long)c->copy_bytes_per_us);
  if (n && n[11])
    fprintf(out, "  # %s", n[11]);
  fprintf(out, "\n  %-20s %u", "dkp_overhead_ppm:", c->dkp_overhead_ppm);
  if (n && n[12])
    fprintf(out, "  # %s", n[12]);
  fputc('\n', out);
  return ferror(out) ? ATOLL_EIO : 0;
}
