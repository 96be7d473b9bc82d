/* nverify.h — `--verify` for native runs: every completed request's output against references.
 *
 * Two checks, because devices round transcendental functions differently (docs/native-gpu.md):
 *   - same device, bit for bit: the reference of a request is an uninterrupted run of the same
 *     model on the same kind of device with the same input (make_input(seq)). Preemption, kills,
 *     restores and padding must not change one bit of it. This is the run's verify count.
 *   - CPU build, within the libm tolerance, op by op: for the first `cpu_sample` requests of each
 *     client, the reference pass runs one op at a time, and every kernel's written tensors are
 *     compared with the CPU build's kernel (atoll_nmodel_run_blocks) run on the same inputs, read
 *     back from the device, element by element within |diff| <= ATOLL_NVERIFY_ABS_TOL +
 *     ATOLL_NVERIFY_REL_TOL * |cpu| (the self-test's tolerance): the device's kernels compute the
 *     model, not just something stable. Per kernel, as the self-test does, because rounding
 *     differences grow through a whole model beyond any per-element tolerance.
 *
 * Cost: the references run after the run, in a second pass on a second instance of the device
 * (its own queue, tensors and completion callback), one request after another with all its ops
 * submitted at once: about the model's standalone latency per request. The op-by-op sample adds
 * read-backs and CPU kernels for `cpu_sample` requests per client, whatever the run's length. */
#ifndef ATOLL_NATIVE_NVERIFY_H
#define ATOLL_NATIVE_NVERIFY_H

#include <stddef.h>
#include <stdint.h>

#include "native/backend.h"
#include "native/models/nmodel.h"

#define ATOLL_NVERIFY_ABS_TOL 1e-6
#define ATOLL_NVERIFY_REL_TOL 1e-5
#define ATOLL_NVERIFY_CPU_SAMPLE 4

typedef struct atoll_nverify_counts {
  uint32_t compared, mismatches;         /* same device, bit for bit */
  uint32_t cpu_requests, cpu_launches;   /* CPU build: requests and kernel launches compared */
  uint32_t cpu_bit_exact;                /* of the launches, bit-identical */
  uint32_t cpu_out_of_tolerance;         /* of the launches, outside the libm tolerance */
  double cpu_max_abs_diff;
} atoll_nverify_counts;

/* One client's completed requests: seqs[i] made the input, outputs[i] holds the output tensor.
 * Opens its own instance of back-end `ops` with `cfg`'s device settings. Adds to *counts. Returns 0,
 * or an error code with err set (the device could not run the references). */
int atoll_nverify_client(const atoll_nbackend_ops *ops, const atoll_nbackend_cfg *cfg, const atoll_nmodel *nm,
                         const uint64_t *seqs, const void *const *outputs, uint32_t n, uint32_t cpu_sample,
                         atoll_nverify_counts *counts, char *err, size_t err_len);

/* Whether float arrays a (device) and ref (CPU build) of n elements agree within the tolerance;
 * the largest |a - ref| goes to *max_abs (when larger than it). */
int atoll_nverify_within_tolerance(const float *a, const float *ref, size_t n, double *max_abs);

#endif
