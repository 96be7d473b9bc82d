/* Kernel selection and pruning for dynamic kernel padding (see dkp.h). */
#include "dkp.h"

/* Proof-only facts of integer arithmetic. The two lemmas are what the solvers cannot find alone
 * about quotients; the ghost functions below are instances of them and of the ceiling's bounds,
 * called with explicit arguments where the code needs one (a solver cannot guess which of the
 * many terms to instantiate a lemma with). */
/*@
  lemma floor_times_le: \forall integer x, b; x >= 0 && b >= 1 ==> (x / b) * b <= x;
  lemma cancel_le: \forall integer q, w, b; b >= 1 && q * b <= w * b + b - 1 ==> q <= w;
*/
/*@ ghost
  /@
    requires a >= 0 && b >= 1;
    assigns \nothing;
    ensures atoll_dkp_ceil(a, b) * b >= a && 0 <= atoll_dkp_ceil(a, b) <= a;
    ensures a >= 1 ==> 1 <= atoll_dkp_ceil(a, b) <= a;
  @/
  static void ceil_bounds(uint64_t a, uint64_t b) {
  }

  /@
    requires a >= 0 && b >= 1 && w >= 0 && a <= b * w;
    assigns \nothing;
    ensures atoll_dkp_ceil(a, b) <= w;
  @/
  static void ceil_at_most(uint64_t a, uint64_t b, uint64_t w) {
  }

  /@
    requires 1 <= x <= 65535 && 1 <= y <= 65535 && 1 <= z <= 4294967295;
    assigns \nothing;
    ensures 1 <= x * y <= 4294836225 && 1 <= x * y * z <= 18446744073709551615;
    ensures 1 <= y * z <= 281470681677825;
  @/
  static void product_bounds(uint64_t x, uint64_t y, uint64_t z) {
  }
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
  /*@ ghost ceil_bounds(need, g->cus); */
  /*@ ghost ceil_at_most(need, rounds, g->cus); */
  /*@ ghost ceil_bounds(need, rounds); */
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
    /*@ ghost product_bounds(g->cus, k, 1); */
    /*@ ghost ceil_bounds(blocks, per_round); */
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
  /*@ ghost ceil_bounds(blocks, g->cus); */
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
  requires \separated(version, k, waves);
  requires \separated(\union(version, k, waves), g) && \separated(\union(version, k, waves), rt) &&
           \separated(\union(version, k, waves), c) && \separated(\union(version, k, waves), c->op);
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

  // The part of atoll_dkp_apart that concerns out[]: the choices lie apart from everything
  // atoll_dkp_choice_ok reads, so writing one keeps the others ok.
  predicate out_apart{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                         integer n_cand, atoll_dkp_choice *out, integer max_out) =
    \separated(out + (0 .. max_out - 1), g) && \separated(out + (0 .. max_out - 1), rt) &&
    \separated(out + (0 .. max_out - 1), cand + (0 .. n_cand - 1)) &&
    \forall integer i; 0 <= i < n_cand ==>
      \separated(out + (0 .. max_out - 1), cand[i].op) &&
      (cand[i].op->kind == ATOLL_OP_KERNEL && cand[i].op->n_versions > 0 ==>
         \separated(out + (0 .. max_out - 1), cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)));

  // The frame of atoll_dkp_choice_ok: it holds at L2 when it holds at L1 and everything it reads
  // for the choice is the same at both (proved by the lemmas below, in steps). Stating what it
  // reads lets a proof show a store leaves a choice ok with a few separations, instead of
  // unfolding the whole predicate in two memory states.
  predicate same_shape{L1, L2}(atoll_kernel_shape *s) =
    \at(s->grid.x, L1) == \at(s->grid.x, L2) && \at(s->grid.y, L1) == \at(s->grid.y, L2) &&
    \at(s->grid.z, L1) == \at(s->grid.z, L2) && \at(s->occupancy, L1) == \at(s->occupancy, L2) &&
    \at(s->time_ns, L1) == \at(s->time_ns, L2) && \at(s->block_time_ns, L1) == \at(s->block_time_ns, L2) &&
    \at(s->n_time_per_occupancy, L1) == \at(s->n_time_per_occupancy, L2) &&
    \at(s->time_per_occupancy_ns, L1) == \at(s->time_per_occupancy_ns, L2);

  predicate same_gpu{L1, L2}(atoll_gpu *g) =
    \at(g->cus, L1) == \at(g->cus, L2) &&
    \at(g->costs.launch_sync_ns, L1) == \at(g->costs.launch_sync_ns, L2);

  predicate same_reads{L1, L2}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                               atoll_dkp_choice ch) =
    same_gpu{L1, L2}(g) && same_shape{L1, L2}(rt) &&
    \at(cand[ch.candidate].op, L1) == \at(cand[ch.candidate].op, L2) &&
    \at(cand[ch.candidate].version, L1) == \at(cand[ch.candidate].version, L2) &&
    \at(cand[ch.candidate].blocks_left, L1) == \at(cand[ch.candidate].blocks_left, L2) &&
    \let op = \at(cand[ch.candidate].op, L1);
    \at(op->kind, L1) == \at(op->kind, L2) && \at(op->n_versions, L1) == \at(op->n_versions, L2) &&
    \at(op->versions, L1) == \at(op->versions, L2) &&
    \let s = atoll_dkp_shape_of{L1}(op, ch.version);
    same_shape{L1, L2}(s) &&
    \at(s->time_per_occupancy_ns[ch.occupancy - 1], L1) == \at(s->time_per_occupancy_ns[ch.occupancy - 1], L2);

  lemma shape_of_frame{L1, L2}: \forall atoll_op *op, integer v;
    \at(op->versions, L1) == \at(op->versions, L2) ==>
    atoll_dkp_shape_of{L1}(op, v) == atoll_dkp_shape_of{L2}(op, v);

  lemma block_ns_frame{L1, L2}: \forall atoll_gpu *g, atoll_kernel_shape *s, integer k;
    same_gpu{L1, L2}(g) && same_shape{L1, L2}(s) &&
    \at(s->time_per_occupancy_ns[k - 1], L1) == \at(s->time_per_occupancy_ns[k - 1], L2) ==>
    atoll_dkp_block_ns_at{L1}(g, s, k) == atoll_dkp_block_ns_at{L2}(g, s, k);

  lemma rt_occ_frame{L1, L2}: \forall atoll_gpu *g, atoll_kernel_shape *rt;
    same_gpu{L1, L2}(g) && same_shape{L1, L2}(rt) ==>
    atoll_dkp_rt_occ{L1}(g, rt) == atoll_dkp_rt_occ{L2}(g, rt);

  lemma choice_ok_frame{L1, L2}: \forall atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                                          integer n_cand, atoll_dkp_choice ch;
    same_reads{L1, L2}(g, rt, cand, ch) && atoll_dkp_choice_ok{L1}(g, rt, cand, n_cand, ch) ==>
    atoll_dkp_choice_ok{L2}(g, rt, cand, n_cand, ch);

  // A choice names a kernel candidate and one of its versions: what atoll_dkp_choice_ok says of
  // its indices, with atoll_dkp_cand_ok's bound on the version. Enough to know where what it reads
  // lies, without the arithmetic of atoll_dkp_choice_ok.
  predicate choice_in{L}(atoll_dkp_candidate *cand, integer n_cand, atoll_dkp_choice ch) =
    0 <= ch.candidate < n_cand && cand[ch.candidate].op->kind == ATOLL_OP_KERNEL &&
    ch.version <= cand[ch.candidate].op->n_versions;

  lemma choice_in_frame{L1, L2}: \forall atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                                          integer n_cand, atoll_dkp_choice ch;
    same_reads{L1, L2}(g, rt, cand, ch) && choice_in{L1}(cand, n_cand, ch) ==> choice_in{L2}(cand, n_cand, ch);

  // The choice p lies apart from everything choice ch reads (the uint32_t objects among them).
  predicate apart_one{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                         atoll_dkp_choice *p, atoll_dkp_choice ch) =
    \separated(p, g) && \separated(p, rt) && \separated(p, cand + ch.candidate) &&
    \separated(p, cand[ch.candidate].op) &&
    \separated(p, atoll_dkp_shape_of(cand[ch.candidate].op, ch.version));
*/

/* Proof only: out[at] lies apart from what ch and each of out[0..at) read (from out_apart). */
/*@ ghost
  /@
    requires at < max_out;
    requires out_apart(g, rt, cand, n_cand, out, max_out);
    requires \forall integer j; 0 <= j < at ==> choice_in(cand, n_cand, out[j]);
    requires choice_in(cand, n_cand, ch);
    assigns \nothing;
    ensures apart_one(g, rt, cand, out + at, ch);
    ensures \forall integer j; 0 <= j < at ==> apart_one(g, rt, cand, out + at, out[j]);
  @/
  static void choices_apart(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                            uint32_t n_cand, atoll_dkp_choice *out, uint32_t max_out, uint32_t at,
                            atoll_dkp_choice ch) {
  }
*/

/* Stores choice ch at out[at]. A function of its own so that the caller's proof gets, ready to use,
 * what one store does: the earlier choices are unchanged, what each choice reads is unchanged
 * (its candidate, op and shape lie apart from out[]), and the sum of CUs grows by ch's CUs (its
 * proof is the induction below). */
/*@
  requires at < max_out && \valid(out + (0 .. max_out - 1));
  requires out_apart(g, rt, cand, n_cand, out, max_out);
  requires \forall integer j; 0 <= j < at ==> choice_in(cand, n_cand, out[j]);
  requires choice_in(cand, n_cand, ch);
  assigns out[at];
  ensures stored: out[at] == ch;
  ensures kept: \forall integer j; 0 <= j < at ==> out[j] == \old(out[j]);
  ensures same_kept: \forall integer j; 0 <= j < at ==> same_reads{Pre, Post}(g, rt, cand, \old(out[j]));
  ensures same_stored: same_reads{Pre, Post}(g, rt, cand, ch);
  ensures still_apart: out_apart(g, rt, cand, n_cand, out, max_out);
  ensures sum: atoll_dkp_cus_sum(out, at + 1) == \old(atoll_dkp_cus_sum(out, at)) + ch.cus;
*/
static void put_choice(atoll_dkp_choice *out, uint32_t at, atoll_dkp_choice ch)
  /*@ ghost (const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
             uint32_t n_cand, uint32_t max_out) */ {
  /*@ ghost choices_apart(g, rt, cand, n_cand, out, max_out, at, ch); */
  out[at] = ch;
  /* Proof only: the sums of CUs over out[0..m) for m <= at, by induction over m. */
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

/* How much of a candidate fits: at most `left` blocks, k per CU for `waves` rounds on each of at
 * most free_cus CUs; *cus receives the CUs its blocks take. */
/*@
  requires 1 <= free_cus <= 65535 && 1 <= k <= 65535 && 1 <= waves;
  requires 1 <= left < 4294967295;
  requires \valid(blocks) && \valid(cus) && \separated(blocks, cus);
  assigns *blocks, *cus;
  ensures 1 <= *blocks <= left;
  ensures 1 <= *cus <= free_cus;
  ensures atoll_dkp_ceil(*blocks, *cus * k) <= waves;
*/
static void size_choice(uint32_t free_cus, uint32_t k, uint32_t waves, uint64_t left, uint32_t *blocks,
                        uint32_t *cus) {
  /*@ ghost product_bounds(free_cus, k, waves); */
  uint64_t room = (uint64_t)free_cus * k * waves;
  uint32_t b = left < room ? (uint32_t)left : (uint32_t)room;
  /*@ assert 1 <= b <= room && b <= left; */
  /*@ ghost ceil_bounds(b, (uint64_t)k * waves); */
  /*@ ghost ceil_at_most(b, (uint64_t)k * waves, free_cus); */
  uint32_t c = ceil_div32(b, (uint64_t)k * waves);
  /*@ assert 1 <= c <= free_cus && c * (k * waves) >= b; */
  /*@ ghost ceil_at_most(b, (uint64_t)c * k, waves); */
  *blocks = b;
  *cus = c;
}

/* The choice candidate idx gives: how much of it fits on free_cus CUs, in its best version; none
 * (cus == 0) when it has no block left, is not a kernel or meets the rules in no version. One step
 * of atoll_dkp_select, a function of its own so that each proof goal of the selection loop stays
 * small. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  requires idx < n_cand && \valid_read(cand + (0 .. n_cand - 1)) && atoll_dkp_cand_ok(cand + idx);
  requires 1 <= free_cus <= 65535;
  assigns \nothing;
  ensures fits: \result.cus <= free_cus;
  ensures which: \result.cus > 0 ==> \result.candidate == idx;
  ensures in: \result.cus > 0 ==> choice_in(cand, n_cand, \result);
  ensures ok: \result.cus > 0 ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, \result);
*/
static atoll_dkp_choice choose(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                               uint32_t idx, uint32_t free_cus) /*@ ghost (uint32_t n_cand) */ {
  const atoll_dkp_candidate *c = &cand[idx];
  uint32_t version = 0, k = 0, waves = 0;
  if (c->blocks_left == 0 || c->op->kind != ATOLL_OP_KERNEL || !best_version(g, rt, c, &version, &k, &waves))
    return (atoll_dkp_choice){.cus = 0};
  uint64_t left = c->blocks_left == ATOLL_DKP_ALL ? atoll_dim3_count(atoll_dkp_shape(c->op, version)->grid)
                                                  : c->blocks_left;
  uint32_t blocks, cus;
  size_choice(free_cus, k, waves, left, &blocks, &cus);
  return (atoll_dkp_choice){.candidate = idx, .version = version, .blocks = blocks, .occupancy = k, .cus = cus};
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
    loop invariant bounds: 0 <= i <= n_cand && 0 <= n <= i && n <= max_out;
    loop invariant sum: free_cus + atoll_dkp_cus_sum(out, n) == g->cus - *rt_cus;
    loop invariant free: free_cus <= g->cus - *rt_cus && 1 <= *rt_cus <= g->cus;
    loop invariant apart: out_apart(g, rt, cand, n_cand, out, max_out);
    loop invariant in: \forall integer j; 0 <= j < n ==> choice_in(cand, n_cand, out[j]);
    loop invariant ok: \forall integer j; 0 <= j < n ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
    loop invariant visited: \forall integer j; 0 <= j < n ==> visit_step(first, n_cand, out[j].candidate) < i;
    loop invariant in_order: \forall integer j1, j2; 0 <= j1 < j2 < n ==>
      visit_step(first, n_cand, out[j1].candidate) < visit_step(first, n_cand, out[j2].candidate);
    loop assigns i, n, free_cus, out[0 .. max_out - 1];
    loop variant n_cand - i;
  */
  for (uint32_t i = 0; i < n_cand && free_cus > 0 && n < max_out; i++) {
    uint32_t idx = i < n_cand - first ? first + i : i - (n_cand - first);
    /*@ assert idx < n_cand && visit_step(first, n_cand, idx) == i; */
    atoll_dkp_choice ch = choose(g, rt, cand, idx, free_cus) /*@ ghost (n_cand) */;
    if (ch.cus == 0)
      continue;
    put_choice(out, n, ch) /*@ ghost (g, rt, cand, n_cand, max_out) */;
    /*@ assert kept_ok: \forall integer j; 0 <= j < n ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]); */
    /*@ assert stored_ok: atoll_dkp_choice_ok(g, rt, cand, n_cand, out[n]); */
    n++;
    free_cus -= ch.cus;
  }
  /*@ assert \forall integer j1, j2; 0 <= j1 < j2 < n ==> out[j1].candidate != out[j2].candidate; */
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

/* The fit in atoll_dkp_choice_ok, "the rounds a choice's blocks need on its CUs are at most the RT
 * kernel's time over one round's", is the same as "those rounds end within the RT kernel". Proved
 * here, after every function, so that the lemma is not a hypothesis of their proofs. */
/*@
  lemma rounds_fit_iff_within: \forall integer c, run, block; c >= 0 && run >= 0 && block >= 1 ==>
    (c <= run / block <==> c * block <= run);
*/
