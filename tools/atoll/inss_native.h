/* `atoll fit inss --device D`: InSS's model fitted from co-location runs on a native device
 * (docs/inss.md, "Native"). The fit is sim/inss_fit.c's; this gives it a runner that runs each of
 * its scenarios for real (sim/ cannot call native/) and the plan a small CPU device can run in
 * seconds. */
#ifndef ATOLL_TOOLS_INSS_NATIVE_H
#define ATOLL_TOOLS_INSS_NATIVE_H

#include "native/runtime/nrun.h"
#include "sim/inss_fit.h"
#include "tools/atoll/inss_disturb.h"

typedef struct atoll_inss_native_ctx {
  atoll_native_opts no; /* device, CUs, pinning, the scenario's native models */
  uint32_t runs;        /* native runs so far */
  char err[256];        /* why the last run failed */
  /* Outside disturbance (tools/atoll/inss_disturb.h): blocks timed and descheduled, requests marked. */
  atoll_inss_disturb_stats disturb;
  uint32_t disturbed_requests;
} atoll_inss_native_ctx;

/* atoll_inss_runner over atoll_native_run (ctx: an atoll_inss_native_ctx). */
int atoll__inss_native_runner(const atoll_scenario *s, void *ctx, atoll_run_results *res);

/* The native plan for a device of `cus` CUs (2-4; the shares are whole CUs): the solo grid at
 * batches 1-4 on every whole number of CUs, then 16 co-location sets of 2 to min(cus, 4) models at
 * batches 1-4, 6 solo and 10 co-located batches per client (the first not counted) 2x their
 * predicted latency apart, their median, batches that queued behind the one before not counted;
 * all of it in 3 rounds, each figure the median of its rounds, one whose rounds disagree by over
 * 1.25x measured again up to 5 times in all; a batch that ran while another process held a CU
 * worker's CPU (tools/atoll/inss_disturb.h) not counted, its run measured again up to 4 times;
 * the cache term fitted, each model's L2 line its memory traffic alone over gb_s (GB/s; 1 where
 * the preset gives no bandwidth). pcts must hold 4 entries. */
void atoll__inss_fit_native(atoll_inss_fit_plan *p, uint32_t cus, double gb_s, uint32_t *pcts,
                            atoll_inss_native_ctx *ctx);

#endif
