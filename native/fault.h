/* fault.h — fault injection in the native runtime (`atoll native --inject`, docs/native-faults.md).
 *
 * Two faults, each with a probability per occasion:
 *   - kernel: the back-end reports a kernel launch as ATOLL_ND_FAULT instead of running it (a
 *     device error such as an illegal address). The CPU back-end decides at the launch's prologue,
 *     so the launch runs no block; padded launches (an RT kernel with BE parts) are never faulted;
 *   - alloc: a request's host buffers (its input and output) cannot be allocated when its client
 *     sends it.
 * Either fails that request alone: it is reported failed (per client count and the first error),
 * its output is not compared, and the runtime goes on serving every other request.
 *
 * Decisions are a hash of (seed, fault kind, a key naming the occasion: a launch's tag, a
 * request's client and sequence number) compared with the probability, so they need no shared
 * state between threads and one run's choices do not depend on another thread's timing. */
#ifndef ATOLL_NATIVE_FAULT_H
#define ATOLL_NATIVE_FAULT_H

#include <stddef.h>
#include <stdint.h>

typedef struct atoll_nfault_cfg {
  double kernel_p; /* probability that a kernel launch faults */
  double alloc_p;  /* probability that a request's host buffers cannot be allocated */
  uint64_t seed;
} atoll_nfault_cfg;

/* Why a request failed (atoll_request_record.failed); a launch the device refused is the driver's
 * own kind, ATOLL_RUN_FAILED_LAUNCH (run/results.h). */
enum { ATOLL_NFAULT_KERNEL = 1, ATOLL_NFAULT_ALLOC = 2 };

/* splitmix64's finalizer: a well-mixed 64-bit function of its input. */
static inline uint64_t atoll_nfault_mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/* Whether occasion `key` of fault `kind` is hit with probability p. */
static inline int atoll_nfault_hit(double p, uint64_t seed, uint32_t kind, uint64_t key) {
  if (!(p > 0))
    return 0;
  if (p >= 1)
    return 1;
  uint64_t h = atoll_nfault_mix(atoll_nfault_mix(seed ^ ((uint64_t)kind << 56)) ^ key);
  return (double)(h >> 11) * 0x1p-53 < p;
}

/* Parses "kernel:P,alloc:P" (either part may be left out; P in [0, 1]) into cfg (seed untouched).
 * Returns 0, or ATOLL_EINVAL with the reason in err. Defined in runtime/nfault.c. */
int atoll_nfault_parse(const char *text, atoll_nfault_cfg *cfg, char *err, size_t err_len);

#endif
