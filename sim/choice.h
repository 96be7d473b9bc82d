/* Choice points of the simulated device: where the model leaves something open.
 *
 * A real GPU does not fix everything the simulator must decide: how long a block really takes
 * (profiles give one figure; runs vary), which of several ready kernels the dispatcher serves
 * first, when exactly a periodic request arrives, and in which order things that happen at the
 * same instant are seen. Each such point asks a chooser for one option out of a finite set the
 * scenario declares (docs/explore.md lists them):
 *
 *   ATOLL_CHOICE_DURATION  a new wave's duration: nominal, then (1 - spread) and (1 + spread) times
 *                          it, when the scenario's sim.timing_spread is above 0
 *   ATOLL_CHOICE_SERVE     which of n ready kernels of one priority the block dispatcher offers
 *                          free CUs to first (the CP serves its hardware queues in turn)
 *   ATOLL_CHOICE_JITTER    how late an RT request arrives: one of sim.arrival_jitter_us (0 first)
 *   ATOLL_CHOICE_TIE       which of n events due at the same instant, of the same class, runs first
 *
 * Option 0 is always what the simulator did before choices existed (the nominal duration, the
 * dispatcher's own turn, no jitter, scheduling order), so a run with no chooser, or with a chooser
 * that answers 0, is the ordinary simulation. The explorer (explore.h) answers every option in
 * turn. A chooser is asked only when there are at least two options. */
#ifndef ATOLL_SIM_CHOICE_H
#define ATOLL_SIM_CHOICE_H

#include <stdint.h>

typedef enum atoll_choice_kind {
  ATOLL_CHOICE_DURATION = 0,
  ATOLL_CHOICE_SERVE = 1,
  ATOLL_CHOICE_JITTER = 2,
  ATOLL_CHOICE_TIE = 3,
  ATOLL_CHOICE_KINDS = 4
} atoll_choice_kind;

typedef struct atoll_chooser {
  /* Returns an option in [0, n) (n >= 2). */
  uint32_t (*choose)(void *ctx, atoll_choice_kind kind, uint32_t n);
  void *ctx;
} atoll_chooser;

/* The option a choice point takes: 0 without a chooser or with fewer than two options. */
static inline uint32_t atoll_choose(const atoll_chooser *c, atoll_choice_kind kind, uint32_t n) {
  if (!c || !c->choose || n < 2)
    return 0;
  uint32_t k = c->choose(c->ctx, kind, n);
  return k < n ? k : 0;
}

/* A short name of a kind ("duration", "serve", "jitter", "tie"), for replay files and traces. */
static inline const char *atoll_choice_kind_name(atoll_choice_kind k) {
  static const char *const names[] = {"duration", "serve", "jitter", "tie"};
  return (unsigned)k < ATOLL_CHOICE_KINDS ? names[k] : "?";
}

#endif
