/* Knee points (GSLICE §2.1.3, docs/gslice.md): a model's standalone latency and throughput over
 * its GPU% share, from the simulated GPU, and the share beyond which more barely helps. */
#ifndef ATOLL_SIM_KNEE_H
#define ATOLL_SIM_KNEE_H

#include <stdint.h>

#include "atoll/gpu.h"
#include "atoll/scenario.h"

typedef struct atoll_knee_point {
  uint32_t pct;
  double latency_us;     /* one batch of `batch` requests, alone on the share */
  double throughput_rps; /* batch / latency */
} atoll_knee_point;

/* GPU% from 10 to 100 in steps of 5. */
enum { ATOLL_KNEE_FIRST = 10, ATOLL_KNEE_STEP = 5, ATOLL_KNEE_POINTS = 19 };
/* The knee rule: the smallest GPU% whose throughput is within ATOLL_KNEE_TOL_PCT % of the best
 * throughput of the sweep (what the rest of the GPU would add is under that). */
enum { ATOLL_KNEE_TOL_PCT = 10 };
/* How long a knee run on gpu may last, in simulated ns: a year, as the longest scenario, or less
 * where the GPU's CUs would overflow the busy-CU accounting (CU-ns in 64 bits) sooner. */
int64_t atoll_knee_span_ns(const atoll_gpu *gpu);

/* Sweeps model m (named `name`) alone on gpu at batch b (>= 1) over the shares: curve gets
 * ATOLL_KNEE_POINTS points, *knee_pct the knee. 0 or an error code: ATOLL_ERANGE when a batch
 * does not complete within atoll_knee_span_ns of simulated time at some share. */
int atoll_sim_knee(const atoll_gpu *gpu, const char *name, const atoll_model *m, uint32_t batch,
                   atoll_knee_point curve[ATOLL_KNEE_POINTS], uint32_t *knee_pct);
/* The knee rule alone, over n points in increasing pct. */
uint32_t atoll_knee_of(const atoll_knee_point *curve, uint32_t n);

/* gslice's starting shares (docs/gslice.md): every client of `clients` (a copy of s's, which it
 * changes) that has no share: or cus: gets its model's knee at batch 1 on s's GPU; when the
 * knees of a GPU's clients ask for more than what the given shares leave, weighted max-min
 * fairness (weights: the knees) cuts them, down to the policy's step grid (at least one step). */
int atoll_sim_gslice_start(const atoll_scenario *s, atoll_client *clients);

#endif
