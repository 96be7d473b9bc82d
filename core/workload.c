/* Arrival generation: xoshiro256** seeded through splitmix64, one stream per client. */
#include "core/workload.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

void atoll_rng_seed(atoll_rng *r, uint64_t seed, uint64_t stream) {
  uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
  for (int i = 0; i < 4; i++)
    r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t atoll_rng_next(atoll_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

double atoll_rng_unit(atoll_rng *r) {
  /* 53 random bits mapped to (0, 1]. */
  return (double)((atoll_rng_next(r) >> 11) + 1) * 0x1.0p-53;
}

void atoll_client_gen_init(atoll_client_gen *g, const atoll_arrival *a, double rate_hz, uint64_t seed,
                           uint32_t client_index) {
  *g = (atoll_client_gen){.kind = a->kind, .rate_hz = rate_hz, .times_ns = a->times_ns, .n_times = a->n_times,
                          .repeat_ns = a->repeat_ns, .step_at_ns = a->step_at_ns, .step_rate_hz = a->step_rate_hz,
                          .n_steps = a->n_steps};
  atoll_rng_seed(&g->rng, seed, client_index + 1);
}

/* Arrivals beyond ~146 years are never reached by a run; stopping there keeps the arithmetic far
 * from int64 overflow however small a rate is. */
#define HORIZON_NS 4.6e18

int64_t atoll_client_gen_next(atoll_client_gen *g) {
  int64_t t = -1;
  switch (g->kind) {
  case ATOLL_ARRIVAL_UNIFORM: {
    /* Arrival k at k / rate, computed from k (not by accumulation) so rounding never drifts. */
    double at = (double)g->emitted * 1e9 / g->rate_hz;
    if (!(at < HORIZON_NS))
      return -1;
    t = (int64_t)llround(at);
    break;
  }
  case ATOLL_ARRIVAL_POISSON: {
    double at = (double)(g->emitted ? g->last_ns : 0) - log(atoll_rng_unit(&g->rng)) * 1e9 / g->rate_hz;
    if (!(at < HORIZON_NS))
      return -1;
    t = (int64_t)llround(at);
    break;
  }
  case ATOLL_ARRIVAL_TRACE: {
    uint64_t round = g->emitted / g->n_times, i = g->emitted % g->n_times;
    if (round > 0 && g->repeat_ns == 0)
      return -1;
    t = (int64_t)round * g->repeat_ns + g->times_ns[i];
    break;
  }
  case ATOLL_ARRIVAL_STEP: {
    /* Poisson within a step; a gap that reaches past the step's end is drawn again from the next
     * step's start at its rate (the process is memoryless, so this is Poisson at the new rate). */
    double from = (double)(g->emitted ? g->last_ns : 0), at;
    for (;;) {
      double rate = g->step_rate_hz[g->step];
      double end = g->step + 1 < g->n_steps ? (double)g->step_at_ns[g->step + 1] : HORIZON_NS;
      at = rate > 0 ? from - log(atoll_rng_unit(&g->rng)) * 1e9 / rate : HORIZON_NS;
      if (at < end)
        break;
      if (g->step + 1 >= g->n_steps)
        return -1;
      g->step++;
      from = (double)g->step_at_ns[g->step];
    }
    t = (int64_t)llround(at);
    break;
  }
  case ATOLL_ARRIVAL_CLOSED:
    return -1;
  }
  if (t < g->last_ns)
    t = g->last_ns;
  g->last_ns = t;
  g->emitted++;
  return t;
}
