/* Kernel selection and pruning for dynamic kernel padding (see dkp.h). */
#include "dkp.h"

static uint32_t ceil_div32(uint64_t a, uint64_t b) { return (uint32_t)((a + b - 1) / b); }

const atoll_kernel_shape *atoll_dkp_shape(const atoll_op *op, uint32_t v) {
  return v == 0 ? &op->shape : &op->versions[v - 1];
}

uint32_t atoll_dkp_rt_cus(const atoll_gpu *g, const atoll_kernel_shape *rt) {
  /* A kernel of B blocks needs ceil(B / CUs) rounds at one block per CU whatever it is given, so
   * the fewest CUs that still take it in that many rounds leave its time unchanged: e.g. 64 blocks
   * need two rounds on 60 CUs and also on 32. Reserving fewer would slow it down. */
  uint64_t need = atoll_dim3_count(rt->grid);
  if (need == 0)
    return 1;
  uint64_t rounds = (need + g->cus - 1) / g->cus;
  return ceil_div32(need, rounds);
}

/* A kernel's run time on the GPU: its profiled (isolated) time less the launch overhead. */
static int64_t run_time(int64_t profiled, int64_t overhead_ns) {
  int64_t t = profiled - overhead_ns;
  return t > 1000 ? t : 1000;
}

int64_t atoll_dkp_block_ns(const atoll_gpu *g, const atoll_kernel_shape *s, uint32_t k) {
  /* The per-occupancy list times the whole kernel in persistent-block form with k blocks per CU
   * on every CU: its blocks go round in ceil(blocks / (CUs x k)) rounds of equal length. Without a
   * list, its block time (k <= its occupancy, at which sharing is assumed not to slow it). */
  if (k >= 1 && k <= s->n_time_per_occupancy) {
    uint64_t blocks = atoll_dim3_count(s->grid), per_round = (uint64_t)g->cus * k;
    int64_t t = run_time(s->time_per_occupancy_ns[k - 1], g->costs.launch_sync_ns) /
                (int64_t)((blocks + per_round - 1) / per_round);
    return t > 0 ? t : 1;
  }
  return s->block_time_ns;
}

uint32_t atoll_dkp_rt_occupancy(const atoll_gpu *g, const atoll_kernel_shape *rt) {
  uint64_t blocks = atoll_dim3_count(rt->grid);
  uint64_t rounds = (blocks + g->cus - 1) / g->cus;
  if (rounds < 1)
    rounds = 1;
  return rounds < rt->occupancy ? (uint32_t)rounds : rt->occupancy;
}

/* Rule 1 and Rule 2 for one version; on success, the BE blocks per CU (k) and how many rounds of
 * them fit inside the RT kernel. Rule 2 compares the BE kernel's occupancy with the blocks per CU
 * the RT kernel runs at (see dkp.h); the padded launch's resources then allow the lower of the two
 * kernels' own occupancies per CU, and the BE part takes the most blocks per CU, up to that, whose
 * round still meets Rule 1 (REEF's scheduler picks the BE occupancy this way, from the highest
 * down). */
static bool meets_rules(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_kernel_shape *be, uint32_t *k,
                        uint32_t *waves) {
  if (be->occupancy < atoll_dkp_rt_occupancy(g, rt))
    return false;
  int64_t rt_ns = run_time(rt->time_ns, g->costs.launch_sync_ns);
  uint32_t kmax = rt->occupancy < be->occupancy ? rt->occupancy : be->occupancy;
  if (be->n_time_per_occupancy > 0 && kmax > be->n_time_per_occupancy)
    kmax = be->n_time_per_occupancy;
  for (uint32_t kk = kmax; kk >= 1; kk--) {
    int64_t block_ns = atoll_dkp_block_ns(g, be, kk);
    if (block_ns > 0 && block_ns < rt_ns) {
      *k = kk;
      *waves = (uint32_t)(rt_ns / block_ns);
      return true;
    }
  }
  return false;
}

/* Among the versions a candidate may use, the one meeting both rules with the shortest kernel
 * time; false when none does. */
static bool best_version(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *c,
                         uint32_t *version, uint32_t *k, uint32_t *waves) {
  bool found = false;
  uint32_t first = c->version >= 0 ? (uint32_t)c->version : 0;
  uint32_t last = c->version >= 0 ? (uint32_t)c->version : c->op->n_versions;
  for (uint32_t v = first; v <= last; v++) {
    const atoll_kernel_shape *s = atoll_dkp_shape(c->op, v);
    uint32_t kk, w;
    if (!meets_rules(g, rt, s, &kk, &w))
      continue;
    if (!found || s->time_ns < atoll_dkp_shape(c->op, *version)->time_ns) {
      *version = v;
      *k = kk;
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
  for (uint32_t i = 0; i < n_cand && free_cus > 0 && n < max_out; i++) {
    uint32_t idx = (start + i) % n_cand;
    const atoll_dkp_candidate *c = &cand[idx];
    uint32_t version = 0, k = 0, waves = 0;
    if (c->blocks_left == 0 || c->op->kind != ATOLL_OP_KERNEL || !best_version(g, rt, c, &version, &k, &waves))
      continue;
    /* k blocks per CU for `waves` rounds on each CU it takes. */
    uint64_t room = (uint64_t)free_cus * k * waves;
    uint64_t left = c->blocks_left == ATOLL_DKP_ALL ? atoll_dim3_count(atoll_dkp_shape(c->op, version)->grid)
                                                    : c->blocks_left;
    uint32_t blocks = left < room ? (uint32_t)left : (uint32_t)room;
    uint32_t cus = ceil_div32(blocks, (uint64_t)k * waves);
    out[n++] = (atoll_dkp_choice){.candidate = idx, .version = version, .blocks = blocks, .occupancy = k, .cus = cus};
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
