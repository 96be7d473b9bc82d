/* Timing one operator group on a native device (ngroup_time.h). */
#include "native/runtime/ngroup_time.h"

#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "native/models/nm_launch.h"

struct atoll_ngroup_timer {
  const atoll_nbackend_ops *ops;
  void *be;
  atoll_nqueue *q[ATOLL_GROUP_MAX];
  const atoll_nmodel *const *nm;
  uint32_t n_models, repeats;
  void **dev[ATOLL_PRED_MAX_MODELS];  /* per model: its device tensors */
  void *h2d[ATOLL_PRED_MAX_MODELS];   /* per model: its input, the source of its h2d copies */
  void *d2h[ATOLL_PRED_MAX_MODELS];   /* per model: where its d2h copies land */
  uint64_t tag;
  atomic_ullong done;
  atomic_int failed;
};

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void on_done(void *ctx, uint64_t tag, atoll_ndone_status st) {
  (void)tag;
  atoll_ngroup_timer *t = ctx;
  if (st != ATOLL_ND_OK)
    atomic_store(&t->failed, 1);
  atomic_fetch_add(&t->done, 1);
}

/* The largest tensor of nm (a d2h copy may name any of them). */
static size_t largest_tensor(const atoll_nmodel *nm) {
  size_t most = 1;
  for (uint32_t i = 0; i < nm->n_tensors; i++)
    if (nm->tensors[i].bytes > most)
      most = nm->tensors[i].bytes;
  return most;
}

/* Model m's tensors on the device, filled as after one reference run (realistic values). */
static int load_model(atoll_ngroup_timer *t, uint32_t m) {
  const atoll_nmodel *nm = t->nm[m];
  void **host = atoll_nmodel_alloc_host(nm);
  t->dev[m] = calloc(nm->n_tensors, sizeof *t->dev[m]);
  t->h2d[m] = calloc(1, largest_tensor(nm));
  t->d2h[m] = calloc(1, largest_tensor(nm));
  int rc = host && t->dev[m] && t->h2d[m] && t->d2h[m] ? 0 : ATOLL_ENOMEM;
  if (rc == 0) {
    nm->make_input(0, host[nm->input]);
    memcpy(t->h2d[m], host[nm->input], nm->tensors[nm->input].bytes);
    rc = atoll_nmodel_run_reference(nm, host);
  }
  for (uint32_t i = 0; rc == 0 && i < nm->n_tensors; i++) {
    rc = t->ops->alloc(t->be, nm->tensors[i].bytes, &t->dev[m][i]);
    if (rc == 0)
      rc = t->ops->copy_to_device(t->be, t->dev[m][i], host[i], nm->tensors[i].bytes);
  }
  if (host)
    atoll_nmodel_free_host(nm, host);
  return rc;
}

void atoll_ngroup_timer_close(atoll_ngroup_timer *t) {
  if (!t)
    return;
  for (uint32_t m = 0; m < t->n_models; m++) {
    for (uint32_t i = 0; t->be && t->dev[m] && i < t->nm[m]->n_tensors; i++)
      if (t->dev[m][i])
        t->ops->free(t->be, t->dev[m][i]);
    free(t->dev[m]);
    free(t->h2d[m]);
    free(t->d2h[m]);
  }
  if (t->be)
    t->ops->close(t->be);
  free(t);
}

int atoll_ngroup_timer_open(atoll_ngroup_timer **out, const atoll_scenario *s, const atoll_native_opts *o,
                            uint32_t repeats, char *err, size_t err_len) {
  *out = NULL;
  if (s->n_models == 0 || s->n_models > ATOLL_PRED_MAX_MODELS || !o->nmodels || repeats == 0) {
    snprintf(err, err_len, "a group timer needs 1 to %d models, each with its native model, and repeats >= 1",
             ATOLL_PRED_MAX_MODELS);
    return ATOLL_EINVAL;
  }
  int rc = atoll_native_check(s, o->nmodels, err, err_len);
  if (rc)
    return rc;
  atoll_ngroup_timer *t = calloc(1, sizeof *t);
  if (!t)
    return ATOLL_ENOMEM;
  t->nm = o->nmodels, t->n_models = s->n_models, t->repeats = repeats;
  atomic_init(&t->done, 0);
  atomic_init(&t->failed, 0);
  atoll_nbackend_cfg cfg = {.cus = o->cus, .slots_per_cu = o->slots_per_cu, .pin_threads = o->pin_threads,
                            .on_complete = on_done, .ctx = t};
  rc = atoll_nbackend_lookup(o->device ? o->device : "cpu", &t->ops, err, err_len);
  if (rc == 0 && (rc = t->ops->open(&cfg, &t->be, err, err_len)) != 0)
    t->be = NULL;
  for (uint32_t i = 0; rc == 0 && i < ATOLL_GROUP_MAX; i++)
    rc = t->ops->create_queue(t->be, 0, &t->q[i]);
  for (uint32_t m = 0; rc == 0 && m < s->n_models; m++)
    rc = load_model(t, m);
  if (rc) {
    if (!*err)
      snprintf(err, err_len, "cannot set the device up for timing groups (%s)", atoll_strerror(rc));
    atoll_ngroup_timer_close(t);
    return rc;
  }
  *out = t;
  return 0;
}

/* Submits every slice of g, one op of each member in turn so that all start together, and waits
 * for the last completion: the time from the first submit, or -1. */
static int64_t run_once(atoll_ngroup_timer *t, const atoll_group *g) {
  uint32_t total = 0, next[ATOLL_GROUP_MAX];
  for (uint32_t i = 0; i < g->n; i++)
    total += g->op_end[i] - g->op_start[i], next[i] = g->op_start[i];
  uint64_t target = atomic_load(&t->done) + total;
  int64_t t0 = now_ns();
  for (uint32_t sent = 0; sent < total;)
    for (uint32_t i = 0; i < g->n; i++) {
      if (next[i] == g->op_end[i])
        continue;
      uint32_t m = g->model[i];
      atoll_nlaunch l;
      atoll_nmodel_launch(t->nm[m], next[i]++, 0, t->dev[m], t->h2d[m], t->d2h[m], ++t->tag, &l);
      if (t->ops->submit(t->be, t->q[i], &l) != 0)
        return -1;
      sent++;
    }
  /* Busy-polls, yielding, as the runtime's scheduler thread polls its inbox while work is recent. */
  int64_t until = t0 + (int64_t)60 * 1000000000;
  while (atomic_load(&t->done) < target) {
    if (now_ns() > until)
      return -1;
    sched_yield();
  }
  int64_t dt = now_ns() - t0;
  return atomic_load(&t->failed) ? -1 : dt;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

int atoll_ngroup_time(void *timer, const atoll_scenario *s, const atoll_group *g, int64_t *out_ns) {
  atoll_ngroup_timer *t = timer;
  if (g->n == 0 || g->n > ATOLL_GROUP_MAX || s->n_models != t->n_models)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < g->n; i++) {
    if (g->model[i] >= t->n_models)
      return ATOLL_EINVAL;
    for (uint32_t j = 0; j < i; j++)
      if (g->model[j] == g->model[i])
        return ATOLL_EINVAL; /* one set of tensors per model: a model runs once per group */
    if (g->op_start[i] >= g->op_end[i] || g->op_end[i] > t->nm[g->model[i]]->n_ops)
      return ATOLL_EINVAL;
  }
  int64_t v[64];
  uint32_t n = t->repeats < 64 ? t->repeats : 64;
  if (run_once(t, g) < 0) /* warm-up: caches and the workers' wake-up */
    return ATOLL_EIO;
  for (uint32_t r = 0; r < n; r++)
    if ((v[r] = run_once(t, g)) < 0)
      return ATOLL_EIO;
  qsort(v, n, sizeof *v, cmp_i64);
  *out_ns = v[(n - 1) / 2];
  return 0;
}
