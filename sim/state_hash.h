/* Mixing values into a 64-bit state hash, for the explorer's visited-state set (explore.h); the shape
 * memo keys kernel shapes with the same mixer (kernel_timing.c).
 *
 * The simulated device, its CUs and the runner each fold the parts of their state that decide
 * what happens next into one running hash; statistics that only describe the past are left out.
 * The mixer is splitmix64's finaliser applied to (hash + value): cheap, and every input bit
 * reaches every output bit, so states that differ anywhere hash apart with overwhelming odds. */
#ifndef ATOLL_SIM_STATE_HASH_H
#define ATOLL_SIM_STATE_HASH_H

#include <stdint.h>

static inline uint64_t atoll__hmix(uint64_t h, uint64_t v) {
  uint64_t z = h + v + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* A time that only matters once it is in the future: anything at or before now is now. */
static inline uint64_t atoll__hmix_after(uint64_t h, int64_t t, int64_t now) {
  return atoll__hmix(h, (uint64_t)(t > now ? t : now));
}

#endif
