/* Kernel selection and pruning for dynamic kernel padding (see dkp.h). */
#include "dkp.h"

static uint32_t ceil_div32(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

const atoll_kernel_shape *atoll_dkp_shape(const atoll_op *op, uint32_t v) {
  return v == 0 ? &op->shape : &op->versions[v - 1];
}

uint32_t atoll_dkp_rt_cus(const atoll_gpu *g, const atoll_kernel_shape *rt) {
  /* The CUs the RT kernel spreads over when alone (the dispatcher deals blocks out one CU at a
   * time): reserving fewer would pack its blocks and slow it down. */
  uint64_t need = atoll_dim3_count(rt->grid);
  return need < g->cus ? (uint32_t)need : g->cus;
}

/* A kernel's run time on the GPU: its profiled (isolated) time less the launch overhead. */
static int64_t run_time(int64_t profiled, int64_t overhead_ns) {
  int64_t t = profiled - overhead_ns;
  return t > 1000 ? t : 1000;
}

/* One BE block's time when k blocks share each CU, as the kernel's per-occupancy list measured
 * it (the persistent-block form padding uses); without a list, its block time (k <= its
 * occupancy, at which sharing is assumed not to slow it). */
static int64_t block_time_at(const atoll_kernel_shape *s, uint32_t k, uint32_t cus, int64_t overhead_ns) {
  if (k >= 1 && k <= s->n_time_per_occupancy) {
    uint64_t blocks = atoll_dim3_count(s->grid), per_wave = (uint64_t)cus * k;
    return run_time(s->time_per_occupancy_ns[k - 1], overhead_ns) / (int64_t)((blocks + per_wave - 1) / per_wave);
  }
  return s->block_time_ns;
}

/* Rule 1 and Rule 2 for one version; on success, how many BE waves fit inside the RT kernel. */
static bool meets_rules(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_kernel_shape *be,
                        uint32_t *waves) {
  if (be->occupancy < rt->occupancy)
    return false;
  int64_t rt_ns = run_time(rt->time_ns, g->costs.launch_sync_ns);
  int64_t block_ns = block_time_at(be, rt->occupancy, g->cus, g->costs.launch_sync_ns);
  if (block_ns <= 0 || block_ns >= rt_ns)
    return false;
  *waves = (uint32_t)(rt_ns / block_ns);
  return *waves >= 1;
}

/* Among the versions a candidate may use, the one meeting both rules with the shortest kernel
 * time; false when none does. */
static bool best_version(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *c,
                         uint32_t *version, uint32_t *waves) {
  bool found = false;
  uint32_t first = c->version >= 0 ? (uint32_t)c->version : 0;
  uint32_t last = c->version >= 0 ? (uint32_t)c->version : c->op->n_versions;
  for (uint32_t v = first; v <= last; v++) {
    const atoll_kernel_shape *s = atoll_dkp_shape(c->op, v);
    uint32_t w;
    if (!meets_rules(g, rt, s, &w))
      continue;
    if (!found || s->time_ns < atoll_dkp_shape(c->op, *version)->time_ns) {
      *version = v;
      *waves = w;
      found = true;
    }
  }
  return found;
}

uint32_t atoll_dkp_select(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                          uint32_t n_cand, uint32_t start, atoll_dkp_choice *out, uint32_t max_out,
                          uint32_t *rt_cus) {
  *rt_cus = atoll_dkp_rt_cus(g, rt);
  uint32_t free_cus = g->cus - *rt_cus, n = 0;
  /* The padded launch runs at the minimum occupancy of its parts: Rule 2 makes it the RT's. */
  uint32_t occ = rt->occupancy;
  for (uint32_t i = 0; i < n_cand && free_cus > 0 && n < max_out; i++) {
    uint32_t k = (start + i) % n_cand;
    const atoll_dkp_candidate *c = &cand[k];
    uint32_t version = 0, waves = 0;
    if (c->blocks_left == 0 || c->op->kind != ATOLL_OP_KERNEL || !best_version(g, rt, c, &version, &waves))
      continue;
    uint64_t room = (uint64_t)free_cus * occ * waves;
    uint64_t left = c->blocks_left == ATOLL_DKP_ALL ? atoll_dim3_count(atoll_dkp_shape(c->op, version)->grid)
                                                    : c->blocks_left;
    uint32_t blocks = left < room ? (uint32_t)left : (uint32_t)room;
    uint32_t cus = ceil_div32(blocks, (uint64_t)occ * waves);
    out[n++] = (atoll_dkp_choice){.candidate = k, .version = version, .blocks = blocks, .occupancy = occ, .cus = cus};
    free_cus -= cus;
  }
  return n;
}

bool atoll_dkp_dominates(const atoll_kernel_shape *a, const atoll_kernel_shape *b) {
  uint64_t ta = atoll_dim3_count(a->block), tb = atoll_dim3_count(b->block);
  uint64_t na = atoll_dim3_count(a->grid), nb = atoll_dim3_count(b->grid);
  bool no_worse = a->time_ns <= b->time_ns && a->block_time_ns <= b->block_time_ns && a->registers <= b->registers &&
                  a->shared_bytes <= b->shared_bytes && ta <= tb && na <= nb;
  bool better = a->time_ns < b->time_ns || a->block_time_ns < b->block_time_ns || a->registers < b->registers ||
                a->shared_bytes < b->shared_bytes || ta < tb || na < nb;
  return no_worse && better;
}

uint32_t atoll_dkp_prune(const atoll_kernel_shape *const *v, uint32_t n, uint8_t *keep) {
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; i++) {
    keep[i] = 1;
    for (uint32_t j = 0; j < n && keep[i]; j++)
      if (j != i && atoll_dkp_dominates(v[j], v[i]))
        keep[i] = 0;
    kept += keep[i];
  }
  return kept;
}
