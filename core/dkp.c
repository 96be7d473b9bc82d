/* Kernel selection and pruning for dynamic kernel padding (see dkp.h). */
#include "dkp.h"

/* Proof-only facts of integer arithmetic (WP proves each as a lemma): ceilings and floors of
 * quotients, on which the block and CU counts below rest. */
/*@
  lemma ceil_times_ge: \forall integer a, b; a >= 0 && b >= 1 ==> atoll_dkp_ceil(a, b) * b >= a;
  lemma ceil_le_bound: \forall integer a, b, w; a >= 0 && b >= 1 && w >= 0 && a <= b * w ==>
    atoll_dkp_ceil(a, b) <= w;
  lemma floor_times_le: \forall integer r, b; r >= 0 && b >= 1 ==> (r / b) * b <= r;
  lemma times_mono: \forall integer x, y, c; 0 <= x <= y && c >= 0 ==> x * c <= y * c;
*/

/* ceil(a / b), for a quotient that fits in 32 bits. */
/*@
  requires 1 <= b && a + b <= 18446744073709551615 && atoll_dkp_ceil(a, b) <= 4294967295;
  assigns \nothing;
  ensures \result == atoll_dkp_ceil(a, b);
*/
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
  /*@ assert rounds * g->cus >= need && rounds >= 1; */
  /*@ assert need <= rounds * g->cus; */
  /*@ assert atoll_dkp_ceil(need, rounds) <= g->cus; */
  return ceil_div32(need, rounds);
}

/* A kernel's run time on the GPU: its profiled (isolated) time less the launch overhead. */
/*@
  requires profiled > 0 && overhead_ns >= 0;
  assigns \nothing;
  ensures \result == atoll_dkp_run_ns(profiled, overhead_ns);
*/
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

/* How many rounds of `block` ns fit in `run` ns, at most UINT32_MAX (the cast alone could wrap to
 * 0 for absurd times and leave the caller dividing by zero). */
/*@
  requires run >= 1 && block >= 1;
  assigns \nothing;
  ensures \result == atoll_dkp_rounds(run, block);
*/
static uint32_t rounds_within(int64_t run, int64_t block) {
  int64_t q = run / block;
  return q < (int64_t)UINT32_MAX ? (uint32_t)q : UINT32_MAX;
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
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && atoll_dkp_shape_ok(be);
  requires \valid(k) && \valid(waves) && \separated(k, waves);
  requires \separated(k, g) && \separated(k, rt) && \separated(k, be);
  requires \separated(waves, g) && \separated(waves, rt) && \separated(waves, be);
  assigns *k, *waves;
  ensures \result ==>
    be->occupancy >= atoll_dkp_rt_occ(g, rt) && 1 <= *k <= rt->occupancy && *k <= be->occupancy &&
    (be->n_time_per_occupancy > 0 ==> *k <= be->n_time_per_occupancy) &&
    atoll_dkp_block_ns_at(g, be, *k) < atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) &&
    *waves == atoll_dkp_rounds(atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns),
                               atoll_dkp_block_ns_at(g, be, *k)) &&
    *waves >= 1;
*/
static bool meets_rules(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_kernel_shape *be, uint32_t *k,
                        uint32_t *waves) {
  if (be->occupancy < atoll_dkp_rt_occupancy(g, rt))
    return false;
  int64_t rt_ns = run_time(rt->time_ns, g->costs.launch_sync_ns);
  uint32_t kmax = rt->occupancy < be->occupancy ? rt->occupancy : be->occupancy;
  if (be->n_time_per_occupancy > 0 && kmax > be->n_time_per_occupancy)
    kmax = be->n_time_per_occupancy;
  /*@
    loop invariant 0 <= kk <= kmax;
    loop assigns kk;
    loop variant kk;
  */
  for (uint32_t kk = kmax; kk >= 1; kk--) {
    int64_t block_ns = atoll_dkp_block_ns(g, be, kk);
    if (block_ns > 0 && block_ns < rt_ns) {
      *k = kk;
      *waves = rounds_within(rt_ns, block_ns);
      return true;
    }
  }
  return false;
}

/* Among the versions a candidate may use, the one meeting both rules with the shortest kernel
 * time; false when none does. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && atoll_dkp_cand_ok(c);
  requires c->op->kind == ATOLL_OP_KERNEL;
  requires \valid(version) && \valid(k) && \valid(waves);
  requires \separated(version, k, waves, g, rt, c, c->op);
  requires c->op->n_versions > 0 ==>
             \separated(version, c->op->versions + (0 .. c->op->n_versions - 1)) &&
             \separated(k, c->op->versions + (0 .. c->op->n_versions - 1)) &&
             \separated(waves, c->op->versions + (0 .. c->op->n_versions - 1));
  assigns *version, *k, *waves;
  ensures \result ==>
    (c->version >= 0 ? *version == c->version : *version <= c->op->n_versions) &&
    \let s = atoll_dkp_shape_of(c->op, *version);
    s->occupancy >= atoll_dkp_rt_occ(g, rt) && 1 <= *k <= rt->occupancy && *k <= s->occupancy &&
    (s->n_time_per_occupancy > 0 ==> *k <= s->n_time_per_occupancy) &&
    atoll_dkp_block_ns_at(g, s, *k) < atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) &&
    *waves == atoll_dkp_rounds(atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns),
                               atoll_dkp_block_ns_at(g, s, *k)) &&
    *waves >= 1;
*/
static bool best_version(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *c,
                         uint32_t *version, uint32_t *k, uint32_t *waves) {
  bool found = false;
  uint32_t first = c->version >= 0 ? (uint32_t)c->version : 0;
  uint32_t last = c->version >= 0 ? (uint32_t)c->version : c->op->n_versions;
  /*@
    loop invariant first <= v <= last + 1;
    loop invariant found ==>
      first <= *version < v &&
      \let s = atoll_dkp_shape_of(c->op, *version);
      s->occupancy >= atoll_dkp_rt_occ(g, rt) && 1 <= *k <= rt->occupancy && *k <= s->occupancy &&
      (s->n_time_per_occupancy > 0 ==> *k <= s->n_time_per_occupancy) &&
      atoll_dkp_block_ns_at(g, s, *k) < atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) &&
      *waves == atoll_dkp_rounds(atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns),
                                 atoll_dkp_block_ns_at(g, s, *k)) &&
      *waves >= 1;
    loop assigns v, found, *version, *k, *waves;
    loop variant last + 1 - v;
  */
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

/*@
  // The step at which the visit that starts at `first` reaches candidate idx (of n).
  logic integer visit_step(integer first, integer n, integer idx) =
    idx >= first ? idx - first : idx + n - first;
*/

/* Stores choice ch at out[at]. A function of its own so that the caller's proof sees the sum of
 * CUs over every prefix out[0..m) change only where m > at (its proof is the induction below). */
/*@
  requires \valid(out + at);
  assigns out[at];
  ensures out[at] == ch;
  ensures \forall integer m; 0 <= m <= at ==> atoll_dkp_cus_sum(out, m) == \old(atoll_dkp_cus_sum(out, m));
*/
static void put_choice(atoll_dkp_choice *out, uint32_t at, atoll_dkp_choice ch) {
  out[at] = ch;
  /* Proof only: induction over the prefix length m. */
  /*@ ghost
    /@
      loop invariant 0 <= m <= at;
      loop invariant \forall integer m2; 0 <= m2 <= m ==>
        atoll_dkp_cus_sum(out, m2) == \at(atoll_dkp_cus_sum(out, m2), Pre);
      loop assigns m;
      loop variant at - m;
    @/
    for (uint32_t m = 0; m < at; m++) {
    }
  */
}

uint32_t atoll_dkp_select(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                          uint32_t n_cand, uint32_t start, atoll_dkp_choice *out, uint32_t max_out,
                          uint32_t *rt_cus) {
  *rt_cus = atoll_dkp_rt_cus(g, rt);
  uint32_t free_cus = g->cus - *rt_cus, n = 0;
  /* Candidates are visited from start % n_cand on, wrapping once. Computing (start + i) % n_cand
   * instead would wrap start + i around UINT32_MAX and could visit a candidate twice. */
  uint32_t first = n_cand > 0 ? start % n_cand : 0;
  /*@
    loop invariant 0 <= i <= n_cand && 0 <= n <= i && n <= max_out;
    loop invariant free_cus + atoll_dkp_cus_sum(out, n) == g->cus - *rt_cus;
    loop invariant \forall integer j; 0 <= j < n ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
    loop invariant \forall integer j; 0 <= j < n ==> visit_step(first, n_cand, out[j].candidate) < i;
    loop invariant \forall integer j1, j2; 0 <= j1 < j2 < n ==>
      visit_step(first, n_cand, out[j1].candidate) < visit_step(first, n_cand, out[j2].candidate);
    loop assigns i, n, free_cus, out[0 .. max_out - 1];
    loop variant n_cand - i;
  */
  for (uint32_t i = 0; i < n_cand && free_cus > 0 && n < max_out; i++) {
    uint32_t idx = i < n_cand - first ? first + i : i - (n_cand - first);
    /*@ assert idx < n_cand && visit_step(first, n_cand, idx) == i; */
    const atoll_dkp_candidate *c = &cand[idx];
    uint32_t version = 0, k = 0, waves = 0;
    if (c->blocks_left == 0 || c->op->kind != ATOLL_OP_KERNEL || !best_version(g, rt, c, &version, &k, &waves))
      continue;
    /* k blocks per CU for `waves` rounds on each CU it takes. */
    uint64_t room = (uint64_t)free_cus * k * waves;
    uint64_t left = c->blocks_left == ATOLL_DKP_ALL ? atoll_dim3_count(atoll_dkp_shape(c->op, version)->grid)
                                                    : c->blocks_left;
    uint32_t blocks = left < room ? (uint32_t)left : (uint32_t)room;
    /*@ assert 1 <= blocks <= room && blocks <= left; */
    uint32_t cus = ceil_div32(blocks, (uint64_t)k * waves);
    /*@ assert cus * (k * waves) >= blocks; */
    /*@ assert 1 <= cus <= free_cus; */
    /*@ assert blocks <= cus * k * waves; */
    /*@ assert atoll_dkp_ceil(blocks, cus * k) <= waves; */
    /*@ assert waves * atoll_dkp_block_ns_at(g, atoll_dkp_shape_of(c->op, version), k) <=
          atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns); */
    put_choice(out, n, (atoll_dkp_choice){.candidate = idx, .version = version, .blocks = blocks, .occupancy = k, .cus = cus});
    n++;
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
