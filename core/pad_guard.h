/* Padding guard: atoll's addition to REEF's dynamic kernel padding (docs/simulator.md, "Dynamic
 * kernel padding"). REEF's Rules 1 and 2 (core/dkp.c) keep a BE part inside its RT kernel, but a
 * padded RT kernel still pays the proxy kernel's overhead (dkp_overhead_ppm of its run time, and
 * kernel_select_us of host time per launch). On an RT client loaded near the GPU's capacity that
 * overhead is more work than the RT queue can absorb, and the queue grows without bound (DISB B:
 * RT mean 6.0x under padding against 1.00x without).
 *
 * The guard pads only with slack the RT client has shown: the time the RT queue stood empty (the
 * scheduler in normal mode) is the slack, measured online. Every padded launch spends its overhead
 * from that credit, and a launch whose overhead the credit cannot pay runs unpadded. Padding
 * therefore adds to the RT queue at most what idle time has already absorbed, plus the cap: the
 * credit is capped at one RT request's whole padding overhead, so slack saved during a long idle
 * spell cannot be spent later as a backlog of more than one request's overhead. The credit starts
 * full: before the first RT request there is no backlog to protect. The policy applies the guard
 * only when some RT client is open-loop: a closed-loop client cannot build a queue (core/preempt.c).
 *
 * Pure arithmetic, proved with Frama-C/WP (proofs/run padguard): the credit stays within [0, cap],
 * a launch is allowed exactly when the credit covers its cost, and an allowed launch spends exactly
 * its cost. */
#ifndef ATOLL_CORE_PAD_GUARD_H
#define ATOLL_CORE_PAD_GUARD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct atoll_pad_guard {
  int64_t credit_ns; /* slack not yet spent, in [0, cap] */
} atoll_pad_guard;

/*@
  predicate atoll_pad_guard_ok(atoll_pad_guard *g, integer cap) = 0 <= g->credit_ns <= cap;
*/

/* Adds idle_ns of measured slack (negative counts as none), keeping the credit at most cap_ns. */
/*@
  requires \valid(g);
  requires 0 <= cap_ns;
  requires atoll_pad_guard_ok(g, cap_ns);
  assigns g->credit_ns;
  ensures atoll_pad_guard_ok(g, cap_ns);
  ensures idle_ns <= 0 ==> g->credit_ns == \old(g->credit_ns);
  ensures idle_ns > 0 ==> g->credit_ns == \min(cap_ns, \old(g->credit_ns) + idle_ns);
*/
void atoll_pad_guard_add(atoll_pad_guard *g, int64_t idle_ns, int64_t cap_ns);

/* Whether a padded launch costing cost_ns may run; if so, its cost is spent from the credit. */
/*@
  requires \valid(g);
  requires 0 <= g->credit_ns;
  requires 0 <= cost_ns;
  assigns g->credit_ns;
  behavior pays:
    assumes cost_ns <= g->credit_ns;
    ensures \result == \true;
    ensures g->credit_ns == \old(g->credit_ns) - cost_ns;
  behavior refused:
    assumes cost_ns > g->credit_ns;
    ensures \result == \false;
    ensures g->credit_ns == \old(g->credit_ns);
  complete behaviors;
  disjoint behaviors;
*/
bool atoll_pad_guard_take(atoll_pad_guard *g, int64_t cost_ns);

/* The overhead of one padded launch of an RT kernel that runs run_ns alone: the proxy kernel's
 * share of its run time (ppm parts per million, run_ns * ppm / 10^6 rounded down) plus the host's
 * kernel selection. Saturates at INT64_MAX instead of overflowing. The proof covers the absence of
 * overflow and the bound below; the exact value is tested (tests/core/test_pad_guard.c), since
 * the solvers do not prove the split division's identity. */
/*@
  requires 0 <= run_ns;
  requires 0 <= select_ns;
  requires ppm < 1000000;
  assigns \nothing;
  ensures select_ns <= \result;
*/
int64_t atoll_pad_guard_cost(int64_t run_ns, uint32_t ppm, int64_t select_ns);

#endif
