/* --verify's references (nverify.h): a second pass on the same device, and a CPU-build sample. */
#include "native/runtime/nverify.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "native/models/nm_launch.h"

/* The completions of the verification queue: the last tag seen and any status but OK. */
typedef struct vstate {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t last;
  int failed;
} vstate;

static void v_done(void *ctx, uint64_t tag, atoll_ndone_status st) {
  vstate *v = ctx;
  pthread_mutex_lock(&v->mu);
  v->last = tag;
  if (st != ATOLL_ND_OK)
    v->failed = 1;
  pthread_cond_broadcast(&v->cv);
  pthread_mutex_unlock(&v->mu);
}

/* Waits (60 s at most) until the completion of `tag` arrived; completions of one queue come in
 * submission order, so every earlier launch has completed too. */
static int v_wait(vstate *v, uint64_t tag) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 60;
  int rc = 0;
  pthread_mutex_lock(&v->mu);
  while (v->last < tag && rc == 0)
    rc = pthread_cond_timedwait(&v->cv, &v->mu, &until);
  const int failed = v->failed;
  pthread_mutex_unlock(&v->mu);
  return rc ? ATOLL_EIO : failed ? ATOLL_EIO : 0;
}

int atoll_nverify_within_tolerance(const float *a, const float *ref, size_t n, double *max_abs) {
  int ok = 1;
  for (size_t i = 0; i < n; i++) {
    const double d = fabs((double)a[i] - (double)ref[i]);
    if (d > *max_abs || d != d)
      *max_abs = d != d ? INFINITY : d;
    if (!(d <= ATOLL_NVERIFY_ABS_TOL + ATOLL_NVERIFY_REL_TOL * fabs((double)ref[i])))
      ok = 0;
  }
  return ok;
}


/* Op `op` of a sampled request, run alone on the device and checked against the CPU build's kernel
 * on the same inputs: every tensor the op binds is read back first (into `before`), the op runs
 * (its completion waited for), its written tensors are read back (into `after`), and the CPU
 * kernel runs on `before`. */
static int check_op(const atoll_nbackend_ops *ops, void *be, atoll_nqueue *q, vstate *v, const atoll_nmodel *nm,
                    uint32_t op, void *const *dev, void **before, void **after, uint64_t tag,
                    atoll_nverify_counts *c) {
  const atoll_nop *o = &nm->ops[op];
  int rc = tag > 1 ? v_wait(v, tag - 1) : 0; /* the request's earlier ops (its input copy) first */
  for (uint32_t s = 0; s < AK_MAX_PTRS && rc == 0; s++)
    if (o->ptr[s] != ATOLL_NARG_NONE)
      rc = ops->copy_from_device(be, before[o->ptr[s]], dev[o->ptr[s]], nm->tensors[o->ptr[s]].bytes);
  atoll_nlaunch l;
  atoll_nmodel_launch(nm, op, 0, dev, NULL, NULL, tag, &l);
  if (rc == 0)
    rc = ops->submit(be, q, &l);
  if (rc == 0)
    rc = v_wait(v, tag);
  for (uint32_t w = 0; w < o->n_writes && rc == 0; w++)
    rc = ops->copy_from_device(be, after[o->writes[w]], dev[o->writes[w]], nm->tensors[o->writes[w]].bytes);
  if (rc == 0)
    rc = atoll_nmodel_run_blocks(nm, op, 0, before, 0, o->v[0].grid, NULL) == AK_DONE ? 0 : ATOLL_EINVAL;
  if (rc)
    return rc;
  int exact = 1, within = 1;
  for (uint32_t w = 0; w < o->n_writes; w++) {
    const uint32_t t = o->writes[w];
    exact &= memcmp(after[t], before[t], nm->tensors[t].bytes) == 0;
    within &= atoll_nverify_within_tolerance(after[t], before[t], nm->tensors[t].bytes / sizeof(float),
                                             &c->cpu_max_abs_diff);
  }
  c->cpu_launches++;
  c->cpu_bit_exact += exact;
  c->cpu_out_of_tolerance += !within;
  return 0;
}

int atoll_nverify_client(const atoll_nbackend_ops *ops, const atoll_nbackend_cfg *cfg, const atoll_nmodel *nm,
                         const uint64_t *seqs, const void *const *outputs, uint32_t n, uint32_t cpu_sample,
                         atoll_nverify_counts *counts, char *err, size_t err_len) {
  if (n == 0)
    return 0;
  int rc;
  vstate v;
  memset(&v, 0, sizeof v);
  pthread_mutex_init(&v.mu, NULL);
  pthread_cond_init(&v.cv, NULL);
  atoll_nbackend_cfg vc = {.cus = cfg->cus, .slots_per_cu = cfg->slots_per_cu, .on_complete = v_done, .ctx = &v};
  void *be = NULL;
  atoll_nqueue *q = NULL;
  void **dev = calloc(nm->n_tensors, sizeof *dev), **host = atoll_nmodel_alloc_host(nm);
  void **before = atoll_nmodel_alloc_host(nm), **after = atoll_nmodel_alloc_host(nm);
  const size_t in_bytes = nm->tensors[nm->input].bytes, out_bytes = nm->tensors[nm->output].bytes;
  void *input = malloc(in_bytes), *output = malloc(out_bytes);
  rc = dev && host && before && after && input && output ? 0 : ATOLL_ENOMEM;
  if (rc == 0 && (rc = ops->open(&vc, &be, err, err_len)) != 0)
    be = NULL;
  if (rc == 0)
    rc = ops->create_queue(be, 0, &q);
  /* Tensors as the runner sets them up: zeroed, the weights copied in once. */
  for (uint32_t t = 0; rc == 0 && t < nm->n_tensors; t++) {
    rc = ops->alloc(be, nm->tensors[t].bytes, &dev[t]);
    if (rc == 0)
      rc = ops->copy_to_device(be, dev[t], host[t], nm->tensors[t].bytes);
  }
  uint64_t tag = 0;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    nm->make_input(seqs[i], input);
    const int sampled = i < cpu_sample;
    for (uint32_t op = 0; rc == 0 && op < nm->n_ops; op++) {
      if (sampled && nm->ops[op].kind == ATOLL_OP_KERNEL) {
        rc = check_op(ops, be, q, &v, nm, op, dev, before, after, ++tag, counts);
        continue;
      }
      atoll_nlaunch l;
      atoll_nmodel_launch(nm, op, 0, dev, input, output, ++tag, &l); /* the models' only copies move the input and the output */
      rc = ops->submit(be, q, &l);
    }
    counts->cpu_requests += sampled && rc == 0;
    if (rc == 0)
      rc = v_wait(&v, tag);
    if (rc == 0) {
      counts->compared++;
      counts->mismatches += memcmp(outputs[i], output, out_bytes) != 0;
    }
  }
  if (rc && err_len && !err[0])
    snprintf(err, err_len, "verify: the reference runs of model '%s' failed on the device (%s)", nm->name,
             atoll_strerror(rc));
  if (be) {
    /* After a failure launches may still be in flight: their tensors are left to the process's
     * end rather than freed under them. */
    for (uint32_t t = 0; rc == 0 && t < nm->n_tensors; t++)
      if (dev[t])
        ops->free(be, dev[t]);
    ops->close(be);
  }
  free(dev);
  if (host)
    atoll_nmodel_free_host(nm, host);
  if (before)
    atoll_nmodel_free_host(nm, before);
  if (after)
    atoll_nmodel_free_host(nm, after);
  free(input);
  free(output);
  pthread_mutex_destroy(&v.mu);
  pthread_cond_destroy(&v.cv);
  return rc;
}
