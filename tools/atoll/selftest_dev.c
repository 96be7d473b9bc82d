/* selftest_dev.c — the self-test's harness over a back-end: opening it, collecting completions per
 * experiment, building launches for native-model ops and running op ranges in a closed loop. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "native/models/nm_launch.h"
#include "tools/atoll/selftest.h"

int64_t st_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool st_check(st_dev *d, bool ok, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  printf("  %-4s ", ok ? "ok" : "FAIL");
  vprintf(fmt, ap);
  printf("\n");
  va_end(ap);
  fflush(stdout);
  if (!ok)
    d->failures++;
  return ok;
}

static void on_complete(void *ctx, uint64_t tag, atoll_ndone_status status) {
  st_dev *d = ctx;
  const int64_t now = st_now_ns();
  pthread_mutex_lock(&d->mu);
  const uint32_t index = (uint32_t)tag;
  if ((uint32_t)(tag >> 32) != d->epoch || index >= ST_MAX_TAGS || d->done[index]) {
    d->stale++;
  } else {
    d->done[index] = 1;
    d->status[index] = (uint8_t)status;
    d->done_ns[index] = now;
    d->order[d->n_done++] = index;
    pthread_cond_broadcast(&d->cv);
  }
  pthread_mutex_unlock(&d->mu);
}

int st_open(st_dev *d, const char *device, char *err, size_t err_len) {
  pthread_mutex_init(&d->mu, NULL);
  pthread_cond_init(&d->cv, NULL);
  int rc = atoll_nbackend_lookup(device, &d->ops, err, err_len);
  if (rc)
    return rc;
  atoll_nbackend_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.on_complete = on_complete;
  cfg.ctx = d;
  rc = d->ops->open(&cfg, &d->be, err, err_len);
  if (rc)
    return rc;
  return d->ops->info(d->be, &d->info);
}

void st_close(st_dev *d) {
  if (d->be)
    d->ops->close(d->be);
  d->be = NULL;
  pthread_mutex_destroy(&d->mu);
  pthread_cond_destroy(&d->cv);
}

void st_begin(st_dev *d) {
  pthread_mutex_lock(&d->mu);
  d->epoch++;
  d->n_done = 0;
  memset(d->done, 0, sizeof d->done);
  pthread_mutex_unlock(&d->mu);
}

uint64_t st_tag(const st_dev *d, uint32_t index) { return (uint64_t)d->epoch << 32 | index; }

int st_wait(st_dev *d, uint32_t n) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += ST_WAIT_TIMEOUT_S;
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  while (d->n_done < n && rc == 0)
    rc = pthread_cond_timedwait(&d->cv, &d->mu, &until);
  const uint32_t got = d->n_done;
  pthread_mutex_unlock(&d->mu);
  if (got < n) {
    st_check(d, false, "completions: %u of %u launches completed within %d s", got, n, ST_WAIT_TIMEOUT_S);
    return -1;
  }
  return 0;
}

int st_model_open(st_dev *d, st_model *sm, const atoll_nmodel *m, uint32_t priority) {
  memset(sm, 0, sizeof *sm);
  sm->m = m;
  sm->dev = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *sm->dev);
  sm->host = atoll_nmodel_alloc_host(m);
  sm->out = malloc(m->tensors[m->output].bytes ? m->tensors[m->output].bytes : 1);
  if (!sm->dev || !sm->host || !sm->out)
    return ATOLL_ENOMEM;
  if (m->make_input)
    m->make_input(1, sm->host[m->input]);
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    int rc = d->ops->alloc(d->be, m->tensors[i].bytes, &sm->dev[i]);
    if (rc)
      return rc;
  }
  return d->ops->create_queue(d->be, priority, &sm->q);
}

void st_model_close(st_dev *d, st_model *sm) {
  if (!sm->m)
    return;
  if (sm->dev)
    for (uint32_t i = 0; i < sm->m->n_tensors; i++)
      if (sm->dev[i])
        d->ops->free(d->be, sm->dev[i]);
  free(sm->dev);
  atoll_nmodel_free_host(sm->m, sm->host);
  free(sm->out);
  memset(sm, 0, sizeof *sm);
}

int st_model_reset(st_dev *d, st_model *sm) {
  const atoll_nmodel *m = sm->m;
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    const size_t bytes = m->tensors[i].bytes;
    const void *src = sm->host[i];
    void *garbage = NULL;
    if (m->tensors[i].kind != ATOLL_TENSOR_WEIGHT) {
      garbage = malloc(bytes ? bytes : 1);
      if (!garbage)
        return ATOLL_ENOMEM;
      memset(garbage, 0xa5, bytes);
      src = garbage;
    }
    int rc = d->ops->copy_to_device(d->be, sm->dev[i], src, bytes);
    free(garbage);
    if (rc) {
      st_check(d, false, "%s: uploading tensor %s: %s", m->name, m->tensors[i].name, atoll_strerror(rc));
      return rc;
    }
  }
  memset(sm->out, 0x5a, m->tensors[m->output].bytes);
  return 0;
}

void st_model_launch(const st_model *sm, uint32_t op, uint32_t version, uint64_t tag, atoll_nlaunch *l) {
  const atoll_nmodel *m = sm->m;
  const uint32_t t = m->ops[op].ptr[0];
  atoll_nmodel_launch(m, op, version, sm->dev, sm->host[t], t == m->output ? sm->out : sm->host[t], tag, l);
}

int st_model_run(st_dev *d, st_model *sm, uint32_t from, uint32_t to, uint32_t cap) {
  st_begin(d);
  for (uint32_t op = from; op < to; op++) {
    const uint32_t submitted = op - from;
    if (submitted >= cap && st_wait(d, submitted - cap + 1) != 0)
      return -1;
    atoll_nlaunch l;
    st_model_launch(sm, op, 0, st_tag(d, op), &l);
    int rc = d->ops->submit(d->be, sm->q, &l);
    if (rc) {
      st_check(d, false, "%s op %u (%s): submit: %s", sm->m->name, op, sm->m->ops[op].name, atoll_strerror(rc));
      return -1;
    }
  }
  if (st_wait(d, to - from) != 0)
    return -1;
  for (uint32_t op = from; op < to; op++)
    if (d->status[op] != ATOLL_ND_OK) {
      st_check(d, false, "%s op %u (%s): completed with status %u, not OK", sm->m->name, op, sm->m->ops[op].name,
               d->status[op]);
      return -1;
    }
  return 0;
}
