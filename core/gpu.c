/* GPU description invariants. */
#include "atoll/gpu.h"

bool atoll_gpu_is_valid(const atoll_gpu *g) {
  if (!g || !g->name || !g->vendor)
    return false;
  /* At most 65535 CUs: with a kernel's occupancy also below 65536, a round of blocks on the whole
   * GPU counts below 2^32 (core/dkp.c's arithmetic relies on it; real GPUs have a few hundred). */
  if (g->cus == 0 || g->cus > 65535 || g->max_blocks_per_cu == 0 || g->max_threads_per_cu == 0 || g->registers_per_cu == 0 ||
      g->dq_capacity == 0 || g->copy_engines == 0)
    return false;
  const atoll_gpu_costs *c = &g->costs;
  if (c->hq_transmit_ns < 0 || c->cp_dispatch_ns < 0 || c->stream_switch_ns < 0 || c->launch_sync_ns < 0 ||
      c->cu_reset_ns < 0 || c->hq_reset_per_cmd_ns < 0 || c->hq_reset_async_ns < 0 || c->evicted_kernel_ns < 0 ||
      c->dq_reset_ns < 0 ||
      c->kernel_select_ns < 0 || c->copy_latency_ns < 0)
    return false;
  return c->copy_bytes_per_us > 0 && c->dkp_overhead_ppm < 1000000;
}
