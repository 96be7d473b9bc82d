/* Dynamic kernel padding (REEF §5): which best-effort blocks may share an RT kernel's launch.
 *
 * Pure functions over profiles, so the policy, the proofs and the tests use the same code.
 * Selection is REEF's greedy policy: reserve the CUs the RT kernel needs, then fill the others
 * from the BE candidates, in turn, with blocks that satisfy
 *   Rule 1: the BE block time is shorter than the RT kernel's time (the padded kernel lasts as
 *           long as its slowest block), and
 *   Rule 2: the BE kernel's occupancy is at least the RT kernel's (the padded kernel runs at the
 *           minimum occupancy of its parts; REEF says "higher", and equal costs the RT kernel
 *           nothing),
 * taking no more BE rounds than fit inside the RT kernel's time, until no CU or candidate is left.
 * The RT kernel's occupancy in Rule 2 is the one it runs at on its reserved CUs: the rounds it
 * needs at one block per CU, ceil(blocks / CUs), at most its own occupancy (atoll_dkp_rt_occupancy;
 * REEF's scheduler compares with this "minimum occupancy" of the RT kernel, not with the most
 * blocks its resources would allow per CU): a padded launch whose resources allow that many blocks
 * per CU keeps every RT block resident as when the kernel runs alone. The BE part then runs k blocks
 * per CU, the most up to both kernels' own occupancies (the padded launch's resources) whose round
 * meets Rule 1 (REEF's scheduler chooses the BE occupancy the same way: fewer blocks per CU share a
 * CU less, so a round is shorter).
 * Times are run times: the profile's isolated times less the GPU's launch_sync overhead, at least
 * 1 us (sim/kernel_timing.h). A BE block's time at the padded launch's occupancy k comes from its
 * per-occupancy list, which REEF measures in the persistent-block form padding runs in: entry k is
 * the whole kernel with k blocks per CU on every CU, so one round of blocks takes that time over
 * the rounds the grid needs, ceil(blocks / (CUs x k)) (atoll_dkp_block_ns). Without a list it is
 * the profile's block_time_us (one block alone). The simulated device runs padded BE
 * blocks for exactly this time, so selection and execution agree. A candidate with several
 * versions (multi-version kernels, §5.3) runs the version with the shortest kernel time among those
 * meeting both rules. */
#ifndef ATOLL_CORE_DKP_H
#define ATOLL_CORE_DKP_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/gpu.h"
#include "atoll/model.h"

/* blocks_left for a candidate none of whose blocks has run: all blocks of the chosen version. */
#define ATOLL_DKP_ALL UINT32_MAX

typedef struct atoll_dkp_candidate {
  const atoll_op *op;      /* the BE kernel its task needs next */
  uint32_t blocks_left;    /* of the op's blocks, neither done nor already padded elsewhere */
  int32_t version;         /* -1: any; else the version the op must keep (it is partly run) */
} atoll_dkp_candidate;

typedef struct atoll_dkp_choice {
  uint32_t candidate;      /* index into the candidates */
  uint32_t version;        /* 0: the op's own shape; v: op->versions[v - 1] */
  uint32_t blocks;         /* how many of its blocks join the launch */
  uint32_t occupancy;      /* its blocks per CU in the padded launch (at most the RT kernel's occupancy) */
  uint32_t cus;            /* CUs they take */
} atoll_dkp_choice;

/* ACSL model, proved by proofs/wp (Frama-C/WP). The predicates state what selection needs of its
 * inputs: what atoll_gpu_is_valid() and atoll_kernel_shape_is_valid() check (a scenario that loads
 * passes both), readable memory, and output storage apart from every input it reads after writing.
 * The logic functions are the times of dkp.c as mathematics: a kernel's run time, one round of BE
 * blocks at k per CU, and how many such rounds fit inside the RT kernel. */
/*@
  logic integer atoll_dkp_count(atoll_dim3 d) = d.x * d.y * d.z;

  logic integer atoll_dkp_ceil(integer a, integer b) = (a + b - 1) / b;

  logic integer atoll_dkp_run_ns(integer profiled, integer overhead) =
    profiled - overhead > 1000 ? profiled - overhead : 1000;

  logic integer atoll_dkp_block_ns_at{L}(atoll_gpu *g, atoll_kernel_shape *s, integer k) =
    (1 <= k && k <= s->n_time_per_occupancy) ?
      (atoll_dkp_run_ns(s->time_per_occupancy_ns[k - 1], g->costs.launch_sync_ns) /
         atoll_dkp_ceil(atoll_dkp_count(s->grid), g->cus * k) > 0 ?
       atoll_dkp_run_ns(s->time_per_occupancy_ns[k - 1], g->costs.launch_sync_ns) /
         atoll_dkp_ceil(atoll_dkp_count(s->grid), g->cus * k) : 1)
    : s->block_time_ns;

  // The blocks per CU the RT kernel runs at on its reserved CUs (Rule 2's side of the RT kernel).
  logic integer atoll_dkp_rt_occ{L}(atoll_gpu *g, atoll_kernel_shape *rt) =
    atoll_dkp_ceil(atoll_dkp_count(rt->grid), g->cus) < rt->occupancy ?
      atoll_dkp_ceil(atoll_dkp_count(rt->grid), g->cus) : rt->occupancy;

  logic integer atoll_dkp_rounds(integer run, integer block) =
    run / block < 4294967295 ? run / block : 4294967295;

  predicate atoll_dkp_gpu_ok{L}(atoll_gpu *g) =
    \valid_read(g) && 1 <= g->cus <= 65535 && g->costs.launch_sync_ns >= 0;

  predicate atoll_dkp_shape_ok{L}(atoll_kernel_shape *s) =
    \valid_read(s) && 1 <= s->grid.x && 1 <= s->grid.y && 1 <= s->grid.z &&
    1 <= atoll_dkp_count(s->grid) < 4294967295 && 1 <= s->occupancy <= 65535 &&
    s->time_ns > 0 && s->block_time_ns > 0 && s->n_time_per_occupancy <= s->occupancy &&
    (s->n_time_per_occupancy > 0 ==>
       \valid_read(s->time_per_occupancy_ns + (0 .. s->n_time_per_occupancy - 1)) &&
       \forall integer i; 0 <= i < s->n_time_per_occupancy ==> s->time_per_occupancy_ns[i] > 0);

  logic atoll_kernel_shape *atoll_dkp_shape_of{L}(atoll_op *op, integer v) =
    v == 0 ? &op->shape : op->versions + (v - 1);

  // A candidate's op is readable, and a kernel op's every version is a valid shape.
  predicate atoll_dkp_cand_ok{L}(atoll_dkp_candidate *c) =
    \valid_read(c) && \valid_read(c->op) &&
    (c->op->kind == ATOLL_OP_KERNEL ==>
       c->op->n_versions < 4294967295 &&
       (c->op->n_versions > 0 ==> \valid_read(c->op->versions + (0 .. c->op->n_versions - 1))) &&
       (\forall integer v; 0 <= v <= c->op->n_versions ==>
          atoll_dkp_shape_ok(atoll_dkp_shape_of(c->op, v))) &&
       -1 <= c->version <= c->op->n_versions);

  // The uint32_t objects selection reads after it has written *rt_cus or out[]: none of them
  // lies in what it writes.
  predicate atoll_dkp_apart{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                               integer n_cand, atoll_dkp_choice *out, integer max_out,
                               uint32_t *rt_cus) =
    \separated(out + (0 .. max_out - 1), rt_cus) &&
    \separated(out + (0 .. max_out - 1), g) && \separated(rt_cus, g) &&
    \separated(out + (0 .. max_out - 1), rt) && \separated(rt_cus, rt) &&
    \separated(out + (0 .. max_out - 1), cand + (0 .. n_cand - 1)) &&
    \separated(rt_cus, cand + (0 .. n_cand - 1)) &&
    \forall integer i; 0 <= i < n_cand ==>
      \separated(out + (0 .. max_out - 1), cand[i].op) && \separated(rt_cus, cand[i].op) &&
      (cand[i].op->kind == ATOLL_OP_KERNEL && cand[i].op->n_versions > 0 ==>
         \separated(out + (0 .. max_out - 1), cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)) &&
         \separated(rt_cus, cand[i].op->versions + (0 .. cand[i].op->n_versions - 1)));

  // Blocks a candidate may still give: its blocks_left, or all blocks of the version chosen.
  logic integer atoll_dkp_left{L}(atoll_dkp_candidate *c, atoll_kernel_shape *s) =
    c->blocks_left == 4294967295 ? atoll_dkp_count(s->grid) : c->blocks_left;

  // One choice meets REEF's rules for RT kernel rt and fits: Rule 2 on the kernels' occupancies,
  // Rule 1 at the BE blocks per CU it runs, its rounds on its CUs end within the RT kernel (the
  // rounds are at most the RT run time over one round's time; dkp.c proves this is the same as
  // rounds x round time <= RT run time), and it takes no more blocks than its candidate has left,
  // in the version the candidate allows.
  predicate atoll_dkp_choice_ok{L}(atoll_gpu *g, atoll_kernel_shape *rt, atoll_dkp_candidate *cand,
                                   integer n_cand, atoll_dkp_choice ch) =
    0 <= ch.candidate < n_cand &&
    cand[ch.candidate].op->kind == ATOLL_OP_KERNEL &&
    (cand[ch.candidate].version >= 0 ? ch.version == cand[ch.candidate].version
                                     : ch.version <= cand[ch.candidate].op->n_versions) &&
    \let s = atoll_dkp_shape_of(cand[ch.candidate].op, ch.version);
    s->occupancy >= atoll_dkp_rt_occ(g, rt) &&
    1 <= ch.occupancy <= rt->occupancy && ch.occupancy <= s->occupancy &&
    (s->n_time_per_occupancy > 0 ==> ch.occupancy <= s->n_time_per_occupancy) &&
    atoll_dkp_block_ns_at(g, s, ch.occupancy) < atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) &&
    1 <= ch.blocks <= atoll_dkp_left(cand + ch.candidate, s) && 1 <= ch.cus &&
    atoll_dkp_ceil(ch.blocks, ch.cus * ch.occupancy) <=
      atoll_dkp_run_ns(rt->time_ns, g->costs.launch_sync_ns) / atoll_dkp_block_ns_at(g, s, ch.occupancy);

  logic integer atoll_dkp_cus_sum{L}(atoll_dkp_choice *out, integer n) =
    n <= 0 ? 0 : atoll_dkp_cus_sum(out, n - 1) + out[n - 1].cus;
*/

/* The shape of version v of a kernel op (0: its own). */
/*@
  requires \valid_read(op) && (v > 0 ==> \valid_read(op->versions + (v - 1)));
  assigns \result \from op, v, op->versions;
  ensures \result == atoll_dkp_shape_of(op, v);
*/
const atoll_kernel_shape *atoll_dkp_shape(const atoll_op *op, uint32_t v);
/* CUs reserved for the RT kernel: as many as it needs to run its blocks in the same number of
 * rounds as alone, ceil(blocks / ceil(blocks / CUs)) — REEF's CU partition, and the CUs the
 * simulated dispatcher spreads a lone kernel over — so padding never slows it. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  assigns \nothing;
  ensures 1 <= \result <= g->cus;
  ensures \result == atoll_dkp_ceil(atoll_dkp_count(rt->grid),
                                    atoll_dkp_ceil(atoll_dkp_count(rt->grid), g->cus));
*/
uint32_t atoll_dkp_rt_cus(const atoll_gpu *g, const atoll_kernel_shape *rt);
/* The blocks per CU the RT kernel runs at on its reserved CUs: ceil(blocks / CUs), at most its own
 * occupancy. Rule 2 compares a BE kernel's occupancy with it. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  assigns \nothing;
  ensures \result == atoll_dkp_rt_occ(g, rt) && 1 <= \result <= rt->occupancy;
*/
uint32_t atoll_dkp_rt_occupancy(const atoll_gpu *g, const atoll_kernel_shape *rt);
/* One round of a BE kernel's blocks in padded form at k blocks per CU (see above), in ns. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(s);
  assigns \nothing;
  ensures \result == atoll_dkp_block_ns_at(g, s, k) && \result >= 1;
*/
int64_t atoll_dkp_block_ns(const atoll_gpu *g, const atoll_kernel_shape *s, uint32_t k);
/* Selects padding for one RT kernel. Candidates are visited in turn starting at `start`. Returns
 * the number of choices written (at most max_out); *rt_cus receives the CUs reserved for RT.
 * Proved: every choice meets Rule 1 and Rule 2 and fits (atoll_dkp_choice_ok), no candidate is
 * chosen twice, and the BE parts' CUs add up to at most the CUs the RT kernel leaves free. */
/*@
  requires atoll_dkp_gpu_ok(g) && atoll_dkp_shape_ok(rt);
  requires n_cand > 0 ==> \valid_read(cand + (0 .. n_cand - 1));
  requires \forall integer i; 0 <= i < n_cand ==> atoll_dkp_cand_ok(cand + i);
  requires max_out > 0 ==> \valid(out + (0 .. max_out - 1));
  requires \valid(rt_cus);
  requires atoll_dkp_apart(g, rt, cand, n_cand, out, max_out, rt_cus);
  assigns *rt_cus, out[0 .. max_out - 1];
  ensures 1 <= *rt_cus <= g->cus;
  ensures 0 <= \result <= max_out && \result <= n_cand;
  ensures \forall integer j; 0 <= j < \result ==> atoll_dkp_choice_ok(g, rt, cand, n_cand, out[j]);
  ensures \forall integer j1, j2; 0 <= j1 < j2 < \result ==> out[j1].candidate != out[j2].candidate;
  ensures atoll_dkp_cus_sum(out, \result) <= g->cus - *rt_cus;
*/
uint32_t atoll_dkp_select(const atoll_gpu *g, const atoll_kernel_shape *rt, const atoll_dkp_candidate *cand,
                          uint32_t n_cand, uint32_t start, atoll_dkp_choice *out, uint32_t max_out,
                          uint32_t *rt_cus);
/* Whether version a dominates b (REEF §5.3): no worse in kernel time, block time, registers,
 * shared memory, block size and block count, and better in at least one. */
bool atoll_dkp_dominates(const atoll_kernel_shape *a, const atoll_kernel_shape *b);
/* Offline pruning: keep[i] = 1 exactly for the versions no other version dominates. Returns how
 * many are kept. */
uint32_t atoll_dkp_prune(const atoll_kernel_shape *const *v, uint32_t n, uint8_t *keep);

#endif
