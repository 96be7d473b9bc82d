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

/* The shape of version v of a kernel op (0: its own). */
const atoll_kernel_shape *atoll_dkp_shape(const atoll_op *op, uint32_t v);
/* CUs reserved for the RT kernel: as many as it needs to run its blocks in the same number of
 * rounds as alone, ceil(blocks / ceil(blocks / CUs)) — REEF's CU partition, and the CUs the
 * simulated dispatcher spreads a lone kernel over — so padding never slows it. */
uint32_t atoll_dkp_rt_cus(const atoll_gpu *g, const atoll_kernel_shape *rt);
/* The blocks per CU the RT kernel runs at on its reserved CUs: ceil(blocks / CUs), at most its own
 * occupancy. Rule 2 compares a BE kernel's occupancy with it. */
uint32_t atoll_dkp_rt_occupancy(const atoll_gpu *g, const atoll_kernel_shape *rt);
/* One round of a BE kernel's blocks in padded form at k blocks per CU (see above), in ns. */
int64_t atoll_dkp_block_ns(const atoll_gpu *g, const atoll_kernel_shape *s, uint32_t k);
/* Selects padding for one RT kernel. Candidates are visited in turn starting at `start`. Returns
 * the number of choices written (at most max_out); *rt_cus receives the CUs reserved for RT. */
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
