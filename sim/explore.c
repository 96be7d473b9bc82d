/* Exhaustive schedule exploration (explore.h): depth-first search over choice lists, each run
 * resumed from a checkpoint of the simulator's state, on one or more worker threads.
 *
 * Each worker owns a subtree of schedules: a prefix of choices it never changes (entries below
 * `base`), and at `base` and below a depth-first search of its own. Every entry of a worker's path
 * carries `hi`, the end of the options the worker still owns there. An idle worker steals from a
 * busy one the remaining options of the busy one's shallowest entry with options left (the largest
 * subtree it can take): it copies the prefix up to that entry, takes options [option + 1, hi), and
 * lowers the victim's hi. Workers share the visited set (explore_visited.h), so a state reached by
 * one is not explored again by another. The search ends when every worker is idle and none has
 * anything to steal (checked under one lock, so no work can appear meanwhile).
 *
 * Over several processes (explore.h, atoll_explore_net) a new state another process owns ends the
 * run that reached it and goes to its owner with the run's choices; idle workers take the states
 * handed to this process (the `inbox`) as subtrees: replay the choices to the handed state's event
 * and search below it. The search ends when the net says every process is idle. */
#include "sim/explore.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "run/report.h"
#include "sim/explore_visited.h"
#include "sim/run.h"

/* --- the search --- */

/* What the workers share. */
typedef struct shared {
  const atoll_scenario *s;
  const atoll_explore_opts *o;
  atoll_explore_mode mode;
  const bool *relevant; /* fold mode: the clients whose requests the bounds (and the worst RT latency) read */
  const int64_t *standalone;
  atoll_visited seen;
  /* Over several processes: the states this process owns, its share of the count (`seen` then
   * holds every state this process explored or handed over). */
  atoll_visited owned;
  uint32_t n_workers;
  struct search *workers;
  atomic_int stop;      /* a stop_reason: every worker ends its run and leaves */
  atomic_int err;       /* the first error of any worker */
  /* Idle workers look for work under `idle_lock`; done when all of them are idle with none found. */
  pthread_mutex_t idle_lock;
  pthread_cond_t idle_cond;
  uint32_t n_idle;
  bool done;
  struct timespec t0;
  /* Over several processes: the states handed to this one and new to its set, each with the
   * choices that reach it and its event count; taken last in, first out (under idle_lock). */
  const atoll_explore_net *net;
  struct handed {
    atoll_choice_rec *c;
    uint32_t n;
    uint64_t events;
  } *inbox;
  uint32_t n_inbox, cap_inbox;
  int net_err;
} shared;

enum stop_reason { STOP_NONE, STOP_STATES, STOP_SECONDS, STOP_ERROR, STOP_WITNESS_FINAL };

/* One worker: its subtree's depth-first search and what it found. */
typedef struct search {
  shared *sh;
  const atoll_scenario *s;
  atoll_explore_result *out; /* this worker's counts and worst values, merged at the end */
  atoll_explore_mode mode;
  uint32_t id;
  /* The schedule being run: what path holds when a run starts is replayed, the rest is new (option
   * 0). hi[i]: the options of entry i this worker owns end there. Entries below base are fixed.
   * `lock` guards path, hi and len against a thief (workers > 1); the owner reads without it. */
  atoll_choice_rec *path;
  uint32_t *hi;
  uint32_t len, cap, pos, base;
  pthread_mutex_t lock;
  bool root_run; /* this run is the first of the whole search: every option 0 */
  bool stop_all; /* the search is stopping */
  bool cut;      /* this run ended at a state seen before */
  bool settled;  /* this run ended where no bound's value can change any more */
  bool replaying; /* this run has not yet passed its last replayed choice */
  /* A subtree handed from another process: its first run replays up to the event count where the
   * handed state is (already in the set). */
  bool to_handed;
  uint64_t handed_events;
  /* Requests finished at the last event boundary before the run's first new choice. */
  uint64_t done_at_replay_end;
  const bool *relevant;
  int err;
  const double *target; /* the witness pass: each bound's final worst (explore.h) */
  /* Checkpoints (run.h): the worker's runner, NULL where the state cannot be saved (then every run
   * replays from the start), and a stack of snapshots of the current path, each taken at the
   * boundary after an event that answered choices, with `pos` choices answered before it. A run
   * resumes from the deepest one before the choice it changes. */
  atoll_sim_runner *runner;
  struct checkpoint {
    atoll_sim_snapshot *sn;
    uint32_t pos;
  } *snaps;
  uint32_t n_snaps, cap_snaps;
  uint64_t run_start_events; /* the events the run's start state had taken */
  /* The path entries the checkpoints stand for after the last run, and how many checkpoints the
   * next subtree keeps (those before its first choice that differs from them). */
  uint32_t valid_len, keep_snaps;
} search;

static void lock_path(search *x) {
  if (x->sh->n_workers > 1)
    pthread_mutex_lock(&x->lock);
}

static void unlock_path(search *x) {
  if (x->sh->n_workers > 1)
    pthread_mutex_unlock(&x->lock);
}

/* Room for n entries in x's path (under its lock). */
static int path_reserve(search *x, uint32_t n) {
  if (n <= x->cap)
    return 0;
  uint32_t cap = x->cap ? x->cap * 2 : 256;
  while (cap < n)
    cap *= 2;
  atoll_choice_rec *np = realloc(x->path, cap * sizeof *np);
  if (np)
    x->path = np;
  uint32_t *nh = np ? realloc(x->hi, cap * sizeof *nh) : NULL;
  if (nh)
    x->hi = nh;
  if (!np || !nh)
    return ATOLL_ENOMEM;
  x->cap = cap;
  return 0;
}

static uint32_t dfs_choose(void *ctx, atoll_choice_kind kind, uint32_t n) {
  search *x = ctx;
  x->out->choices++;
  uint32_t i = x->pos++;
  if (i < x->len) {
    /* A replayed choice: the same prefix must meet the same choice points, or runs are not a
     * function of their choices. */
    if (x->path[i].kind != kind || x->path[i].n != n) {
      x->err = ATOLL_EINVAL;
      return 0;
    }
    return x->path[i].option;
  }
  lock_path(x);
  int rc = path_reserve(x, x->len + 1);
  if (rc == 0) {
    x->hi[x->len] = n;
    x->path[x->len++] = (atoll_choice_rec){.kind = (uint8_t)kind, .option = 0, .n = n};
  }
  unlock_path(x);
  if (rc)
    x->err = rc;
  return 0;
}

static bool upper_bound(atoll_cmp c) { return c == ATOLL_CMP_LE || c == ATOLL_CMP_LT; }

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A bound that only an upper bound on a latency maximum: a cut-off run's maximum so far can only
 * grow, so it may be folded into the worst value. */
static bool foldable(const atoll_expect *e) {
  return upper_bound(e->cmp) && ends_with(e->field, ".max") && strstr(e->field, "latency") != NULL;
}

static atoll_explore_mode mode_of(const atoll_scenario *s) {
  atoll_explore_mode m = ATOLL_EXPLORE_FOLD;
  for (uint32_t i = 0; i < s->n_expects; i++) {
    if (strncmp(s->expects[i].field, "gpu.", 4) == 0)
      return ATOLL_EXPLORE_NO_PRUNING;
    if (!foldable(&s->expects[i]))
      m = ATOLL_EXPLORE_EXACT;
  }
  return m;
}

static int keep_witness(search *x, int32_t expect) {
  atoll_explore_result *out = x->out;
  atoll_choice_rec *w = malloc((x->pos ? x->pos : 1) * sizeof *w);
  if (!w)
    return ATOLL_ENOMEM;
  uint32_t n = x->pos < x->len ? x->pos : x->len;
  if (n) /* a schedule without choices has no path yet (NULL), which memcpy may not take */
    memcpy(w, x->path, n * sizeof *w);
  free(out->witness);
  out->witness = w;
  out->n_witness = n;
  out->witness_expect = expect;
  return 0;
}

/* Takes one value of bound i into the worst; `verdict` is the report's verdict for a finished
 * schedule (NULL for a folded one, which is judged on its value alone). */
static int take_value(search *x, uint32_t i, double v, const atoll_expect_verdict *verdict) {
  const atoll_expect *e = &x->s->expects[i];
  atoll_explore_bound *b = &x->out->bounds[i];
  bool holds = true;
  double margin = NAN;
  if (verdict)
    holds = verdict->holds;
  else if (!isnan(v))
    holds = atoll_expect_holds(e->cmp, e->value, v, &margin) != 0;
  if (!isnan(v)) {
    bool worse = isnan(b->worst) || (upper_bound(e->cmp) ? v > b->worst : v < b->worst);
    if (worse) {
      b->worst = v;
      atoll_expect_holds(e->cmp, e->value, v, &b->margin);
    }
    /* The witness shows the first violated bound at its worst schedule. */
    if (!holds && (x->out->witness_expect < 0 || (x->out->witness_expect == (int32_t)i && worse))) {
      int rc = keep_witness(x, (int32_t)i);
      if (rc)
        return rc;
    }
  } else if (!holds && x->out->witness_expect < 0) {
    int rc = keep_witness(x, (int32_t)i);
    if (rc)
      return rc;
  }
  if (!holds) {
    b->holds = false;
    x->out->violated = true;
  }
  return 0;
}

static void take_rt_latency(search *x, const atoll_report *rep) {
  double v = rep->rt_latency_us.n ? rep->rt_latency_us.max : NAN;
  if (!isnan(v) && (isnan(x->out->worst_rt_latency_us) || v > x->out->worst_rt_latency_us))
    x->out->worst_rt_latency_us = v;
}

static uint64_t finished_requests(const search *x, const atoll_run_results *res) {
  uint64_t n = 0;
  for (uint32_t c = 0; c < x->s->n_clients; c++)
    for (uint32_t i = 0; i < res->clients[c].n; i++)
      n += res->clients[c].req[i].done_ns >= 0;
  return n;
}

/* A cut-off run in fold mode: the maxima of its finished requests join the worst values. Requests
 * that finished before the event holding the run's last replayed choice were taken when an earlier
 * run passed there (that run's values were taken when it ended or was cut), so a cut run with no
 * request finished since adds nothing. */
static int fold_past(search *x, const atoll_run_results *res) {
  if (finished_requests(x, res) == x->done_at_replay_end)
    return 0;
  atoll_report rep;
  int rc = atoll_report_compute(res, &rep);
  if (rc)
    return rc;
  take_rt_latency(x, &rep);
  for (uint32_t i = 0; i < x->s->n_expects && rc == 0; i++) {
    double v;
    if (atoll_report_field(&rep, x->s->expects[i].field, &v) == 0)
      rc = take_value(x, i, v, NULL);
  }
  atoll_report_free(&rep);
  return rc;
}

/* In fold mode the values only come from the relevant clients' requests: once none is in flight
 * or still to arrive, nothing that follows can change them, and the run is as good as finished. */
static bool settled(const search *x, const atoll_sim_state *st) {
  if (x->mode != ATOLL_EXPLORE_FOLD)
    return false;
  for (uint32_t c = 0; c < x->s->n_clients; c++)
    if (x->relevant[c] && !atoll_sim_state_client_idle(st, c))
      return false;
  return true;
}

/* Adds the state's hash to the visited set: 1 seen before, 0 new, 2 another process owns it (it
 * was handed over), < 0 an error (kept in x->err). */
static int visit(search *x, atoll_sim_state *st) {
  uint64_t h;
  int rc = atoll_sim_state_hash(st, x->mode == ATOLL_EXPLORE_EXACT ? ATOLL_HASH_WITH_RECORDS : ATOLL_HASH_FUTURE_ONLY,
                                &h);
  const atoll_explore_net *net = x->sh->net;
  if (rc == 0)
    rc = atoll_visited_add(&x->sh->seen, h);
  if (rc == 0 && net && x->mode != ATOLL_EXPLORE_NO_PRUNING) {
    /* New here. A handover point goes to its owner, which alone explores it; any other state is
     * explored here and only counted by its owner (explore.h, atoll_explore_net). */
    bool point = ((h >> 8) & 0xff) < 256 / (net->every ? net->every : 1); /* bits apart from the owner's */
    rc = net->offer(net->ctx, h, atoll_sim_state_events(st), point, x->path, x->pos);
    if (rc == 1)
      return point ? 2 : 0;
    if (rc == 0) {
      rc = atoll_visited_add(&x->sh->owned, h);
      if (rc == 1 && !point)
        rc = 0; /* counted already: another process reached it too */
    }
  }
  if (rc < 0)
    x->err = rc;
  return rc;
}
static bool boundary_step(search *x, atoll_sim_state *st) {
  if (x->err)
    return false;
  if (atomic_load_explicit(&x->sh->stop, memory_order_relaxed) != STOP_NONE) {
    x->stop_all = true;
    return false;
  }
  if (x->to_handed) {
    /* A handed subtree's first run: the states before the handed one belong to the run of the
     * process that handed it; the handed state itself is in the set already. */
    if (atoll_sim_state_events(st) < x->handed_events)
      return true;
    x->to_handed = false;
    x->replaying = false;
    x->out->replayed_events += atoll_sim_state_events(st) - x->run_start_events;
    return true;
  }
  if (x->pos < x->len) {
    /* Still replaying: these states belong to runs already made. */
    if (x->mode == ATOLL_EXPLORE_FOLD)
      x->done_at_replay_end = finished_requests(x, atoll_sim_state_results(st));
    return true;
  }
  if (x->replaying) {
    x->replaying = false;
    x->out->replayed_events += atoll_sim_state_events(st) - x->run_start_events;
  }
  if (settled(x, st)) {
    x->settled = true;
    return false;
  }
  int rc = visit(x, st);
  if (rc < 0)
    return false;
  if ((rc == 1 && x->mode != ATOLL_EXPLORE_NO_PRUNING) || rc == 2) {
    /* Seen before, or handed to its owner: what follows is explored from there. */
    x->cut = true;
    if (x->mode == ATOLL_EXPLORE_FOLD && (rc = fold_past(x, atoll_sim_state_results(st))))
      x->err = rc;
    return false;
  }
  const atoll_explore_opts *o = x->sh->o;
  if (rc == 0 && o && o->max_states && atoll_visited_count(&x->sh->seen) >= o->max_states) {
    int none = STOP_NONE;
    atomic_compare_exchange_strong(&x->sh->stop, &none, STOP_STATES);
  }
  if (atomic_load_explicit(&x->sh->stop, memory_order_relaxed) != STOP_NONE) {
    x->stop_all = true;
    return false;
  }
  return true;
}

/* Saves the state at this boundary when the event before it answered choices: the next run that
 * changes one of the choices after it resumes here. */
static void checkpoint(search *x, atoll_sim_state *st) {
  uint32_t top = x->n_snaps ? x->snaps[x->n_snaps - 1].pos : 0;
  if (x->pos <= top)
    return;
  if (x->n_snaps == x->cap_snaps) {
    uint32_t cap = x->cap_snaps ? x->cap_snaps * 2 : 32;
    struct checkpoint *ns = realloc(x->snaps, cap * sizeof *ns);
    if (!ns) {
      x->err = ATOLL_ENOMEM;
      return;
    }
    memset(ns + x->cap_snaps, 0, (cap - x->cap_snaps) * sizeof *ns);
    x->snaps = ns, x->cap_snaps = cap;
  }
  struct checkpoint *c = &x->snaps[x->n_snaps];
  if (!c->sn && !(c->sn = atoll_sim_snapshot_new())) {
    x->err = ATOLL_ENOMEM;
    return;
  }
  int rc = atoll_sim_state_save(st, c->sn);
  if (rc) {
    x->err = rc;
    return;
  }
  c->pos = x->pos;
  x->n_snaps++;
}

static bool dfs_boundary(void *ctx, atoll_sim_state *st) {
  search *x = ctx;
  bool go_on = boundary_step(x, st);
  if (go_on && x->runner)
    checkpoint(x, st);
  return go_on && !x->err;
}

/* A schedule ran to the end: its report's values join the worst values. */
static int take_schedule(search *x, const atoll_run_results *res, bool to_the_end) {
  atoll_report rep;
  int rc = atoll_report_compute(res, &rep);
  if (rc)
    return rc;
  take_rt_latency(x, &rep);
  for (uint32_t c = 0; c < x->s->n_clients && to_the_end; c++)
    if (rep.clients[c].completed < rep.clients[c].requests) {
      x->out->unfinished++;
      break;
    }
  for (uint32_t i = 0; i < x->s->n_expects && rc == 0; i++)
    rc = take_value(x, i, rep.verdicts[i].value, &rep.verdicts[i]);
  atoll_report_free(&rep);
  return rc;
}

/* Moves to the next schedule in depth-first order: the deepest choice with an option left takes
 * its next option, and everything after it is dropped. False when none is left. */
static bool backtrack(search *x) {
  lock_path(x);
  x->len = x->pos < x->len ? x->pos : x->len;
  while (x->len > x->base && x->path[x->len - 1].option + 1 >= x->hi[x->len - 1])
    x->len--;
  bool more = x->len > x->base;
  if (more)
    x->path[x->len - 1].option++;
  unlock_path(x);
  return more;
}

/* The most requests one client can have waiting: all it can send within the run (1024, the core's
 * default, when that is unbounded). A core sized to it drops exactly what the default would. */
static uint32_t pending_limit(const atoll_scenario *s, const int64_t *standalone) {
  double most = 1;
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client *cl = &s->clients[c];
    const atoll_arrival *a = &cl->arrival;
    double n = 1024;
    if (a->kind == ATOLL_ARRIVAL_TRACE)
      n = a->repeat_ns > 0 ? (double)a->n_times * ((double)s->duration_ns / (double)a->repeat_ns + 1) : a->n_times;
    else if (a->kind == ATOLL_ARRIVAL_UNIFORM)
      n = (double)s->duration_ns / 1e9 * atoll_run_rate_hz(cl, standalone[cl->model]) + 2;
    else if (a->kind == ATOLL_ARRIVAL_CLOSED)
      n = 1;
    if (a->blocking) /* one request in flight */
      n = 1;
    if (n > most)
      most = n;
  }
  return most + 1 < 1024 ? (uint32_t)most + 1 : 1024;
}

/* A run with every duration at one extreme (option 1 shortest, 2 longest), every other choice
 * nominal, and the choices it made, for a witness. */
typedef struct extreme {
  uint32_t option;
  atoll_choice_rec *recs;
  uint32_t n, cap;
  bool nomem;
} extreme;

static uint32_t extreme_choose(void *ctx, atoll_choice_kind kind, uint32_t n) {
  extreme *e = ctx;
  uint32_t option = kind == ATOLL_CHOICE_DURATION ? e->option : 0;
  if (e->n == e->cap && !e->nomem) {
    uint32_t cap = e->cap ? 2 * e->cap : 64;
    atoll_choice_rec *r = realloc(e->recs, cap * sizeof *r);
    if (r)
      e->recs = r, e->cap = cap;
    else
      e->nomem = true;
  }
  if (e->n < e->cap)
    e->recs[e->n++] = (atoll_choice_rec){.kind = (uint8_t)kind, .option = option, .n = n};
  return option;
}

/* The extreme schedule's worst RT latency into *rt. It is a schedule like any other: with fold set
 * its values join out's worst values and verdicts after the search, so that a search cut short
 * never calls a bound held that this schedule, printed beside it, violates. Where the search found
 * no violation it gives the witness. (A complete search explored it already: nothing changes.) */
static int extreme_run(const atoll_scenario *s, const int64_t *standalone, uint32_t option, double *rt, bool fold,
                       atoll_explore_result *out) {
  extreme e = {.option = option};
  atoll_chooser ch = {.choose = extreme_choose, .ctx = &e};
  atoll_sim_opts so = {.chooser = &ch, .standalone_ns = standalone};
  atoll_run_results res;
  int rc = atoll_sim_run(s, &so, &res);
  if (rc == 0 && e.nomem)
    rc = ATOLL_ENOMEM, atoll_run_results_free(&res);
  if (rc) {
    free(e.recs);
    return rc;
  }
  atoll_report rep;
  rc = atoll_report_compute(&res, &rep);
  if (rc == 0) {
    *rt = rep.rt_latency_us.n ? rep.rt_latency_us.max : NAN;
    for (uint32_t i = 0; fold && i < s->n_expects; i++) {
      const atoll_expect *x = &s->expects[i];
      atoll_explore_bound *b = &out->bounds[i];
      double v = rep.verdicts[i].value;
      if (!isnan(v) && (isnan(b->worst) || (upper_bound(x->cmp) ? v > b->worst : v < b->worst))) {
        b->worst = v;
        atoll_expect_holds(x->cmp, x->value, v, &b->margin);
      }
      if (rep.verdicts[i].holds)
        continue;
      b->holds = false;
      out->violated = true;
      if (out->witness_expect < 0) {
        free(out->witness);
        out->witness = e.recs, out->n_witness = e.n, out->witness_expect = (int32_t)i;
        e.recs = NULL;
      }
    }
    if (fold && !isnan(*rt) && (isnan(out->worst_rt_latency_us) || *rt > out->worst_rt_latency_us))
      out->worst_rt_latency_us = *rt;
    atoll_report_free(&rep);
  }
  free(e.recs);
  atoll_run_results_free(&res);
  return rc;
}

const char *atoll_explore_mode_name(atoll_explore_mode m) {
  return m == ATOLL_EXPLORE_FOLD ? "fold" : m == ATOLL_EXPLORE_EXACT ? "exact" : "no pruning";
}

static double seconds_since(const struct timespec *t0) {
  struct timespec t1;
  clock_gettime(CLOCK_MONOTONIC, &t1);
  return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void stop_with(shared *sh, int reason) {
  int none = STOP_NONE;
  atomic_compare_exchange_strong(&sh->stop, &none, reason);
}

/* The witness pass has found the witness the sequential search ends with: the first violated
 * bound at its final worst value (no later schedule can replace it, since only a worse one does). */
static bool witness_final(const search *x) {
  int32_t i = x->out->witness_expect;
  if (!x->target || i < 0)
    return false;
  double w = x->out->bounds[i].worst, t = x->target[i];
  return (isnan(w) && isnan(t)) || w == t;
}

/* Runs x's subtree depth first until it is exhausted or the search stops. */
static int run_subtree(search *x, const atoll_sim_opts *so) {
  shared *sh = x->sh;
  atoll_explore_result *out = x->out;
  int rc = 0;
  bool more = true;
  x->n_snaps = x->keep_snaps; /* a new subtree: its path was replaced (taken, stolen or handed) */
  x->keep_snaps = 0;
  while (more) {
    /* Resume from the deepest checkpoint before the choice that changed (the path's last entry). */
    while (x->n_snaps && x->snaps[x->n_snaps - 1].pos >= x->len)
      x->n_snaps--;
    const struct checkpoint *from = x->n_snaps ? &x->snaps[x->n_snaps - 1] : NULL;
    x->pos = from ? from->pos : 0;
    x->run_start_events = from ? atoll_sim_snapshot_events(from->sn) : 0;
    x->cut = x->settled = x->stop_all = false;
    x->replaying = true;
    /* A handed subtree's first run folds whatever a cut finds: no run of this process passed
     * before its handed state. */
    x->done_at_replay_end = x->to_handed ? UINT64_MAX : 0;
    atoll_run_results own;
    const atoll_run_results *res = &own;
    if (x->runner)
      rc = atoll_sim_runner_run(x->runner, from ? from->sn : NULL, &res);
    else
      rc = atoll_sim_run(sh->s, so, &own);
    if (rc)
      break;
    if (x->err) {
      rc = x->err;
      if (!x->runner)
        atoll_run_results_free(&own);
      break;
    }
    out->events += res->events - x->run_start_events;
    if (x->pos > out->max_depth)
      out->max_depth = x->pos;
    if (x->root_run) {
      /* The first run takes option 0 everywhere: the ordinary simulation. */
      for (uint32_t i = 0; i < x->len; i++)
        out->choice_points[x->path[i].kind]++;
    }
    if (!x->cut && !x->stop_all) {
      out->schedules++;
      rc = take_schedule(x, res, !x->settled);
      if (x->root_run && rc == 0)
        out->nominal_rt_latency_us = out->worst_rt_latency_us;
    } else if (x->cut) {
      out->pruned++;
    }
    x->root_run = false;
    if (!x->runner)
      atoll_run_results_free(&own);
    if (rc || x->stop_all)
      break;
    if (witness_final(x)) {
      stop_with(sh, STOP_WITNESS_FINAL);
      break;
    }
    if (((out->schedules + out->pruned) & 255) == 0) {
      const atoll_explore_opts *o = sh->o;
      if (o && o->progress && x->id == 0)
        o->progress(o->progress_ctx, atoll_visited_count(&sh->seen), out->schedules);
      if (o && o->max_seconds > 0 && seconds_since(&sh->t0) > o->max_seconds)
        stop_with(sh, STOP_SECONDS);
    }
    x->valid_len = x->pos < x->len ? x->pos : x->len;
    if (atomic_load_explicit(&sh->stop, memory_order_relaxed) != STOP_NONE)
      break;
    more = backtrack(x);
  }
  return rc;
}

/* An idle worker takes the remaining options of another's shallowest entry with options left.
 * Called with idle_lock held (one thief at a time). */
static bool steal(search *thief) {
  shared *sh = thief->sh;
  for (uint32_t k = 1; k < sh->n_workers; k++) {
    search *v = &sh->workers[(thief->id + k) % sh->n_workers];
    bool got = false;
    pthread_mutex_lock(&v->lock);
    for (uint32_t i = v->base; i < v->len && !got; i++) {
      if (v->path[i].option + 1 >= v->hi[i])
        continue;
      /* The thief's own lock is not taken: it is idle, and other thieves read its path only
       * under idle_lock, which this thief holds. */
      if (path_reserve(thief, i + 1) == 0) {
        memcpy(thief->path, v->path, (i + 1) * sizeof *thief->path);
        memcpy(thief->hi, v->hi, (i + 1) * sizeof *thief->hi);
        thief->path[i].option++;
        thief->len = i + 1;
        thief->base = i;
        v->hi[i] = thief->path[i].option;
        got = true;
      }
    }
    pthread_mutex_unlock(&v->lock);
    if (got)
      return true;
  }
  return false;
}

/* Takes the state last handed to this process as a subtree: its choices are fixed, and the first
 * run replays them to the handed state. The checkpoints of the worker's last path are kept up to
 * the first choice that differs (states handed one after another often share long prefixes).
 * Under idle_lock. */
static bool take_handed(search *x) {
  shared *sh = x->sh;
  if (!sh->n_inbox)
    return false;
  struct handed *h = &sh->inbox[sh->n_inbox - 1];
  if (path_reserve(x, h->n) != 0)
    return false;
  sh->n_inbox--;
  uint32_t same = 0, most = x->valid_len < h->n ? x->valid_len : h->n;
  while (same < most && x->path[same].kind == h->c[same].kind && x->path[same].option == h->c[same].option &&
         x->path[same].n == h->c[same].n)
    same++;
  /* (A kept checkpoint is before the handed state: the skip to it counts on passing its event.) */
  uint32_t keep = 0;
  while (keep < x->n_snaps && x->snaps[keep].pos <= same && atoll_sim_snapshot_events(x->snaps[keep].sn) < h->events)
    keep++;
  lock_path(x);
  if (h->n) /* (a path never used has no array yet) */
    memcpy(x->path, h->c, h->n * sizeof *x->path);
  for (uint32_t i = 0; i < h->n; i++)
    x->hi[i] = h->c[i].option + 1;
  x->len = x->base = h->n;
  unlock_path(x);
  x->keep_snaps = keep;
  x->to_handed = true;
  x->handed_events = h->events;
  free(h->c);
  return true;
}

/* The net's deliver: a state handed to this process joins its set and, if new, its inbox. Called
 * from find_work's poll, under idle_lock. */
static void deliver(void *ctx, uint64_t h, uint64_t events, const atoll_choice_rec *c, uint32_t n) {
  shared *sh = ctx;
  if (sh->net_err)
    return;
  int rc = atoll_visited_add(&sh->owned, h);
  if (rc == 1 || (rc == 0 && !c))
    return; /* seen before, or a state only to count */
  if (rc == 0 && sh->n_inbox == sh->cap_inbox) {
    uint32_t cap = sh->cap_inbox ? sh->cap_inbox * 2 : 64;
    struct handed *ni = realloc(sh->inbox, cap * sizeof *ni);
    if (ni)
      sh->inbox = ni, sh->cap_inbox = cap;
    else
      rc = ATOLL_ENOMEM;
  }
  atoll_choice_rec *copy = rc == 0 ? malloc((n ? n : 1) * sizeof *copy) : NULL;
  if (!copy) {
    sh->net_err = rc ? rc : ATOLL_ENOMEM;
    return;
  }
  memcpy(copy, c, n * sizeof *copy);
  sh->inbox[sh->n_inbox++] = (struct handed){.c = copy, .n = n, .events = events};
  const atoll_explore_opts *o = sh->o;
  if (o && o->max_states && atoll_visited_count(&sh->seen) >= o->max_states)
    stop_with(sh, STOP_STATES);
}

static int cmp_handed(const void *a, const void *b) {
  const struct handed *x = a, *y = b;
  uint32_t n = x->n < y->n ? x->n : y->n;
  for (uint32_t i = 0; i < n; i++) {
    const atoll_choice_rec *p = &x->c[i], *q = &y->c[i];
    if (p->kind != q->kind || p->n != q->n)
      return p->kind != q->kind ? (p->kind > q->kind) - (p->kind < q->kind) : (p->n > q->n) - (p->n < q->n);
    if (p->option != q->option)
      return (p->option > q->option) - (p->option < q->option);
  }
  return (x->n > y->n) - (x->n < y->n);
}

/* Waits for work; false when the search is over (every worker idle, nothing to steal, and over
 * several processes every one idle) or stopping. */
static bool find_work(search *x) {
  shared *sh = x->sh;
  bool got = false;
  pthread_mutex_lock(&sh->idle_lock);
  sh->n_idle++;
  while (!sh->done && atomic_load(&sh->stop) == STOP_NONE) {
    if (take_handed(x) || steal(x)) {
      sh->n_idle--;
      got = true;
      break;
    }
    bool all_idle = sh->n_idle == sh->n_workers;
    if (sh->net) {
      int p = sh->net->poll(sh->net->ctx, all_idle, deliver, sh);
      if (sh->net_err || p < 0) {
        int none = 0;
        atomic_compare_exchange_strong(&sh->err, &none, sh->net_err ? sh->net_err : p);
        stop_with(sh, STOP_ERROR);
        break;
      }
      if (p == 1) {
        /* In choice order, so that the next state taken shares the longest prefix with the last
         * (its replay resumes from the deepest checkpoint the two share). */
        if (sh->n_inbox > 1)
          qsort(sh->inbox, sh->n_inbox, sizeof *sh->inbox, cmp_handed);
        pthread_cond_broadcast(&sh->idle_cond);
        continue;
      }
      all_idle = p == 2;
    }
    if (all_idle) {
      sh->done = true;
      pthread_cond_broadcast(&sh->idle_cond);
      break;
    }
    /* Busy workers do not signal (that would cost them a lock per run): poll every 200 us. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 200000;
    if (until.tv_nsec >= 1000000000L)
      until.tv_sec++, until.tv_nsec -= 1000000000L;
    pthread_cond_timedwait(&sh->idle_cond, &sh->idle_lock, &until);
  }
  pthread_mutex_unlock(&sh->idle_lock);
  return got;
}

static void *worker_main(void *arg) {
  search *x = arg;
  shared *sh = x->sh;
  atoll_chooser chooser = {.choose = dfs_choose, .ctx = x};
  atoll_core_limits limits = {.pending_per_client = pending_limit(sh->s, sh->standalone)};
  atoll_sim_opts so = {.chooser = &chooser, .boundary = dfs_boundary, .boundary_ctx = x, .standalone_ns = sh->standalone,
                       .core_limits = &limits};
  int made = sh->o && sh->o->replay_from_start ? ATOLL_ENOTSUP : atoll_sim_runner_create(sh->s, &so, &x->runner);
  if (made && made != ATOLL_ENOTSUP) {
    int none = 0;
    atomic_compare_exchange_strong(&sh->err, &none, made);
    stop_with(sh, STOP_ERROR);
  }
  /* Worker 0 starts at the root, unless another process starts there; the others steal. */
  bool work = x->id == 0 && x->root_run;
  while (work || find_work(x)) {
    work = false;
    int rc = run_subtree(x, &so);
    if (rc) {
      int none = 0;
      atomic_compare_exchange_strong(&sh->err, &none, rc);
      stop_with(sh, STOP_ERROR);
    }
  }
  for (uint32_t i = 0; i < x->cap_snaps; i++)
    atoll_sim_snapshot_free(x->snaps[i].sn);
  free(x->snaps);
  x->snaps = NULL, x->n_snaps = x->cap_snaps = 0;
  atoll_sim_runner_destroy(x->runner);
  x->runner = NULL;
  return NULL;
}

static int result_init(atoll_explore_result *r, uint32_t n_expects) {
  *r = (atoll_explore_result){.witness_expect = -1, .worst_rt_latency_us = NAN, .nominal_rt_latency_us = NAN,
                              .all_min_rt_latency_us = NAN, .all_max_rt_latency_us = NAN};
  r->bounds = calloc(n_expects ? n_expects : 1, sizeof *r->bounds);
  if (!r->bounds)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < n_expects; i++)
    r->bounds[i] = (atoll_explore_bound){.worst = NAN, .holds = true, .margin = NAN};
  return 0;
}

static double worse_of(atoll_cmp c, double a, double b) {
  if (isnan(a))
    return b;
  if (isnan(b))
    return a;
  return upper_bound(c) ? (b > a ? b : a) : (b < a ? b : a);
}

/* Adds worker w's counts and worst values to out. */
static void merge_worker(const atoll_scenario *s, atoll_explore_result *out, const atoll_explore_result *w) {
  out->schedules += w->schedules, out->pruned += w->pruned, out->choices += w->choices;
  out->events += w->events, out->replayed_events += w->replayed_events, out->unfinished += w->unfinished;
  if (w->max_depth > out->max_depth)
    out->max_depth = w->max_depth;
  out->worst_rt_latency_us = worse_of(ATOLL_CMP_LE, out->worst_rt_latency_us, w->worst_rt_latency_us);
  for (uint32_t i = 0; i < s->n_expects; i++) {
    const atoll_expect *e = &s->expects[i];
    atoll_explore_bound *b = &out->bounds[i];
    b->worst = worse_of(e->cmp, b->worst, w->bounds[i].worst);
    b->holds = b->holds && w->bounds[i].holds;
    b->margin = NAN;
    if (!isnan(b->worst))
      atoll_expect_holds(e->cmp, e->value, b->worst, &b->margin);
  }
  out->violated = out->violated || w->violated;
}

/* Takes w's witness into out (out takes the allocation). */
static void take_witness(atoll_explore_result *out, atoll_explore_result *w) {
  free(out->witness);
  out->witness = w->witness, out->n_witness = w->n_witness, out->witness_expect = w->witness_expect;
  w->witness = NULL, w->n_witness = 0;
}

/* The search itself, on n workers; `target`: a witness pass (stop once the witness is final). */
static int search_run(const atoll_scenario *s, const atoll_explore_opts *o, uint32_t n, atoll_explore_mode mode,
                      const bool *relevant, const int64_t *standalone, const double *target,
                      atoll_explore_result *out) {
  shared sh = {.s = s, .o = o, .mode = mode, .relevant = relevant, .standalone = standalone, .n_workers = n,
               .net = o ? o->net : NULL};
  clock_gettime(CLOCK_MONOTONIC, &sh.t0);
  atomic_init(&sh.stop, STOP_NONE);
  atomic_init(&sh.err, 0);
  atoll_visited_init(&sh.seen, n > 1);
  atoll_visited_init(&sh.owned, n > 1);
  pthread_mutex_init(&sh.idle_lock, NULL);
  pthread_cond_init(&sh.idle_cond, NULL);
  search *w = calloc(n, sizeof *w);
  atoll_explore_result *wr = calloc(n, sizeof *wr);
  pthread_t *th = calloc(n, sizeof *th);
  int rc = w && wr && th ? 0 : ATOLL_ENOMEM;
  uint32_t made = 0;
  for (; rc == 0 && made < n; made++) {
    rc = result_init(&wr[made], s->n_expects);
    w[made] = (search){.sh = &sh, .s = s, .out = &wr[made], .mode = mode, .id = made,
                       .root_run = made == 0 && !(o && o->net && !o->root),
                       .relevant = relevant, .target = target};
    pthread_mutex_init(&w[made].lock, NULL);
  }
  sh.workers = w;
  uint32_t started = 0;
  if (rc == 0 && n == 1) {
    worker_main(&w[0]);
  } else if (rc == 0) {
    for (; started < n; started++)
      if (pthread_create(&th[started], NULL, worker_main, &w[started]) != 0)
        break;
    if (started < n) {
      /* Workers that never start never go idle: stop the others, report the failure. */
      stop_with(&sh, STOP_ERROR);
      rc = ATOLL_ENOMEM;
    }
    for (uint32_t i = 0; i < started; i++)
      pthread_join(th[i], NULL);
  }
  if (rc == 0)
    rc = atomic_load(&sh.err);
  int stop = atomic_load(&sh.stop);
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    merge_worker(s, out, &wr[i]);
    if (i == 0)
      memcpy(out->choice_points, wr[0].choice_points, sizeof out->choice_points),
          out->nominal_rt_latency_us = wr[0].nominal_rt_latency_us;
  }
  /* A witness: one worker's, of the lowest violated bound at its merged worst value (the witness
   * pass makes a complete threaded search's witness the sequential search's). */
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    int32_t e = wr[i].witness_expect;
    if (e < 0)
      continue;
    bool at_worst = worse_of(s->expects[e].cmp, wr[i].bounds[e].worst, out->bounds[e].worst) == wr[i].bounds[e].worst;
    if (out->witness_expect < 0 || (n == 1) || (e < out->witness_expect && at_worst))
      take_witness(out, &wr[i]);
  }
  /* Without pruning no state is offered to the net: `seen` holds them all (on the root process). */
  out->states = atoll_visited_count(sh.net && mode != ATOLL_EXPLORE_NO_PRUNING ? &sh.owned : &sh.seen);
  out->complete = rc == 0 && stop == STOP_NONE;
  out->why = stop == STOP_STATES    ? "the state limit (--max-states) was reached"
             : stop == STOP_SECONDS ? "the time limit (--max-seconds) was reached"
                                    : NULL;
  for (uint32_t i = 0; i < made; i++) {
    free(w[i].path);
    free(w[i].hi);
    pthread_mutex_destroy(&w[i].lock);
    atoll_explore_free(&wr[i]);
  }
  free(w), free(wr), free(th);
  for (uint32_t i = 0; i < sh.n_inbox; i++)
    free(sh.inbox[i].c);
  free(sh.inbox);
  pthread_mutex_destroy(&sh.idle_lock);
  pthread_cond_destroy(&sh.idle_cond);
  atoll_visited_free(&sh.seen);
  atoll_visited_free(&sh.owned);
  return rc;
}

/* What every search of s needs: the scenario on the blocks engine, the models' standalone times,
 * the mode and the clients the bounds read. */
typedef struct setup {
  atoll_scenario s;
  int64_t *standalone;
  bool *relevant;
  atoll_explore_mode mode;
} setup;

static void setup_free(setup *u) {
  free(u->standalone);
  free(u->relevant);
}

static int setup_make(const atoll_scenario *s0, const atoll_explore_opts *o, setup *u) {
  *u = (setup){.s = *s0};
  atoll_scenario *s = &u->s;
  s->engine = ATOLL_ENGINE_BLOCKS; /* the exact engine: the one with choice points */
  u->standalone = calloc(s->n_models ? s->n_models : 1, sizeof *u->standalone);
  u->relevant = calloc(s->n_clients ? s->n_clients : 1, sizeof *u->relevant);
  int rc = u->standalone && u->relevant ? 0 : ATOLL_ENOMEM;
  for (uint32_t m = 0; rc == 0 && m < s->n_models; m++)
    rc = atoll_sim_standalone_ns(s, m, &u->standalone[m]);
  u->mode = o && o->no_pruning ? ATOLL_EXPLORE_NO_PRUNING : mode_of(s);
  for (uint32_t c = 0; rc == 0 && c < s->n_clients; c++) {
    /* rt.* and preemptions.* read the RT clients; clients.NAME.* reads NAME. */
    u->relevant[c] = s->clients[c].cls == ATOLL_CLASS_RT;
    size_t len = strlen(s->clients[c].name);
    for (uint32_t i = 0; i < s->n_expects; i++) {
      const char *f = s->expects[i].field;
      if (strncmp(f, "clients.", 8) == 0 && strncmp(f + 8, s->clients[c].name, len) == 0 && f[8 + len] == '.')
        u->relevant[c] = true;
    }
  }
  if (rc)
    setup_free(u);
  return rc;
}

/* The nominal schedule as the whole search's first run sees it (option 0 everywhere, ended where
 * it settles), for a search by several workers or processes (atoll_explore_run). */
typedef struct nominal_ctx {
  search x;
  uint32_t kinds[ATOLL_CHOICE_KINDS];
} nominal_ctx;

static uint32_t nominal_choose(void *ctx, atoll_choice_kind kind, uint32_t n) {
  (void)n;
  ((nominal_ctx *)ctx)->kinds[kind]++;
  return 0;
}

static bool nominal_boundary(void *ctx, atoll_sim_state *st) { return !settled(&((nominal_ctx *)ctx)->x, st); }

static int nominal_run(const setup *u, atoll_explore_result *out) {
  nominal_ctx c = {.x = {.s = &u->s, .mode = u->mode, .relevant = u->relevant}};
  atoll_chooser ch = {.choose = nominal_choose, .ctx = &c};
  atoll_core_limits limits = {.pending_per_client = pending_limit(&u->s, u->standalone)};
  atoll_sim_opts so = {.chooser = &ch, .boundary = nominal_boundary, .boundary_ctx = &c,
                       .standalone_ns = u->standalone, .core_limits = &limits};
  atoll_run_results res;
  int rc = atoll_sim_run(&u->s, &so, &res);
  if (rc)
    return rc;
  atoll_report rep;
  rc = atoll_report_compute(&res, &rep);
  if (rc == 0) {
    out->nominal_rt_latency_us = rep.rt_latency_us.n ? rep.rt_latency_us.max : NAN;
    memcpy(out->choice_points, c.kinds, sizeof c.kinds);
    atoll_report_free(&rep);
  }
  atoll_run_results_free(&res);
  return rc;
}

/* The witness pass (atoll_explore_witness) on a prepared scenario. */
static int witness_pass(const setup *u, const atoll_explore_opts *o, atoll_explore_result *r) {
  const atoll_scenario *s = &u->s;
  double *target = malloc((s->n_expects ? s->n_expects : 1) * sizeof *target);
  atoll_explore_result pass;
  int rc = target ? result_init(&pass, s->n_expects) : ATOLL_ENOMEM;
  if (rc == 0) {
    for (uint32_t i = 0; i < s->n_expects; i++)
      target[i] = r->bounds[i].worst;
    atoll_explore_opts po = {.max_states = o ? o->max_states : 0};
    rc = search_run(s, &po, 1, u->mode, u->relevant, u->standalone, target, &pass);
    if (rc == 0 && pass.witness_expect >= 0)
      take_witness(r, &pass);
    atoll_explore_free(&pass);
  }
  free(target);
  return rc;
}

int atoll_explore_witness(const atoll_scenario *s0, const atoll_explore_opts *o, atoll_explore_result *r) {
  setup u;
  int rc = setup_make(s0, o, &u);
  if (rc == 0)
    rc = witness_pass(&u, o, r);
  setup_free(&u);
  return rc;
}

int atoll_explore_run(const atoll_scenario *s0, const atoll_explore_opts *o, atoll_explore_result *out) {
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  uint32_t n = o && o->threads > 1 ? o->threads : 1;
  setup u;
  int rc = result_init(out, s0->n_expects);
  if (rc)
    return rc;
  if ((rc = setup_make(s0, o, &u))) {
    atoll_explore_free(out);
    return rc;
  }
  const atoll_scenario *s = &u.s;
  out->mode = u.mode;
  out->threads = n;
  if (rc == 0)
    rc = search_run(s, o, n, u.mode, u.relevant, u.standalone, NULL, out);
  bool shares = o && o->net;
  /* The nominal figures (nominal_rt_latency_us, choice_points) are what the search's first run
   * sees. Sequentially that is the nominal schedule, never cut; with several workers another one
   * may reach a state of it first and cut it there (seen under load: nominal null and 22 of 27
   * choice points), over several processes it may be handed over, and most processes do not
   * start at the root at all. Those replay it alone. */
  if (rc == 0 && (shares || n > 1))
    rc = nominal_run(&u, out);
  /* Which schedule first reaches the worst value depends on the workers' order. The sequential
   * search's witness is the first schedule in depth-first order at the final worst value of the
   * first bound found violated: a sequential pass finds it, stopping there. */
  if (rc == 0 && n > 1 && !shares && out->complete && out->violated)
    rc = witness_pass(&u, o, out);
  /* After the search, whose witness (the first in its order) an extreme one must not replace; one
   * process of several folds them in, where the shares merge. */
  bool fold = !shares || o->root;
  if (rc == 0 && s->timing_spread > 0)
    rc = extreme_run(s, u.standalone, 1, &out->all_min_rt_latency_us, fold, out);
  if (rc == 0 && s->timing_spread > 0)
    rc = extreme_run(s, u.standalone, 2, &out->all_max_rt_latency_us, fold, out);
  setup_free(&u);
  out->busiest_events = out->events;
  out->wall_s = seconds_since(&t0);
  if (rc) {
    atoll_explore_free(out);
    return rc;
  }
  return 0;
}

void atoll_explore_free(atoll_explore_result *r) {
  free(r->bounds);
  free(r->witness);
  r->bounds = NULL;
  r->witness = NULL;
  r->n_witness = 0;
}
