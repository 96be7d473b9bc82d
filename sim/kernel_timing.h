/* How long a kernel's blocks take on the simulated GPU, prepared once per (model, op).
 *
 * Timing model (docs/simulator.md):
 *  - Isolated timings (a profile's time_us and time_per_occupancy_us) include the host's launch
 *    and synchronisation around one kernel (the preset's launch_sync_us); back-to-back launches
 *    hide it, so it is removed first.
 *  - A kernel launched normally on an idle GPU takes its measured time_us less that overhead: the
 *    block time is solved from it, given the waves and the sharing slowdown below. (The
 *    per-occupancy list describes the persistent-block padding form, which for some kernels runs
 *    far faster than a normal launch — alexnet's largest convolution: 3884 us normally, 146 us
 *    padded — so it gives the sharing shape, not the normal-launch time.)
 *  - A block alone on a CU runs for bt1. Blocks resident on one CU
 *    share it: each block needs a fraction u of the CU's throughput, and when the resident demand
 *    D (sum of u) exceeds 1 every block on that CU runs D times slower. A block's duration is fixed
 *    when it starts, from the demand on its CU at that moment (including itself).
 *  - u is fitted per kernel to the kernel's own per-occupancy list (the slowdown it measured with
 *    k blocks per CU); a kernel without a list gets u = 1/occupancy (saturating exactly at full
 *    occupancy). Nothing is fitted per scenario.
 *  - A block occupies registers_per_cu / occupancy of a CU's register file, so a kernel alone fits
 *    exactly `occupancy` blocks per CU and kernels of several streams share CUs by that measure. */
#ifndef ATOLL_SIM_KERNEL_TIMING_H
#define ATOLL_SIM_KERNEL_TIMING_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/gpu.h"
#include "atoll/model.h"

enum { ATOLL_DEMAND_ONE = 1024 }; /* fixed-point unit of CU demand: 1024 = one whole CU */
/* Fixed-point unit of memory demand: the GPU's whole memory bandwidth. */
#define ATOLL_MEM_ONE (UINT64_C(1) << 20)
/* The shortest normal-launch run time a kernel is given when its isolated time is no longer than
 * the launch overhead (REEF's profiles quantize at 2 us and their shortest kernels read 12 us). */
enum { ATOLL_MIN_KERNEL_NS = 1000 };

typedef struct atoll_kernel_timing {
  uint8_t is_copy;
  uint32_t blocks;       /* grid size */
  uint32_t block_units;  /* register-file units one block occupies */
  uint32_t demand;       /* u, in ATOLL_DEMAND_ONE units */
  int64_t bt1_ns;        /* block time alone on a CU, launch overhead removed */
  int64_t copy_ns;       /* memcpy/memset: the copy engine's time */
  /* Memory interference (docs/simulator.md, "Memory interference"): the share of the GPU's memory
   * bandwidth one block draws when it runs at its own speed (bytes per block over bt1, over the
   * bandwidth), in ATOLL_MEM_ONE units; 0: no intensity known, or no bandwidth in the preset. */
  uint64_t mem;
  /* The most the kernel draws alone (mem times the blocks it keeps resident on its CUs of an idle
   * GPU; set for the whole GPU here, for the job's own CUs by atoll_cu_add): its measured time
   * already includes contention up to this, so only demand above it slows it. */
  uint64_t mem_alone;
} atoll_kernel_timing;

/* A block's time under `demand` (ATOLL_DEMAND_ONE units per CU; less than one CU's worth counts as
 * one): bt1 stretched in proportion, as every CU engine times a wave. The product passes 64 bits
 * only for blocks of days under contention (bt1 of 1.4e14 ns at 64 blocks' demand per CU); it is
 * then taken in 128 bits and capped at ATOLL_MAX_WAVE_NS. It wrapped there before, to a negative
 * or a far shorter time. */
#define ATOLL_MAX_WAVE_NS (INT64_MAX / 4)
static inline int64_t atoll_stretch_ns(int64_t bt1_ns, uint64_t demand) {
  int64_t d = (int64_t)(demand > ATOLL_DEMAND_ONE ? demand : ATOLL_DEMAND_ONE), p;
  if (!__builtin_mul_overflow(bt1_ns, d, &p))
    return p / ATOLL_DEMAND_ONE;
  __int128 q = (__int128)bt1_ns * d / ATOLL_DEMAND_ONE;
  return q < ATOLL_MAX_WAVE_NS ? (int64_t)q : ATOLL_MAX_WAVE_NS;
}

void atoll_kernel_timing_prepare(const atoll_gpu *g, const atoll_model *m, uint32_t op, atoll_kernel_timing *out);
/* The same for one kernel shape (a version of a multi-version kernel). */
void atoll_kernel_timing_prepare_shape(const atoll_gpu *g, const atoll_kernel_shape *s, atoll_kernel_timing *out);
/* Whether a and b agree in every field atoll_kernel_timing_prepare_shape reads (the grid's size,
 * occupancy, time, per-occupancy list), so that on one GPU they get the same timing; and a hash of
 * those fields, equal for such shapes (sim/shape_memo.h). */
bool atoll_kernel_shape_times_alike(const atoll_kernel_shape *a, const atoll_kernel_shape *b);
uint64_t atoll_kernel_shape_timing_hash(const atoll_kernel_shape *s);
/* Turns a BE kernel's timing (version `version` of op) into that of its blocks inside a padded launch at k blocks per CU:
 * REEF's persistent-block form, each round of k blocks per CU taking the time its per-occupancy
 * list measured (atoll_dkp_block_ns, the time the selection's Rule 1 used), k to a CU with no
 * further sharing slowdown. */
void atoll_kernel_timing_padded(const atoll_gpu *g, const atoll_op *op, uint32_t version, uint32_t k,
                                atoll_kernel_timing *t);
/* Turns op's timing at batch 1 into its timing at batch b (docs/simulator.md, "Batching"). A
 * kernel with a measured batch table (atoll_op.batch_times) keeps its grid and its blocks take
 * longer by the ratio of the measured times (interpolated linearly between the table's points,
 * extrapolated from its last two); one without runs b times its grid through the same CU model.
 * A copy moves b times its bytes. b <= 1 leaves t as it is. */
void atoll_kernel_timing_batch(const atoll_gpu *g, const atoll_op *op, uint32_t b, atoll_kernel_timing *t);
/* The kernel's time at batch b from its measured table (time_ns at batch 1), as above. */
int64_t atoll_batch_table_ns(const atoll_op *op, uint32_t b);
/* Sets t's memory demand (mem, mem_alone) from the bytes one block moves (the op's bytes_per_block)
 * and the preset's bandwidth, after t's blocks and bt1 are final (prepare and batch call it; a
 * padded part has none). */
void atoll_kernel_timing_memory(const atoll_gpu *g, uint64_t bytes_per_block, atoll_kernel_timing *t);
/* A block's duration stretched by memory interference: dur when the kernel has no memory demand
 * or the resident demand `resident` (every resident block's, the new ones included) is within what
 * it draws alone or the bandwidth; otherwise bt1 times resident over the larger of those two, when
 * that is longer than dur (the scarcer of CU and memory throughput decides). */
int64_t atoll_mem_stretch(const atoll_kernel_timing *t, uint64_t resident, int64_t dur);
/* The fitted per-block demand for a shape (exposed for tests and the calibration tool). */
uint32_t atoll_fit_demand(const atoll_kernel_shape *s, uint32_t cus, int64_t overhead_ns);
/* A kernel's simulated time alone on an idle GPU (no CP cost): waves x block time x slowdown. */
int64_t atoll_kernel_alone_ns(const atoll_gpu *g, const atoll_kernel_timing *t);

#endif
