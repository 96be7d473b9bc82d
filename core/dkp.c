/* Kernel selection and pruning for dynamic kernel padding (see dkp.h). */
#include "core/dkp.h"

/* Proof-only facts of integer arithmetic. The two lemmas are what the solvers cannot find alone
 * about quotients; the ghost functions below are instances of them and of the ceiling's bounds,
 * called with explicit arguments where the code needs one (a solver cannot guess which of the
 * many terms to instantiate a lemma with). The lemmas sit in an axiomatic block with the predicate
 * `divisor` (b >= 1): WP gives an axiomatic's lemmas only to the goals that use its symbols (here
 * the goals of the two ghost functions below, after their assertion), where a top-level lemma is a
 * hypothesis of every later goal. */
/*@
  axiomatic Quotients {
    predicate divisor(integer b) = b >= 1;
    lemma floor_times_le: \forall integer x, b; x >= 0 && divisor(b) ==> (x / b) * b <= x;
    lemma cancel_le: \forall integer q, w, b; divisor(b) && q * b <= w * b + b - 1 ==> q <= w;
  }
*/
/*@ ghost
  /@
    requires a >= 0 && b >= 1;
    assigns \nothing;
    ensures atoll_dkp_ceil(a, b) * b >= a && 0 <= atoll_dkp_ceil(a, b) <= a;
    ensures a >= 1 ==> 1 <= atoll_dkp_ceil(a, b) <= a;
  @/
  static void ceil_bounds(uint64_t a, uint64_t b) {
    /@ assert divisor(b); @/
  }

  /@
    requires a >= 0 && b >= 1 && w >= 0 && a <= b * w;
    assigns \nothing;
    ensures atoll_dkp_ceil(a, b) <= w;
  @/
  static void ceil_at_most(uint64_t a, uint64_t b, uint64_t w) {
    /@ assert divisor(b); @/
    /@ assert atoll_dkp_ceil(a, b) * b <= a + b - 1; @/
    /@ assert atoll_dkp_ceil(a, b) * b <= w * b + b - 1; @/
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

/*@
  // Version s of a BE kernel meets Rule 2 and, at k blocks per CU, Rule 1, and `waves` rounds of
  // it fit inside the RT kernel: what atoll_dkp_choice_ok says of a choice's version and occupancy.
  predicate fits_rules{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_kernel_shape *s, integer k, integer waves) =
    s->occupancy >= atoll_dkp_rt_occ(g, rt) && 1 <= k <= rt->occupancy && k <= s->occupancy &&
    (s->n_time_per_occupancy > 0 ==> k <= s->n_time_per_occupancy) &&
    atoll_dkp_block_ns_at(g, s, k) < atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) &&
    waves == atoll_dkp_rounds(atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns),
                              atoll_dkp_block_ns_at(g, s, k)) &&
    waves >= 1;

  // Version v is one that candidate c may run.
  predicate version_allowed{L}(atoll_dkp_candidate *c, integer v) =
    c->version >= 0 ? v == c->version : v <= c->op->n_versions;
*/

/* How one version fits: k BE blocks per CU, `waves` rounds of them inside the RT kernel; k == 0
 * when the version fails a rule. */
typedef struct dkp_fit {
  uint32_t k, waves;
} dkp_fit;

/* Rule 1 and Rule 2 for one version; when both hold, the BE blocks per CU (k) and how many rounds
 * of them fit inside the RT kernel. Rule 2 compares the BE kernel's occupancy with the blocks per
 * CU the RT kernel runs at (see dkp.h); the padded launch's resources then allow the lower of the
 * two kernels' own occupancies per CU, and the BE part takes the most blocks per CU, up to that,
 * whose round still meets Rule 1 (REEF's scheduler picks the BE occupancy this way, from the
 * highest down). */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && atoll_dkp_shape_ok(be);
  assigns \nothing;
  ensures \result.k != 0 ==> fits_rules(g, rt, be, \result.k, \result.waves);
*/
static dkp_fit meets_rules(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_kernel_shape *be) {
  dkp_fit none = {.k = 0, .waves = 0};
  if (be->occupancy < atoll_dkp_rt_occupancy(g, rt))
    return none;
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
    if (block_ns > 0 && block_ns < rt_ns)
      return (dkp_fit){.k = kk, .waves = rounds_within(rt_ns, block_ns)};
  }
  return none;
}

/* A candidate's best version and how it fits (as dkp_fit); k == 0 when none meets both rules. */
typedef struct dkp_best {
  uint32_t version, k, waves;
} dkp_best;

/* Among the versions a candidate may use, the one meeting both rules with the shortest kernel
 * time. It returns its choice instead of storing it, so that its loop writes no memory and every
 * fact about the candidate holds unchanged through it. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && atoll_dkp_cand_ok(c);
  requires c->op->kind == ATOLL_OP_KERNEL;
  assigns \nothing;
  ensures \result.k != 0 ==>
    version_allowed(c, \result.version) &&
    fits_rules(g, rt, atoll_dkp_shape_of(c->op, \result.version), \result.k, \result.waves);
*/
static dkp_best best_version(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *c) {
  dkp_best best = {.version = 0, .k = 0, .waves = 0};
  uint32_t first = c->version >= 0 ? (uint32_t)c->version : 0;
  uint32_t last = c->version >= 0 ? (uint32_t)c->version : c->op->n_versions;
  /*@
    loop invariant first <= v <= last + 1;
    loop invariant best.k != 0 ==> first <= best.version < v &&
      fits_rules(g, rt, atoll_dkp_shape_of(c->op, best.version), best.k, best.waves);
    loop assigns v, best;
    loop variant last + 1 - v;
  */
  for (uint32_t v = first; v <= last; v++) {
    const atoll_kernel_shape *s = atoll_dkp_shape(c->op, v);
    dkp_fit f = meets_rules(g, rt, s);
    if (f.k == 0)
      continue;
    if (best.k == 0 || s->time_ns < atoll_dkp_shape(c->op, best.version)->time_ns)
      best = (dkp_best){.version = v, .k = f.k, .waves = f.waves};
  }
  return best;
}

/*@
  // The step at which the visit that starts at `first` reaches candidate idx (of n).
  logic integer visit_step(integer first, integer n, integer idx) =
    idx >= first ? idx - first : idx + n - first;

  // What atoll_dkp_select requires of the candidates.
  predicate cands_ok{L}(atoll_dkp_candidate *cand, integer n_cand) =
    (n_cand > 0 ==> \valid_read(cand + (0 .. n_cand - 1))) &&
    \forall integer i; 0 <= i < n_cand ==> atoll_dkp_cand_ok(cand + i);

  // The parts of atoll_dkp_apart that concern out[] and rt_cus: each lies apart from every
  // uint32_t object selection reads.
  predicate out_apart{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                         integer n_cand, atoll_dkp_choice *out, integer max_out) =
    \separated(out + (0 .. max_out - 1), g) && \separated(out + (0 .. max_out - 1), rt) &&
    \separated(out + (0 .. max_out - 1), cand + (0 .. n_cand - 1)) &&
    \forall integer i; 0 <= i < n_cand ==>
      \separated(out + (0 .. max_out - 1), cand[i].op) &&
      (cand[i].op->kind == ATOLL_OP_KERNEL && cand[i].op->n_versions > 0 ==>
         \separated(out + (0 .. max_out - 1), cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)));

  predicate rt_cus_apart{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                            integer n_cand, uint32_t *rt_cus) =
    \separated(rt_cus, g) && \separated(rt_cus, rt) && \separated(rt_cus, cand + (0 .. n_cand - 1)) &&
    \forall integer i; 0 <= i < n_cand ==>
      \separated(rt_cus, cand[i].op) &&
      (cand[i].op->kind == ATOLL_OP_KERNEL && cand[i].op->n_versions > 0 ==>
         \separated(rt_cus, cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)));

  // Frames. out[] and *rt_cus hold uint32_t objects only, and WP's typed memory model keeps each
  // integer type in a memory of its own, so a store to them can change no pointer and no int32_t
  // or int64_t object: of what selection reads, only the uint32_t fields below. Each predicate
  // says they are the same at L1 and L2, field by field.
  predicate same_shape_u32{L1, L2}(atoll_kernel_shape *s) =
    \at(s->grid.x, L1) == \at(s->grid.x, L2) && \at(s->grid.y, L1) == \at(s->grid.y, L2) &&
    \at(s->grid.z, L1) == \at(s->grid.z, L2) && \at(s->occupancy, L1) == \at(s->occupancy, L2) &&
    \at(s->n_time_per_occupancy, L1) == \at(s->n_time_per_occupancy, L2);

  predicate same_op_u32{L1, L2}(atoll_op *op) =
    \at(op->kind, L1) == \at(op->kind, L2) && \at(op->n_versions, L1) == \at(op->n_versions, L2) &&
    same_shape_u32{L1, L2}(\at(&op->shape, L1));

  predicate same_versions_u32{L1, L2}(atoll_op *op) =
    \at(op->kind, L1) == ATOLL_OP_KERNEL ==>
      \forall integer v; 0 <= v < \at(op->n_versions, L1) ==>
        same_shape_u32{L1, L2}(\at(op->versions, L1) + v);

  predicate same_cand_u32{L1, L2}(atoll_dkp_candidate *c) =
    \at(c->blocks_left, L1) == \at(c->blocks_left, L2) &&
    \let op = \at(c->op, L1);
    \at(op->kind, L1) == \at(op->kind, L2) && \at(op->n_versions, L1) == \at(op->n_versions, L2) &&
    (\at(op->kind, L1) == ATOLL_OP_KERNEL ==>
       \forall integer v; 0 <= v <= \at(op->n_versions, L1) ==>
         same_shape_u32{L1, L2}(atoll_dkp_shape_of{L1}(op, v)));
*/

/* Stores the CUs reserved for the RT kernel. A function of its own so that selection gets, ready
 * to use, that the store keeps its inputs valid and out[] apart from them (the frame is shown in
 * steps, the uint32_t fields first). */
/*@
  requires \valid(rt_cus) && rt_cus_apart(g, rt, cand, n_cand, rt_cus);
  requires out_apart(g, rt, cand, n_cand, out, max_out);
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && cands_ok(cand, n_cand);
  assigns *rt_cus;
  ensures stored: *rt_cus == v;
  ensures frame: g->cus == \old(g->cus);
  ensures gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  ensures cands: cands_ok(cand, n_cand);
  ensures apart: out_apart(g, rt, cand, n_cand, out, max_out);
*/
static void put_rt_cus(uint32_t *rt_cus, uint32_t v)
  /*@ ghost (const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
             uint32_t n_cand, atoll_dkp_choice *out, uint32_t max_out) */ {
  *rt_cus = v;
  /*@ assert frame_g: \at(g->cus, Pre) == g->cus && same_shape_u32{Pre, Here}(rt); */
  /*@ assert frame_left: \forall integer i; 0 <= i < n_cand ==>
        \at(cand[i].blocks_left, Pre) == cand[i].blocks_left; */
  /*@ assert frame_op: \forall integer i; 0 <= i < n_cand ==> same_op_u32{Pre, Here}(cand[i].op); */
  /*@ assert frame_versions: \forall integer i; 0 <= i < n_cand ==> same_versions_u32{Pre, Here}(cand[i].op); */
  /*@ assert frame_cand: \forall integer i; 0 <= i < n_cand ==> same_cand_u32{Pre, Here}(cand + i); */
}

/*@
  // Choice ch names a kernel candidate and a version it has: what atoll_dkp_choice_ok and
  // atoll_dkp_cand_ok say of its indices.
  predicate choice_in{L}(atoll_dkp_candidate *cand, integer n_cand, atoll_dkp_choice ch) =
    0 <= ch.candidate < n_cand && cand[ch.candidate].op->kind == ATOLL_OP_KERNEL &&
    ch.version <= cand[ch.candidate].op->n_versions;

  // The uint32_t fields of its candidate that atoll_dkp_choice_ok reads for choice ch.
  predicate same_choice_u32{L1, L2}(atoll_dkp_candidate *cand, atoll_dkp_choice ch) =
    \at(cand[ch.candidate].blocks_left, L1) == \at(cand[ch.candidate].blocks_left, L2) &&
    \let op = \at(cand[ch.candidate].op, L1);
    \at(op->kind, L1) == \at(op->kind, L2) && \at(op->n_versions, L1) == \at(op->n_versions, L2) &&
    same_shape_u32{L1, L2}(atoll_dkp_shape_of{L1}(op, ch.version));
*/

/*@
  axiomatic ChoiceFrame {
    // The frame of atoll_dkp_choice_ok: it holds at L2 when it holds at L1 and everything it
    // reads for the choice is the same at both (proved by the lemmas below, in steps). In an
    // axiomatic block, so that only the goals that name same_reads (put_choice's) carry the
    // lemmas. Within a function, only the uint32_t fields can differ (same_choice_u32 above).
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
  }
*/

/*@
  // Steps of the visit that starts at `first`: out[0 .. n) were visited before step i, in order.
  predicate visited_before(atoll_dkp_choice *out, integer n, integer first, integer n_cand, integer i) =
    \forall integer j; 0 <= j < n ==> visit_step(first, n_cand, out[j].candidate) < i;
  predicate visited_in_order(atoll_dkp_choice *out, integer n, integer first, integer n_cand) =
    \forall integer j1, j2; 0 <= j1 < j2 < n ==>
      visit_step(first, n_cand, out[j1].candidate) < visit_step(first, n_cand, out[j2].candidate);
*/

/* The store of put_choice, with its frame: the earlier choices, the order of the visit, the
 * inputs' uint32_t fields (shown in steps, from out_apart), hence the inputs' validity and their
 * separation from out[], and the sum of CUs, which grows by ch's CUs (its proof is the induction
 * below). */
/*@
  requires at < max_out && \valid(out + (0 .. max_out - 1));
  requires out_apart(g, rt, cand, n_cand, out, max_out) && \separated(out + (0 .. max_out - 1), rt_cus);
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && cands_ok(cand, n_cand);
  requires visited_before(out, at, first, n_cand, step) && visited_in_order(out, at, first, n_cand);
  requires visit_step(first, n_cand, ch.candidate) == step;
  assigns out[at];
  ensures stored: out[at] == ch;
  ensures kept: \forall integer j; 0 <= j < at ==> out[j] == \old(out[j]);
  ensures visited: visited_before(out, at + 1, first, n_cand, step + 1);
  ensures in_order: visited_in_order(out, at + 1, first, n_cand);
  ensures frame: g->cus == \old(g->cus) && *rt_cus == \old(*rt_cus);
  ensures frame_rt: same_shape_u32{Pre, Post}(rt);
  ensures frame_cand: \forall integer i; 0 <= i < n_cand ==> same_cand_u32{Pre, Post}(cand + i);
  ensures frame_shapes: \forall integer i, v; 0 <= i < n_cand &&
    \at(cand[i].op->kind, Pre) == ATOLL_OP_KERNEL && 0 <= v <= \at(cand[i].op->n_versions, Pre) ==>
      same_shape_u32{Pre, Post}(atoll_dkp_shape_of{Pre}(cand[i].op, v));
  ensures gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  ensures cands: cands_ok(cand, n_cand);
  ensures apart: out_apart(g, rt, cand, n_cand, out, max_out);
  ensures sum: atoll_dkp_cus_sum(out, at + 1) == \old(atoll_dkp_cus_sum(out, at)) + ch.cus;
*/
static void store_frame(atoll_dkp_choice *out, uint32_t at, atoll_dkp_choice ch)
  /*@ ghost (const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
             uint32_t n_cand, uint32_t max_out, uint32_t *rt_cus, uint32_t first, uint32_t step) */ {
  /*@ assert sep_versions: \forall integer i; 0 <= i < n_cand ==>
        cand[i].op->kind == ATOLL_OP_KERNEL && cand[i].op->n_versions > 0 ==>
          \separated(out + at, cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)); */
  out[at] = ch;
  /*@ assert frame_g: \at(g->cus, Pre) == g->cus && *rt_cus == \at(*rt_cus, Pre) && same_shape_u32{Pre, Here}(rt); */
  /*@ assert frame_left: \forall integer i; 0 <= i < n_cand ==>
        \at(cand[i].blocks_left, Pre) == cand[i].blocks_left; */
  /*@ assert frame_op: \forall integer i; 0 <= i < n_cand ==> same_op_u32{Pre, Here}(cand[i].op); */
  /*@ assert frame_versions: \forall integer i; 0 <= i < n_cand ==> same_versions_u32{Pre, Here}(cand[i].op); */
  /*@ assert frame_cand: \forall integer i; 0 <= i < n_cand ==> same_cand_u32{Pre, Here}(cand + i); */
  /*@ assert frame_shapes: \forall integer i, v; 0 <= i < n_cand &&
        \at(cand[i].op->kind, Pre) == ATOLL_OP_KERNEL && 0 <= v <= \at(cand[i].op->n_versions, Pre) ==>
          same_shape_u32{Pre, Here}(atoll_dkp_shape_of{Pre}(cand[i].op, v)); */
  /*@ assert gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt); */
  /*@ assert cands: cands_ok(cand, n_cand); */
  /*@ assert apart: out_apart(g, rt, cand, n_cand, out, max_out); */
  /*@ assert stored: out[at] == ch; */
  /*@ assert kept: \forall integer j; 0 <= j < at ==> out[j] == \at(out[j], Pre); */
  /*@ assert kept_cand: \forall integer j; 0 <= j < at ==> out[j].candidate == \at(out[j].candidate, Pre); */
  /*@ assert visited: visited_before(out, at + 1, first, n_cand, step + 1); */
  /*@ assert in_order: visited_in_order(out, at + 1, first, n_cand); */
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

/* store_frame, and what its frame gives for each choice: the uint32_t fields atoll_dkp_choice_ok
 * reads are unchanged. */
/*@
  requires at < max_out && \valid(out + (0 .. max_out - 1));
  requires out_apart(g, rt, cand, n_cand, out, max_out) && \separated(out + (0 .. max_out - 1), rt_cus);
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && cands_ok(cand, n_cand);
  requires \forall integer j; 0 <= j < at ==> choice_in(cand, n_cand, out[j]);
  requires choice_in(cand, n_cand, ch);
  requires visited_before(out, at, first, n_cand, step) && visited_in_order(out, at, first, n_cand);
  requires visit_step(first, n_cand, ch.candidate) == step;
  assigns out[at];
  ensures stored: out[at] == ch;
  ensures kept: \forall integer j; 0 <= j < at ==> out[j] == \old(out[j]);
  ensures visited: visited_before(out, at + 1, first, n_cand, step + 1);
  ensures in_order: visited_in_order(out, at + 1, first, n_cand);
  ensures frame: g->cus == \old(g->cus) && *rt_cus == \old(*rt_cus);
  ensures frame_rt: same_shape_u32{Pre, Post}(rt);
  ensures same_kept: \forall integer j; 0 <= j < at ==> same_choice_u32{Pre, Post}(cand, \old(out[j]));
  ensures same_stored: same_choice_u32{Pre, Post}(cand, ch);
  ensures gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  ensures cands: cands_ok(cand, n_cand);
  ensures apart: out_apart(g, rt, cand, n_cand, out, max_out);
  ensures sum: atoll_dkp_cus_sum(out, at + 1) == \old(atoll_dkp_cus_sum(out, at)) + ch.cus;
*/
static void store_choice(atoll_dkp_choice *out, uint32_t at, atoll_dkp_choice ch)
  /*@ ghost (const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
             uint32_t n_cand, uint32_t max_out, uint32_t *rt_cus, uint32_t first, uint32_t step) */ {
  store_frame(out, at, ch) /*@ ghost (g, rt, cand, n_cand, max_out, rt_cus, first, step) */;
  /* Proof only: same_kept one earlier choice at a time, each in three steps (its indices, its
   * candidate's frame, its shape). Proved whole, the goal took CVC4 8.5 s alone and 11-13 s beside
   * other proofs, against WP's 20 s timeout; each step here takes under half a second. The index k
   * names j's value at Pre, where the ghost j does not exist. */
  /*@ ghost
    /@
      loop invariant 0 <= j <= at;
      loop invariant \forall integer j2; 0 <= j2 < j ==> same_choice_u32{Pre, Here}(cand, \at(out[j2], Pre));
      loop assigns j;
      loop variant at - j;
    @/
    for (uint32_t j = 0; j < at; j++) {
      /@ assert in_k: \forall integer k; k == j ==> choice_in{Pre}(cand, n_cand, \at(out[k], Pre)); @/
      /@ assert cand_k: \forall integer k; k == j ==> same_cand_u32{Pre, Here}(cand + \at(out[k], Pre).candidate); @/
      /@ assert one_kept: \forall integer k; k == j ==> same_choice_u32{Pre, Here}(cand, \at(out[k], Pre)); @/
    }
  */
}

/* Stores choice ch at out[at]. A function of its own so that the selection loop gets, ready to
 * use, what one store does: the earlier choices are unchanged and still ok, the stored one is ok,
 * the visit's order holds, the inputs are still valid and apart from out[], and the sum of CUs
 * grows by ch's CUs. That the choices stay ok is shown here, from store_choice's frame, one choice
 * at a time. */
/*@
  requires at < max_out && \valid(out + (0 .. max_out - 1));
  requires out_apart(g, rt, cand, n_cand, out, max_out) && \separated(out + (0 .. max_out - 1), rt_cus);
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && cands_ok(cand, n_cand);
  requires \forall integer j; 0 <= j < at ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
  requires atoll_dkp_choice_ok(g, rt, cand, n_cand, ch);
  requires visited_before(out, at, first, n_cand, step) && visited_in_order(out, at, first, n_cand);
  requires visit_step(first, n_cand, ch.candidate) == step;
  assigns out[at];
  ensures visited: visited_before(out, at + 1, first, n_cand, step + 1);
  ensures in_order: visited_in_order(out, at + 1, first, n_cand);
  ensures frame: g->cus == \old(g->cus) && *rt_cus == \old(*rt_cus);
  ensures gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  ensures cands: cands_ok(cand, n_cand);
  ensures apart: out_apart(g, rt, cand, n_cand, out, max_out);
  ensures ok_kept: \forall integer j; 0 <= j < at ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
  ensures ok_stored: atoll_dkp_choice_ok(g, rt, cand, n_cand, out[at]);
  ensures sum: atoll_dkp_cus_sum(out, at + 1) == \old(atoll_dkp_cus_sum(out, at)) + ch.cus;
*/
static void put_choice(atoll_dkp_choice *out, uint32_t at, atoll_dkp_choice ch)
  /*@ ghost (const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
             uint32_t n_cand, uint32_t max_out, uint32_t *rt_cus, uint32_t first, uint32_t step) */ {
  /*@ assert in_kept: \forall integer j; 0 <= j < at ==> choice_in(cand, n_cand, out[j]); */
  /*@ assert in_stored: choice_in(cand, n_cand, ch); */
  store_choice(out, at, ch) /*@ ghost (g, rt, cand, n_cand, max_out, rt_cus, first, step) */;
  /*@ assert reads_stored: same_reads{Pre, Here}(g, rt, cand, ch); */
  /* Proof only: ok_kept one earlier choice at a time, as store_choice shows same_kept: the choice's
   * indices, its uint32_t fields (same_kept), what atoll_dkp_choice_ok reads, then the choice is
   * still ok. Proved whole, from an assertion of the reads of every earlier choice (3.5 s), it took
   * CVC4 4.7 s alone and timed out (20 s) in a CI run beside three other proofs; alone, each step
   * here takes under a second. */
  /*@ ghost
    /@
      loop invariant 0 <= j <= at;
      loop invariant \forall integer j2; 0 <= j2 < j ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j2]);
      loop assigns j;
      loop variant at - j;
    @/
    for (uint32_t j = 0; j < at; j++) {
      /@ assert in_k: \forall integer k; k == j ==> choice_in{Pre}(cand, n_cand, \at(out[k], Pre)); @/
      /@ assert u32_k: \forall integer k; k == j ==> same_choice_u32{Pre, Here}(cand, \at(out[k], Pre)); @/
      /@ assert reads_k: \forall integer k; k == j ==> same_reads{Pre, Here}(g, rt, cand, \at(out[k], Pre)); @/
      /@ assert ok_k: \forall integer k; k == j ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, \at(out[k], Pre)); @/
    }
  */
}

/* How much of a candidate fits: at most `left` blocks, k per CU for `waves` rounds on each of at
 * most free_cus CUs, and the CUs they take. */
typedef struct dkp_size {
  uint32_t blocks, cus;
} dkp_size;

/*@
  requires 1 <= free_cus <= 65535 && 1 <= k <= 65535 && 1 <= waves;
  requires 1 <= left < 4294967295;
  assigns \nothing;
  ensures 1 <= \result.blocks <= left;
  ensures 1 <= \result.cus <= free_cus;
  ensures atoll_dkp_ceil(\result.blocks, \result.cus * k) <= waves;
*/
static dkp_size size_choice(uint32_t free_cus, uint32_t k, uint32_t waves, uint64_t left) {
  /*@ ghost product_bounds(free_cus, k, waves); */
  uint64_t per_cu = (uint64_t)k * waves; /* the blocks one CU runs in `waves` rounds */
  uint64_t room = per_cu * free_cus;
  uint32_t b = left < room ? (uint32_t)left : (uint32_t)room;
  /*@ assert 1 <= b <= room && b <= left; */
  /*@ ghost ceil_bounds(b, per_cu); */
  /*@ ghost ceil_at_most(b, per_cu, free_cus); */
  uint32_t c = ceil_div32(b, per_cu);
  /*@ assert 1 <= c <= free_cus && c * (k * waves) >= b; */
  /*@ ghost ceil_at_most(b, (uint64_t)c * k, waves); */
  return (dkp_size){.blocks = b, .cus = c};
}

/* The choice candidate idx gives: how much of it fits on free_cus CUs, in its best version; none
 * (cus == 0) when it has no block left, is not a kernel or meets the rules in no version. One step
 * of atoll_dkp_select, a function of its own so that each proof goal of the selection loop stays
 * small; it writes no memory. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  requires idx < n_cand && \valid_read(cand + (0 .. n_cand - 1)) && atoll_dkp_cand_ok(cand + idx);
  requires 1 <= free_cus <= 65535;
  assigns \nothing;
  ensures fits: \result.cus <= free_cus;
  ensures which: \result.cus > 0 ==> \result.candidate == idx;
  ensures ok: \result.cus > 0 ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, \result);
*/
static atoll_dkp_choice choose(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                               uint32_t idx, uint32_t free_cus) /*@ ghost (uint32_t n_cand) */ {
  const atoll_dkp_candidate *c = &cand[idx];
  if (c->blocks_left == 0 || c->op->kind != ATOLL_OP_KERNEL)
    return (atoll_dkp_choice){.cus = 0};
  dkp_best best = best_version(g, rt, c);
  if (best.k == 0)
    return (atoll_dkp_choice){.cus = 0};
  uint64_t left = c->blocks_left == ATOLL_DKP_ALL ? atoll_dim3_count(atoll_dkp_shape(c->op, best.version)->grid)
                                                  : c->blocks_left;
  dkp_size size = size_choice(free_cus, best.k, best.waves, left);
  return (atoll_dkp_choice){
      .candidate = idx, .version = best.version, .blocks = size.blocks, .occupancy = best.k, .cus = size.cus};
}

/* Fills out[] with the choices of the candidates visited from `first` on, wrapping once, on at
 * most free_cus CUs; returns how many it wrote. The loop of atoll_dkp_select, a function of its
 * own so that the loop's proof goals carry no fact from before the loop but this contract. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt) && cands_ok(cand, n_cand);
  requires n_cand > 0 ==> first < n_cand;
  requires free_cus <= 65535;
  requires max_out > 0 ==> \valid(out + (0 .. max_out - 1));
  requires out_apart(g, rt, cand, n_cand, out, max_out) && \separated(out + (0 .. max_out - 1), rt_cus);
  assigns out[0 .. max_out - 1];
  ensures frame: g->cus == \old(g->cus) && *rt_cus == \old(*rt_cus);
  ensures count: \result <= max_out && \result <= n_cand;
  ensures ok: \forall integer j; 0 <= j < \result ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
  ensures distinct: \forall integer j1, j2; 0 <= j1 < j2 < \result ==> out[j1].candidate != out[j2].candidate;
  ensures cus: atoll_dkp_cus_sum(out, \result) <= free_cus;
*/
static uint32_t fill_choices(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                             uint32_t n_cand, uint32_t first, uint32_t free_cus, atoll_dkp_choice *out,
                             uint32_t max_out) /*@ ghost (uint32_t *rt_cus) */ {
  uint32_t left = free_cus, n = 0;
  /*@
    loop invariant bounds: 0 <= i <= n_cand && 0 <= n <= i && n <= max_out;
    loop invariant ok: \forall integer j; 0 <= j < n ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
    loop invariant visited: visited_before(out, n, first, n_cand, i);
    loop invariant in_order: visited_in_order(out, n, first, n_cand);
    loop invariant frame: g->cus == \at(g->cus, Pre) && *rt_cus == \at(*rt_cus, Pre);
    loop invariant free: left <= free_cus;
    loop invariant sum: left + atoll_dkp_cus_sum(out, n) == free_cus;
    loop invariant gpu: atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
    loop invariant cands: cands_ok(cand, n_cand);
    loop invariant apart: out_apart(g, rt, cand, n_cand, out, max_out);
    loop assigns i, n, left, out[0 .. max_out - 1];
    loop variant n_cand - i;
  */
  for (uint32_t i = 0; i < n_cand && left > 0 && n < max_out; i++) {
    uint32_t idx = i < n_cand - first ? first + i : i - (n_cand - first);
    /*@ assert idx < n_cand && visit_step(first, n_cand, idx) == i; */
    atoll_dkp_choice ch = choose(g, rt, cand, idx, left) /*@ ghost (n_cand) */;
    if (ch.cus == 0)
      continue;
    put_choice(out, n, ch) /*@ ghost (g, rt, cand, n_cand, max_out, rt_cus, first, i) */;
    n++;
    left -= ch.cus;
  }
  /*@ assert \forall integer j1, j2; 0 <= j1 < j2 < n ==> out[j1].candidate != out[j2].candidate; */
  return n;
}

uint32_t atoll_dkp_select(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                          uint32_t n_cand, uint32_t start, atoll_dkp_choice *out, uint32_t max_out,
                          uint32_t *rt_cus) {
  uint32_t reserved = atoll_dkp_rt_cus(g, rt);
  put_rt_cus(rt_cus, reserved) /*@ ghost (g, rt, cand, n_cand, out, max_out) */;
  /* Candidates are visited from start % n_cand on, wrapping once. Computing (start + i) % n_cand
   * instead would wrap start + i around UINT32_MAX and could visit a candidate twice. */
  uint32_t first = n_cand > 0 ? start % n_cand : 0;
  return fill_choices(g, rt, cand, n_cand, first, g->cus - reserved, out, max_out) /*@ ghost (rt_cus) */;
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
  lemma rounds_fit_iff_within: \forall integer c, run, block; c >= 0 && run >= 0 && divisor(block) ==>
    (c <= run / block <==> c * block <= run);
*/
