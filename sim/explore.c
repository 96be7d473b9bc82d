/* Exhaustive schedule exploration (explore.h): stateless depth-first search over choice lists. */
#include "sim/explore.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "run/report.h"
#include "sim/run.h"

/* --- the visited set: open addressing over 64-bit state hashes (0 marks an empty slot) --- */

typedef struct visited {
  uint64_t *slot;
  uint64_t cap, count; /* cap is a power of two */
} visited;

static int visited_grow(visited *v) {
  uint64_t cap = v->cap ? v->cap * 2 : 1u << 16;
  uint64_t *ns = calloc(cap, sizeof *ns);
  if (!ns)
    return ATOLL_ENOMEM;
  for (uint64_t i = 0; i < v->cap; i++) {
    uint64_t k = v->slot[i];
    if (!k)
      continue;
    uint64_t j = k & (cap - 1);
    while (ns[j])
      j = (j + 1) & (cap - 1);
    ns[j] = k;
  }
  free(v->slot);
  v->slot = ns;
  v->cap = cap;
  return 0;
}

/* Adds k; returns 1 if it was there already, 0 if added, or ATOLL_ENOMEM. */
static int visited_add(visited *v, uint64_t k) {
  if (k == 0)
    k = 1;
  if ((v->count + 1) * 4 > v->cap * 3) {
    int rc = visited_grow(v);
    if (rc)
      return rc;
  }
  uint64_t j = k & (v->cap - 1);
  while (v->slot[j]) {
    if (v->slot[j] == k)
      return 1;
    j = (j + 1) & (v->cap - 1);
  }
  v->slot[j] = k;
  v->count++;
  return 0;
}

/* --- the search --- */

typedef struct search {
  const atoll_scenario *s;
  const atoll_explore_opts *o;
  atoll_explore_result *out;
  atoll_explore_mode mode;
  visited seen;
  /* The schedule being run: what path holds when a run starts is replayed, the rest is new (option 0). */
  atoll_choice_rec *path;
  uint32_t len, cap, pos;
  bool stop_all; /* the state limit was reached */
  bool cut;      /* this run ended at a state seen before */
  bool settled;  /* this run ended where no bound's value can change any more */
  bool replaying; /* this run has not yet passed its last replayed choice */
  /* Requests finished at the last event boundary before the run's first new choice. */
  uint64_t done_at_replay_end;
  /* Fold mode: the clients whose requests the bounds (and the worst RT latency) read. */
  bool *relevant;
  int err;
  const int64_t *standalone;
} search;

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
  if (x->len == x->cap) {
    uint32_t cap = x->cap ? x->cap * 2 : 256;
    atoll_choice_rec *np = realloc(x->path, cap * sizeof *np);
    if (!np) {
      x->err = ATOLL_ENOMEM;
      return 0;
    }
    x->path = np, x->cap = cap;
  }
  x->path[x->len++] = (atoll_choice_rec){.kind = (uint8_t)kind, .option = 0, .n = n};
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

static bool dfs_boundary(void *ctx, atoll_sim_state *st) {
  search *x = ctx;
  if (x->err)
    return false;
  if (x->pos < x->len) {
    /* Still replaying: these states belong to runs already made. */
    if (x->mode == ATOLL_EXPLORE_FOLD)
      x->done_at_replay_end = finished_requests(x, atoll_sim_state_results(st));
    return true;
  }
  if (x->replaying) {
    x->replaying = false;
    x->out->replayed_events += atoll_sim_state_events(st);
  }
  if (settled(x, st)) {
    x->settled = true;
    return false;
  }
  uint64_t h;
  int rc = atoll_sim_state_hash(st, x->mode == ATOLL_EXPLORE_EXACT ? ATOLL_HASH_WITH_RECORDS : ATOLL_HASH_FUTURE_ONLY,
                                &h);
  if (rc == 0)
    rc = visited_add(&x->seen, h);
  if (rc < 0) {
    x->err = rc;
    return false;
  }
  if (rc == 1 && x->mode != ATOLL_EXPLORE_NO_PRUNING) {
    x->cut = true;
    if (x->mode == ATOLL_EXPLORE_FOLD && (rc = fold_past(x, atoll_sim_state_results(st))))
      x->err = rc;
    return false;
  }
  x->out->states = x->seen.count;
  if (x->o && x->o->max_states && x->seen.count >= x->o->max_states) {
    x->stop_all = true;
    return false;
  }
  return true;
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
  x->len = x->pos < x->len ? x->pos : x->len;
  while (x->len > 0 && x->path[x->len - 1].option + 1 == x->path[x->len - 1].n)
    x->len--;
  if (x->len == 0)
    return false;
  x->path[x->len - 1].option++;
  return true;
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
    if (n > most)
      most = n;
  }
  return most + 1 < 1024 ? (uint32_t)most + 1 : 1024;
}

/* Every duration at one extreme (option 1 shortest, 2 longest), every other choice nominal. */
static uint32_t extreme_choose(void *ctx, atoll_choice_kind kind, uint32_t n) {
  (void)n;
  return kind == ATOLL_CHOICE_DURATION ? *(const uint32_t *)ctx : 0;
}

static int extreme_run(const atoll_scenario *s, const int64_t *standalone, uint32_t option, double *out) {
  atoll_chooser ch = {.choose = extreme_choose, .ctx = &option};
  atoll_sim_opts so = {.chooser = &ch, .standalone_ns = standalone};
  atoll_run_results res;
  int rc = atoll_sim_run(s, &so, &res);
  if (rc)
    return rc;
  atoll_report rep;
  rc = atoll_report_compute(&res, &rep);
  if (rc == 0) {
    *out = rep.rt_latency_us.n ? rep.rt_latency_us.max : NAN;
    atoll_report_free(&rep);
  }
  atoll_run_results_free(&res);
  return rc;
}

const char *atoll_explore_mode_name(atoll_explore_mode m) {
  return m == ATOLL_EXPLORE_FOLD ? "fold" : m == ATOLL_EXPLORE_EXACT ? "exact" : "no pruning";
}

int atoll_explore_run(const atoll_scenario *s0, const atoll_explore_opts *o, atoll_explore_result *out) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  *out = (atoll_explore_result){.witness_expect = -1, .worst_rt_latency_us = NAN, .nominal_rt_latency_us = NAN};
  atoll_scenario s = *s0;
  s.engine = ATOLL_ENGINE_BLOCKS; /* the exact engine: the one with choice points */
  out->bounds = calloc(s.n_expects ? s.n_expects : 1, sizeof *out->bounds);
  int64_t *standalone = calloc(s.n_models ? s.n_models : 1, sizeof *standalone);
  if (!out->bounds || !standalone) {
    free(standalone);
    atoll_explore_free(out);
    return ATOLL_ENOMEM;
  }
  for (uint32_t i = 0; i < s.n_expects; i++)
    out->bounds[i] = (atoll_explore_bound){.worst = NAN, .holds = true, .margin = NAN};
  int rc = 0;
  for (uint32_t m = 0; rc == 0 && m < s.n_models; m++)
    rc = atoll_sim_standalone_ns(&s, m, &standalone[m]);
  search x = {.s = &s, .o = o, .out = out, .mode = o && o->no_pruning ? ATOLL_EXPLORE_NO_PRUNING : mode_of(&s),
              .standalone = standalone};
  out->mode = x.mode;
  x.relevant = calloc(s.n_clients ? s.n_clients : 1, sizeof *x.relevant);
  if (!x.relevant)
    rc = ATOLL_ENOMEM;
  for (uint32_t c = 0; rc == 0 && c < s.n_clients; c++) {
    /* rt.* and preemptions.* read the RT clients; clients.NAME.* reads NAME. */
    x.relevant[c] = s.clients[c].cls == ATOLL_CLASS_RT;
    size_t len = strlen(s.clients[c].name);
    for (uint32_t i = 0; i < s.n_expects; i++) {
      const char *f = s.expects[i].field;
      if (strncmp(f, "clients.", 8) == 0 && strncmp(f + 8, s.clients[c].name, len) == 0 && f[8 + len] == '.')
        x.relevant[c] = true;
    }
  }
  atoll_chooser chooser = {.choose = dfs_choose, .ctx = &x};
  atoll_core_limits limits = {.pending_per_client = rc == 0 ? pending_limit(&s, standalone) : 1};
  atoll_sim_opts so = {.chooser = &chooser, .boundary = dfs_boundary, .boundary_ctx = &x, .standalone_ns = standalone,
                       .core_limits = &limits};
  out->all_min_rt_latency_us = out->all_max_rt_latency_us = NAN;
  if (rc == 0 && s.timing_spread > 0)
    rc = extreme_run(&s, standalone, 1, &out->all_min_rt_latency_us);
  if (rc == 0 && s.timing_spread > 0)
    rc = extreme_run(&s, standalone, 2, &out->all_max_rt_latency_us);
  bool more = rc == 0;
  while (more) {
    x.pos = 0;
    x.cut = x.settled = false;
    x.replaying = true;
    x.done_at_replay_end = 0;
    atoll_run_results res;
    rc = atoll_sim_run(&s, &so, &res);
    if (rc)
      break;
    if (x.err) {
      rc = x.err;
      atoll_run_results_free(&res);
      break;
    }
    out->events += res.events;
    if (x.pos > out->max_depth)
      out->max_depth = x.pos;
    if (out->schedules == 0 && out->pruned == 0) {
      /* The first run takes option 0 everywhere: the ordinary simulation. */
      for (uint32_t i = 0; i < x.len; i++)
        out->choice_points[x.path[i].kind]++;
    }
    if (!x.cut && !x.stop_all) {
      bool first = out->schedules == 0;
      out->schedules++;
      rc = take_schedule(&x, &res, !x.settled);
      if (first && rc == 0)
        out->nominal_rt_latency_us = out->worst_rt_latency_us;
    } else if (x.cut) {
      out->pruned++;
    }
    atoll_run_results_free(&res);
    if (rc)
      break;
    if (x.stop_all) {
      out->why = "the state limit (--max-states) was reached";
      break;
    }
    if (((out->schedules + out->pruned) & 255) == 0) {
      if (o && o->progress)
        o->progress(o->progress_ctx, out->states, out->schedules);
      clock_gettime(CLOCK_MONOTONIC, &t1);
      double spent = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
      if (o && o->max_seconds > 0 && spent > o->max_seconds) {
        out->why = "the time limit (--max-seconds) was reached";
        break;
      }
    }
    more = backtrack(&x);
    if (!more)
      out->complete = true;
  }
  out->states = x.seen.count;
  free(x.path);
  free(x.relevant);
  free(x.seen.slot);
  free(standalone);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  out->wall_s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
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
