/* Padding guard arithmetic (pad_guard.h explains the guard; proofs/run padguard proves it). */
#include "core/pad_guard.h"

void atoll_pad_guard_add(atoll_pad_guard *g, int64_t idle_ns, int64_t cap_ns) {
  if (idle_ns <= 0)
    return;
  /* credit <= cap, so cap - credit cannot overflow; comparing with it avoids credit + idle. */
  if (idle_ns >= cap_ns - g->credit_ns)
    g->credit_ns = cap_ns;
  else
    g->credit_ns += idle_ns;
}

bool atoll_pad_guard_take(atoll_pad_guard *g, int64_t cost_ns) {
  if (cost_ns > g->credit_ns)
    return false;
  g->credit_ns -= cost_ns;
  return true;
}

int64_t atoll_pad_guard_cost(int64_t run_ns, uint32_t ppm, int64_t select_ns) {
  /* run_ns / 10^6 * ppm + the remainder's share: run_ns * ppm could overflow for long kernels. */
  int64_t share = run_ns / 1000000 * (int64_t)ppm + run_ns % 1000000 * (int64_t)ppm / 1000000;
  if (share > INT64_MAX - select_ns)
    return INT64_MAX;
  return share + select_ns;
}
