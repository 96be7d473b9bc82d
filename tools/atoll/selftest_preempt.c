/* selftest_preempt.c — the self-test's preemption checks.
 *
 * Mechanism, with the synthetic spin kernel (long, with preemption points), one BE queue holding
 * three launches, in each phase a launch can be in when the preempt flag is set:
 *   - queued before the flag (flag set before submit): every launch EVICTED by its prologue, no
 *     execution index recorded;
 *   - running, flag only (wait-based preemption): the started launch completes OK, the queued ones
 *     are EVICTED;
 *   - running, flag + reset_cus: the started launch is KILLED at its next preemption point, the
 *     queued ones are EVICTED, the execution index names the killed launch.
 * The latencies measured: the flag write, reset_cus, and from the flag to the last BE completion
 * (the GPU free for RT work), medians over --reps.
 *
 * Restore, with every native model: for every op k, the model runs in a closed loop of 4 launches
 * in flight and is preempted (flag + reset_cus) right after op k is submitted. The completions
 * follow what a kill means in each launch state (docs/native-gpu.md): OK for launches finished and
 * reported before it; then the launches that ran or were running when it came — KILLED for kernels
 * (a GPU cannot tell a finished unreported kernel from a running one, so several may be KILLED),
 * OK for copies (never killed); then EVICTED for the launches whose prologue met the flag. The
 * model is restored from the entry of the minimal idempotent group that covers every launch from
 * the first not OK to the last that ran, run to the end, and its output must equal the
 * uninterrupted run's bit for bit. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "native/kernels/ak_catalog.h"
#include "atoll/error.h"
#include "tools/atoll/selftest.h"

#define ST_CLOSED_LOOP 4 /* launches in flight: REEF's DQ capacity */
#define ST_SPIN_THREADS 64
#define ST_SPIN_TARGET_NS 40000000 /* a spin launch of about 40 ms */

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static double median_us(int64_t *v, uint32_t n) {
  if (n == 0)
    return 0;
  qsort(v, n, sizeof *v, cmp_i64);
  return (double)v[n / 2] / 1e3;
}

static const char *status_name(uint8_t s) {
  switch (s) {
  case ATOLL_ND_OK:
    return "OK";
  case ATOLL_ND_EVICTED:
    return "EVICTED";
  case ATOLL_ND_KILLED:
    return "KILLED";
  default:
    return "FAULT";
  }
}

/* ---- mechanism ------------------------------------------------------------------------------- */

typedef struct spin_rig {
  atoll_nqueue *q;
  float *out;    /* device: one float per block */
  uint32_t grid; /* a full wave: every CU slot busy */
  int32_t iters;
  int64_t launch_ns; /* one launch alone, as calibrated */
} spin_rig;

static void spin_launch(const st_dev *d, const spin_rig *r, uint32_t index, atoll_nlaunch *l) {
  memset(l, 0, sizeof *l);
  l->kind = ATOLL_NL_KERNEL;
  l->tag = l->k.tag = st_tag(d, index);
  l->k.kernel = AK_K_SPIN;
  l->k.args.p[0] = r->out;
  l->k.args.i[0] = r->iters;
  l->k.args.i[1] = 500; /* iterations between preemption points */
  l->k.grid = l->k.block_n = r->grid;
  l->k.threads = ST_SPIN_THREADS;
  l->k.occupancy = d->info.max_occupancy;
}

/* Sizes the spin kernel to about ST_SPIN_TARGET_NS per launch. */
static int spin_calibrate(st_dev *d, spin_rig *r) {
  r->iters = 20000;
  for (int round = 0; round < 8; round++) {
    st_begin(d);
    atoll_nlaunch l;
    spin_launch(d, r, 0, &l);
    const int64_t t0 = st_now_ns();
    if (d->ops->submit(d->be, r->q, &l) != 0 || st_wait(d, 1) != 0)
      return -1;
    const int64_t took = st_now_ns() - t0;
    r->launch_ns = took;
    if (took >= ST_SPIN_TARGET_NS / 2 || r->iters >= (1 << 29) || round == 7)
      break;
    const int64_t scale = took > 0 ? ST_SPIN_TARGET_NS / took : 64;
    r->iters = (int32_t)((int64_t)r->iters * (scale < 2 ? 2 : scale > 64 ? 64 : scale));
  }
  return 0;
}

/* Waits until the launch `index` has passed its prologue (the execution index names it). */
static bool wait_started(st_dev *d, atoll_nqueue *q, uint32_t index) {
  const int64_t give_up = st_now_ns() + (int64_t)ST_WAIT_TIMEOUT_S * 1000000000;
  while (st_now_ns() < give_up) {
    uint64_t tag;
    if (d->ops->exec_index(d->be, q, &tag) == 0 && tag == st_tag(d, index))
      return true;
    struct timespec ts = {0, 20000};
    nanosleep(&ts, NULL);
  }
  return false;
}

typedef enum phase { PHASE_QUEUED, PHASE_RUNNING_FLAG, PHASE_RUNNING_RESET } phase;

typedef struct phase_times {
  int64_t flag_ns[64], reset_ns[64], free_ns[64];
  uint32_t n;
} phase_times;

/* One preemption of three spin launches in phase p. Returns true when the statuses and the
 * execution index are what the phase requires. */
static bool preempt_once(st_dev *d, spin_rig *r, phase p, phase_times *t) {
  const uint32_t n = 3;
  st_begin(d);
  uint64_t before = 0;
  const bool had_index = d->ops->exec_index(d->be, r->q, &before) == 0;
  if (p == PHASE_QUEUED && d->ops->set_flag(d->be, r->q, true) != 0)
    return false;
  for (uint32_t i = 0; i < n; i++) {
    atoll_nlaunch l;
    spin_launch(d, r, i, &l);
    if (d->ops->submit(d->be, r->q, &l) != 0)
      return false;
  }
  int64_t t0 = st_now_ns(), t1 = t0, t2 = t0;
  if (p != PHASE_QUEUED) {
    if (!wait_started(d, r->q, 0))
      return st_check(d, false, "spin launch 0 never started"), false;
    t0 = st_now_ns();
    if (d->ops->set_flag(d->be, r->q, true) != 0)
      return false;
    t1 = t2 = st_now_ns();
    if (p == PHASE_RUNNING_RESET) {
      if (!d->ops->reset_cus || d->ops->reset_cus(d->be) != 0)
        return false;
      t2 = st_now_ns();
    }
  }
  if (st_wait(d, n) != 0)
    return false;
  int64_t last = 0;
  for (uint32_t i = 0; i < n; i++)
    if (d->done_ns[i] > last)
      last = d->done_ns[i];
  if (d->ops->set_flag(d->be, r->q, false) != 0)
    return false;
  uint8_t want[3] = {ATOLL_ND_EVICTED, ATOLL_ND_EVICTED, ATOLL_ND_EVICTED};
  if (p == PHASE_RUNNING_FLAG)
    want[0] = ATOLL_ND_OK;
  if (p == PHASE_RUNNING_RESET)
    want[0] = ATOLL_ND_KILLED;
  bool ok = true;
  for (uint32_t i = 0; i < n; i++)
    ok &= d->status[i] == want[i];
  uint64_t after = 0;
  const bool has_index = d->ops->exec_index(d->be, r->q, &after) == 0;
  if (p == PHASE_QUEUED)
    ok &= has_index == had_index && (!has_index || after == before);
  else
    ok &= has_index && after == st_tag(d, 0);
  if (!ok)
    printf("       statuses %s %s %s, execution index %s\n", status_name(d->status[0]), status_name(d->status[1]),
           status_name(d->status[2]), has_index ? (after == st_tag(d, 0) ? "= launch 0" : "other") : "none");
  if (ok && t->n < 64) {
    t->flag_ns[t->n] = t1 - t0;
    t->reset_ns[t->n] = t2 - t1;
    t->free_ns[t->n] = last - t0;
    t->n++;
  }
  return ok;
}

void st_check_preemption(st_dev *d) {
  printf("preemption mechanism (spin kernel, 3 launches on one queue)\n");
  spin_rig r;
  memset(&r, 0, sizeof r);
  r.grid = d->info.cus * (d->info.max_occupancy ? d->info.max_occupancy : 1);
  if (d->ops->create_queue(d->be, 0, &r.q) != 0 || d->ops->alloc(d->be, r.grid * sizeof(float), (void **)&r.out) != 0 ||
      spin_calibrate(d, &r) != 0) {
    st_check(d, false, "spin set-up failed");
    return;
  }
  const char *names[3] = {"queued launches, flag set before they run: all evicted, no index",
                          "running launch, flag only (wait): it completes, the queued ones are evicted",
                          "running launch, flag + reset_cus: it is killed, the queued ones are evicted"};
  phase_times times[3];
  memset(times, 0, sizeof times);
  for (int p = 0; p < 3; p++) {
    uint32_t good = 0;
    for (uint32_t rep = 0; rep < d->reps; rep++)
      good += preempt_once(d, &r, (phase)p, &times[p]);
    st_check(d, good == d->reps, "%s (%u/%u)", names[p], good, d->reps);
  }
  printf("  latency (medians over %u; one spin launch alone: %.1f ms, %d iterations per thread)\n", d->reps,
         (double)r.launch_ns / 1e6, r.iters);
  printf("    set_flag                       %10.1f us\n", median_us(times[1].flag_ns, times[1].n));
  printf("    reset_cus                      %10.1f us\n", median_us(times[2].reset_ns, times[2].n));
  printf("    flag -> BE gone, wait-based    %10.1f us\n", median_us(times[1].free_ns, times[1].n));
  printf("    flag -> BE gone, with reset    %10.1f us\n", median_us(times[2].free_ns, times[2].n));
  d->ops->free(d->be, r.out);
}

/* ---- restore --------------------------------------------------------------------------------- */

/* The tensors op `op` reads and writes (copies and memsets by their kind, kernels by their roles). */
static void op_roles(const atoll_nop *o, const uint32_t **reads, uint32_t *n_reads, const uint32_t **writes,
                     uint32_t *n_writes) {
  *reads = o->reads;
  *n_reads = o->n_reads;
  *writes = o->writes;
  *n_writes = o->n_writes;
  if (o->kind == ATOLL_OP_MEMCPY_H2D || o->kind == ATOLL_OP_MEMSET) {
    *n_reads = 0;
    *writes = &o->ptr[0];
    *n_writes = 1;
  } else if (o->kind == ATOLL_OP_MEMCPY_D2H) {
    *reads = &o->ptr[0];
    *n_reads = 1;
    *n_writes = 0;
  }
}

/* Ops [j, k] are idempotent when no tensor the group reads before writing it is written by the
 * group (DESIGN.md, idem_checker; an op that reads and writes a tensor reads it first). Tensor
 * granularity: coarser than idem_checker's byte ranges, so never less safe. */
static bool group_idempotent(const atoll_nmodel *m, uint32_t j, uint32_t k) {
  uint8_t *written = calloc(m->n_tensors, 1), *read_first = calloc(m->n_tensors, 1);
  bool ok = written && read_first;
  for (uint32_t op = j; op <= k && ok; op++) {
    const uint32_t *rd, *wr;
    uint32_t nr, nw;
    op_roles(&m->ops[op], &rd, &nr, &wr, &nw);
    for (uint32_t i = 0; i < nr; i++)
      if (!written[rd[i]])
        read_first[rd[i]] = 1;
    for (uint32_t i = 0; i < nw; i++)
      written[wr[i]] = 1;
  }
  for (uint32_t t = 0; t < m->n_tensors && ok; t++)
    ok = !(written[t] && read_first[t]);
  free(written);
  free(read_first);
  return ok;
}

/* The entry j <= first of the minimal idempotent group [j, last] (grown backwards from first):
 * ops first..last may each have run partly or wholly, so all of them run again from j. */
static uint32_t group_entry(const atoll_nmodel *m, uint32_t first, uint32_t last) {
  for (uint32_t j = first + 1; j-- > 0;)
    if (group_idempotent(m, j, last))
      return j;
  return 0;
}

typedef struct restore_tally {
  uint32_t runs, killed, evicted, untouched, group_restarts, exact;
} restore_tally;

/* Preempts the model right after op k is submitted, restores it, and compares its output with ref. */
static bool restore_once(st_dev *d, st_model *sm, uint32_t k, const void *ref, restore_tally *t) {
  const atoll_nmodel *m = sm->m;
  if (st_model_reset(d, sm) != 0)
    return false;
  st_begin(d);
  uint32_t submitted = 0;
  for (uint32_t op = 0; op <= k; op++, submitted++) {
    if (submitted >= ST_CLOSED_LOOP && st_wait(d, submitted - ST_CLOSED_LOOP + 1) != 0)
      return false;
    atoll_nlaunch l;
    st_model_launch(sm, op, 0, st_tag(d, op), &l);
    if (d->ops->submit(d->be, sm->q, &l) != 0)
      return false;
  }
  if (d->ops->set_flag(d->be, sm->q, true) != 0 || (d->ops->reset_cus && d->ops->reset_cus(d->be) != 0))
    return false;
  if (st_wait(d, submitted) != 0 || d->ops->set_flag(d->be, sm->q, false) != 0)
    return false;
  /* In-order completion (docs/native-gpu.md): OK*, then the launches the kill reached, KILLED
   * kernels and OK copies (copies are never killed), then EVICTED* (copies and memsets pass the
   * same prologue as kernels). Only kernels record the execution index. */
  uint32_t first_bad = submitted, last_ran = UINT32_MAX, last_started = UINT32_MAX;
  bool pattern = true, evicting = false;
  for (uint32_t op = 0; op < submitted; op++) {
    const uint8_t s = d->status[op];
    const bool kernel = m->ops[op].kind == ATOLL_OP_KERNEL;
    if (kernel && (s == ATOLL_ND_OK || s == ATOLL_ND_KILLED))
      last_started = op;
    if (first_bad == submitted && s != ATOLL_ND_OK)
      first_bad = op;
    if (s == ATOLL_ND_EVICTED)
      evicting = true;
    else if (first_bad < submitted)
      last_ran = op;
    if (evicting)
      pattern &= s == ATOLL_ND_EVICTED;
    else
      pattern &= s == ATOLL_ND_OK || (kernel && s == ATOLL_ND_KILLED);
  }
  uint64_t idx = 0;
  const bool has_index = d->ops->exec_index(d->be, sm->q, &idx) == 0;
  const bool index_ok = last_started == UINT32_MAX || (has_index && idx == st_tag(d, last_started));
  if (!pattern || !index_ok) {
    printf("       %s, preempted after op %u: ", m->name, k);
    for (uint32_t op = 0; op < submitted; op++)
      printf("%s%s", op ? " " : "", status_name(d->status[op]));
    printf("; execution index %s\n", index_ok ? "ok" : "wrong");
    return false;
  }
  uint32_t restart = first_bad;
  if (first_bad < submitted && d->status[first_bad] == ATOLL_ND_KILLED) {
    restart = group_entry(m, first_bad, last_ran);
    t->killed++;
    t->group_restarts += restart < first_bad;
  } else if (first_bad < submitted) {
    t->evicted++;
  } else {
    t->untouched++;
  }
  t->runs++;
  if (st_model_run(d, sm, restart, m->n_ops, ST_CLOSED_LOOP) != 0)
    return false;
  const bool same = memcmp(sm->out, ref, m->tensors[m->output].bytes) == 0;
  t->exact += same;
  if (!same)
    printf("       %s, preempted after op %u, restarted at op %u: output differs\n", m->name, k, restart);
  return same;
}

static void restore_model(st_dev *d, const atoll_nmodel *m) {
  st_model sm;
  void *ref = NULL;
  if (st_model_open(d, &sm, m, 0) != 0 || !(ref = malloc(m->tensors[m->output].bytes))) {
    st_check(d, false, "%s: cannot allocate its tensors", m->name);
    goto out;
  }
  if (st_model_reset(d, &sm) != 0 || st_model_run(d, &sm, 0, m->n_ops, ST_CLOSED_LOOP) != 0) {
    st_check(d, false, "%s: the uninterrupted run failed", m->name);
    goto out;
  }
  memcpy(ref, sm.out, m->tensors[m->output].bytes);
  restore_tally t;
  memset(&t, 0, sizeof t);
  bool all = true;
  for (uint32_t k = 0; k < m->n_ops; k++)
    all &= restore_once(d, &sm, k, ref, &t);
  st_check(d, all && t.exact == m->n_ops,
           "%-14s %u preemption points: %u killed a launch (%u restarted at an earlier group entry), %u evicted "
           "only, %u came too late; %u/%u outputs bit-exact",
           m->name, m->n_ops, t.killed, t.group_restarts, t.evicted, t.untouched, t.exact, m->n_ops);
out:
  free(ref);
  st_model_close(d, &sm);
}

bool st_list_next(const char **p, const char **entry, size_t *len) {
  if (!**p)
    return false;
  const char *comma = strchr(*p, ',');
  *entry = *p;
  *len = comma ? (size_t)(comma - *p) : strlen(*p);
  *p += *len + (comma != NULL);
  return true;
}

bool st_model_listed(const char *list, const char *name) {
  if (!list)
    return true;
  const char *entry;
  size_t len;
  while (st_list_next(&list, &entry, &len))
    if (len == strlen(name) && strncmp(entry, name, len) == 0)
      return true;
  return false;
}

void st_check_restore(st_dev *d) {
  if (d->restore_models)
    printf("preemption at every op of the native models %s (--restore-models), restore, bit-exact output\n",
           d->restore_models);
  else
    printf("preemption at every op of every native model, restore, bit-exact output\n");
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++)
    if (st_model_listed(d->restore_models, atoll_nmodel_at(i)->name))
      restore_model(d, atoll_nmodel_at(i));
}
