/* Exhaustive schedule exploration (`atoll explore`): every answer of every choice point of the
 * simulated device (choice.h), over the sets the scenario declares, and the worst value of each
 * `expect:` quantity over all of them.
 *
 * The search is depth-first and stateless: a schedule is a list of choices, and each run starts
 * the simulation afresh, replaying the list up to the choice to change next and taking option 0
 * after it (the device is never copied; docs/explore.md compares the two designs). Between events,
 * once past the replayed part, the run's state is hashed (atoll_sim_state_hash) into a visited
 * set; a state seen before ends the run, since everything that can follow it was explored when
 * it was first reached. What a cut-off run has already produced is kept:
 *  - fold mode (every bound is an upper bound on a latency maximum): the hash leaves finished
 *    requests out and a cut-off run's maxima so far are folded into the worst values;
 *  - exact mode (other bounds): the hash includes every request and preemption record, so a state
 *    seen before also had the same past, and the run's report would repeat an explored one's;
 *  - no pruning when a bound reads GPU busy time (integrals over the whole past).
 * The search is finite because the scenario's requests are finite (its arrivals within duration)
 * and every choice set is. */
#ifndef ATOLL_SIM_EXPLORE_H
#define ATOLL_SIM_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "sim/replay.h"

typedef enum atoll_explore_mode { ATOLL_EXPLORE_FOLD, ATOLL_EXPLORE_EXACT, ATOLL_EXPLORE_NO_PRUNING } atoll_explore_mode;

typedef struct atoll_explore_opts {
  uint64_t max_states;  /* stop after this many distinct states; 0: no limit */
  double max_seconds;   /* stop after this much wall time; 0: no limit */
  bool no_pruning;      /* run every schedule to its end (tests compare the pruned search with it) */
  /* NULL, or called now and then (it must not touch the search). */
  void (*progress)(void *ctx, uint64_t states, uint64_t schedules);
  void *progress_ctx;
} atoll_explore_opts;

/* One expect: quantity over every explored schedule. */
typedef struct atoll_explore_bound {
  double worst;    /* max for <, <= bounds, min for >, >=; NAN when no schedule defined it */
  bool holds;      /* held on every explored schedule */
  double margin;   /* of the worst value (> 0 inside the bound) */
} atoll_explore_bound;

typedef struct atoll_explore_result {
  atoll_explore_mode mode;
  bool complete;           /* every schedule was explored */
  const char *why;         /* when not complete: why (static text) */
  uint64_t schedules;      /* runs that reached the end of the scenario */
  uint64_t pruned;         /* runs ended at a state seen before */
  uint64_t states;         /* distinct states between events */
  uint64_t choices;        /* choice points answered, over all runs (replayed ones included) */
  uint64_t events;         /* device events simulated, over all runs */
  uint64_t replayed_events; /* of those, events simulated again to reach a run's first new choice */
  uint32_t max_depth;      /* the longest schedule, in choices */
  uint32_t choice_points[ATOLL_CHOICE_KINDS]; /* choice points of each kind in the nominal run */
  uint64_t unfinished;     /* schedules that left a request unfinished at the end of the run */
  double worst_rt_latency_us; /* over every RT request of every schedule; NAN without RT requests */
  double nominal_rt_latency_us; /* the same in the nominal schedule (the ordinary simulation) */
  /* The same with every wave at its shortest and at its longest (other choices nominal): the
   * extremes alone, which timing anomalies make no bound on the worst (docs/explore.md). */
  double all_min_rt_latency_us, all_max_rt_latency_us;
  atoll_explore_bound *bounds; /* per scenario expect */
  bool violated;
  int32_t witness_expect;  /* the violated bound the witness shows (index), -1 none */
  atoll_choice_rec *witness; /* its schedule */
  uint32_t n_witness;
  double wall_s;
} atoll_explore_result;

/* Explores s (its sim.engine is taken as blocks, the exact engine). Returns 0 (see out->complete
 * and out->violated), ATOLL_ENOTSUP for a policy the core lacks, ATOLL_ENOMEM. Free with
 * atoll_explore_free. */
int atoll_explore_run(const atoll_scenario *s, const atoll_explore_opts *o, atoll_explore_result *out);
void atoll_explore_free(atoll_explore_result *r);
const char *atoll_explore_mode_name(atoll_explore_mode m);

#endif
