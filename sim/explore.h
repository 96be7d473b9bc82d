/* Exhaustive schedule exploration (`atoll explore`): every answer of every choice point of the
 * simulated device (choice.h), over the sets the scenario declares, and the worst value of each
 * `expect:` quantity over all of them.
 *
 * The search is depth-first over lists of choices: a run replays the list up to the choice to
 * change next and takes option 0 after it. It does not replay from the start: each worker keeps
 * checkpoints (run.h), the simulator's state saved after each event that answered choices, and a
 * run resumes from the last one before the choice it changes (docs/explore.md). Between events,
 * once past the replayed part, the run's state is hashed (atoll_sim_state_hash) into a visited
 * set; a state seen before ends the run, since everything that can follow it was explored when
 * it was first reached. What a cut-off run has already produced is kept:
 *  - fold mode (every bound is an upper bound on a latency maximum): the hash leaves finished
 *    requests out and a cut-off run's maxima so far are folded into the worst values;
 *  - exact mode (other bounds): the hash includes every request and preemption record, so a state
 *    seen before also had the same past, and the run's report would repeat an explored one's;
 *  - no pruning when a bound reads GPU busy time (integrals over the whole past).
 * With more than one worker thread, idle workers steal subtrees (choice prefixes) from busy ones
 * and all share the visited set (explore.c says how). Several processes share a search through
 * atoll_explore_net, below.
 * The search is finite because the scenario's requests are finite (its arrivals within duration)
 * and every choice set is. */
#ifndef ATOLL_SIM_EXPLORE_H
#define ATOLL_SIM_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "sim/replay.h"

typedef enum atoll_explore_mode { ATOLL_EXPLORE_FOLD, ATOLL_EXPLORE_EXACT, ATOLL_EXPLORE_NO_PRUNING } atoll_explore_mode;

/* A search over several processes whose visited set is partitioned by state hash (MPI ranks,
 * docs/scale-out.md): every state has one owner process, which alone counts it. One state in
 * `every` (chosen by its hash) is a handover point: a worker that reaches a new point another
 * process owns hands it over (its hash and the choices that reach it) and ends its run there, as
 * at a state seen before; the owner keeps it if it is new there and searches below it. Other
 * states are explored by whichever process reaches them (each keeps its own set of them too) and
 * only their hashes go to their owners. So a state two processes reach is explored by both only
 * up to the next handover points, which one explores; the owners' counts add up to the
 * sequential search's. */
typedef struct atoll_explore_net {
  void *ctx;
  uint32_t every; /* one state in `every` is a handover point (0 or 1: every state) */
  /* A state new to this process, past a run's replayed part: returns 1 when another process owns
   * h (then it was queued for it: a handover point with the n choices c that reach it after
   * `events` events, any other state to be counted), 0 when this process owns it, < 0 an error.
   * Called by busy workers at once. */
  int (*offer)(void *ctx, uint64_t h, uint64_t events, bool point, const atoll_choice_rec *c, uint32_t n);
  /* Called by idle workers, one at a time; `idle`: every worker of this process is idle and none
   * has work queued. Passes each state sent to this process to deliver (c NULL: only to count;
   * deliver copies what it keeps), then returns 1 when it delivered some, 0 when none came, 2
   * when the search of every process is over (all idle, nothing in flight), < 0 an error. */
  int (*poll)(void *ctx, bool idle,
              void (*deliver)(void *dctx, uint64_t h, uint64_t events, const atoll_choice_rec *c, uint32_t n),
              void *dctx);
} atoll_explore_net;

typedef struct atoll_explore_opts {
  uint64_t max_states;  /* stop after this many distinct states; 0: no limit */
  double max_seconds;   /* stop after this much wall time; 0: no limit */
  bool no_pruning;      /* run every schedule to its end (tests compare the pruned search with it) */
  /* Worker threads (0 or 1: the sequential search). A complete search gives the same verdict,
   * worst values, state count and witness with any number; the split of runs into schedules and
   * pruned runs, and so the event counts, depend on the workers' timing. */
  uint32_t threads;
  /* Every run replays its choices from the start, without checkpoints (explore.c): the same
   * results with more simulated events; for the tests and the benchmark to compare the two. */
  bool replay_from_start;
  /* NULL, or called now and then (it must not touch the search). */
  void (*progress)(void *ctx, uint64_t states, uint64_t schedules);
  void *progress_ctx;
  /* NULL, or this process is one of several sharing the search (atoll_explore_net): the result
   * holds this process's share (its states, counts and worst values; the caller merges them, runs
   * no witness pass, and calls atoll_explore_witness). Only the process whose `root` is set starts
   * at the root; the others start with nothing. Explorations without pruning (a gpu.* bound) have
   * no visited set to split: the root process runs them alone. */
  const atoll_explore_net *net;
  bool root;
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
   * extremes alone, which timing anomalies make no bound on the worst (docs/explore.md). They are
   * schedules too: their values join the worst values, verdicts and worst RT latency, and where
   * the search found no violation one that violates a bound is the witness (a search cut short
   * may not have reached them). */
  double all_min_rt_latency_us, all_max_rt_latency_us;
  atoll_explore_bound *bounds; /* per scenario expect */
  bool violated;
  int32_t witness_expect;  /* the violated bound the witness shows (index), -1 none */
  atoll_choice_rec *witness; /* its schedule */
  uint32_t n_witness;
  double wall_s;
  uint32_t threads;        /* worker threads that ran the search */
  uint64_t busiest_events; /* events: under mpirun, the most events one rank simulated */
} atoll_explore_result;

/* Explores s (its sim.engine is taken as blocks, the exact engine). Returns 0 (see out->complete
 * and out->violated), ATOLL_ENOTSUP for a policy the core lacks, ATOLL_ENOMEM. Free with
 * atoll_explore_free. */
int atoll_explore_run(const atoll_scenario *s, const atoll_explore_opts *o, atoll_explore_result *out);
void atoll_explore_free(atoll_explore_result *r);

/* After the shares of several processes (atoll_explore_net) were merged into r (complete, violated):
 * the sequential search's witness, found by a sequential pass that stops there. */
int atoll_explore_witness(const atoll_scenario *s, const atoll_explore_opts *o, atoll_explore_result *r);
const char *atoll_explore_mode_name(atoll_explore_mode m);

#endif
