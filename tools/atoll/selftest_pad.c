/* selftest_pad.c — the self-test's padded-launch check (REEF §5).
 *
 * Two native models share the device: an RT model and a BE model (the catalogue's first and last,
 * each with its own tensors and queue). Both run up to a chosen kernel op; then ONE padded launch on
 * the RT queue runs the RT op whole and the BE op as two block ranges (BE parts); then both models
 * run to the end. Both outputs must equal their uninterrupted runs bit for bit, and the completions
 * must come parts first, then the launch. The chosen ops are idempotent ones (they read nothing
 * they write), so they can be launched again and again for the timing: the RT op alone, the BE op
 * alone, and the padded launch, medians over --reps, reported as the padded launch's time over the
 * RT op's (REEF's overhead is the RT kernel's slowdown when padded; this is an upper bound on it,
 * since the padded launch also runs the BE blocks). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/selftest.h"

static int cmp_i64(const void *a, const void *b) {
  const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The idempotent kernel op with the largest grid (at least 2 blocks); n_ops when none. */
static uint32_t pick_op(const atoll_nmodel *m) {
  uint32_t best = m->n_ops;
  for (uint32_t op = 0; op < m->n_ops; op++) {
    const atoll_nop *o = &m->ops[op];
    if (o->kind != ATOLL_OP_KERNEL || o->v[0].grid < 2)
      continue;
    bool inplace = false;
    for (uint32_t r = 0; r < o->n_reads; r++)
      for (uint32_t w = 0; w < o->n_writes; w++)
        inplace |= o->reads[r] == o->writes[w];
    if (!inplace && (best == m->n_ops || o->v[0].grid > m->ops[best].v[0].grid))
      best = op;
  }
  return best;
}

/* The padded launch: RT op `a` of rt whole, BE op `b` of be as blocks [0, h) and [h, grid). */
static void padded_launch(const st_dev *d, const st_model *rt, uint32_t a, const st_model *be, uint32_t b,
                          atoll_nlaunch *l) {
  atoll_nlaunch bel;
  st_model_launch(rt, a, 0, st_tag(d, 0), l);
  st_model_launch(be, b, 0, 0, &bel);
  l->kind = ATOLL_NL_PADDED;
  l->n_parts = 2;
  const uint32_t grid = bel.k.grid, h = grid / 2;
  for (uint32_t i = 0; i < 2; i++) {
    l->parts[i] = bel.k;
    l->parts[i].block_lo = i == 0 ? 0 : h;
    l->parts[i].block_n = i == 0 ? h : grid - h;
    l->parts[i].tag = st_tag(d, 1 + i);
  }
}

/* Median wall time of `reps` single launches (submit to completion). */
static double time_launch_us(st_dev *d, atoll_nqueue *q, const st_model *rt, uint32_t a, const st_model *be,
                             uint32_t b, int which) {
  int64_t *t = calloc(d->reps, sizeof *t);
  if (!t)
    return -1;
  uint32_t n = 0;
  for (uint32_t rep = 0; rep < d->reps; rep++) {
    st_begin(d);
    atoll_nlaunch l;
    if (which == 0)
      st_model_launch(rt, a, 0, st_tag(d, 0), &l);
    else if (which == 1)
      st_model_launch(be, b, 0, st_tag(d, 0), &l);
    else
      padded_launch(d, rt, a, be, b, &l);
    const uint32_t completions = which == 2 ? 3 : 1;
    const int64_t t0 = st_now_ns();
    if (d->ops->submit(d->be, q, &l) != 0 || st_wait(d, completions) != 0)
      break;
    t[n++] = st_now_ns() - t0;
  }
  qsort(t, n, sizeof *t, cmp_i64);
  const double us = n ? (double)t[n / 2] / 1e3 : -1;
  free(t);
  return us;
}

void st_check_padding(st_dev *d) {
  printf("padded launches (RT kernel + 2 BE parts in one launch)\n");
  if (!d->info.can_pad) {
    printf("  the back-end reports no padded launches: skipped\n");
    return;
  }
  const atoll_nmodel *mr = atoll_nmodel_at(0), *mb = atoll_nmodel_at(atoll_nmodel_count() - 1);
  st_model rt, be;
  memset(&rt, 0, sizeof rt);
  memset(&be, 0, sizeof be);
  void *ref_rt = NULL, *ref_be = NULL;
  const uint32_t a = pick_op(mr), b = pick_op(mb);
  if (a == mr->n_ops || b == mb->n_ops) {
    st_check(d, false, "no idempotent kernel op with 2 or more blocks in %s / %s", mr->name, mb->name);
    return;
  }
  if (st_model_open(d, &rt, mr, 1) != 0 || st_model_open(d, &be, mb, 0) != 0 ||
      !(ref_rt = malloc(mr->tensors[mr->output].bytes)) || !(ref_be = malloc(mb->tensors[mb->output].bytes))) {
    st_check(d, false, "padding set-up failed");
    goto out;
  }
  /* The uninterrupted outputs. */
  if (st_model_reset(d, &rt) || st_model_run(d, &rt, 0, mr->n_ops, 4) || st_model_reset(d, &be) ||
      st_model_run(d, &be, 0, mb->n_ops, 4))
    goto out;
  memcpy(ref_rt, rt.out, mr->tensors[mr->output].bytes);
  memcpy(ref_be, be.out, mb->tensors[mb->output].bytes);
  /* Up to the chosen ops, the padded launch, then the rest. */
  if (st_model_reset(d, &rt) || st_model_reset(d, &be) || st_model_run(d, &rt, 0, a, 4) ||
      st_model_run(d, &be, 0, b, 4))
    goto out;
  st_begin(d);
  atoll_nlaunch l;
  padded_launch(d, &rt, a, &be, b, &l);
  if (d->ops->submit(d->be, rt.q, &l) != 0 || st_wait(d, 3) != 0)
    goto out;
  const bool statuses = d->status[0] == ATOLL_ND_OK && d->status[1] == ATOLL_ND_OK && d->status[2] == ATOLL_ND_OK;
  const bool order = d->order[2] == 0; /* the launch's own completion comes last */
  st_check(d, statuses && order, "%s op %u (%u blocks) padded with %s op %u (%u blocks in 2 parts): %s, %s", mr->name,
           a, mr->ops[a].v[0].grid, mb->name, b, mb->ops[b].v[0].grid, statuses ? "all OK" : "a part failed",
           order ? "parts completed before the launch" : "the launch completed before a part");
  if (st_model_run(d, &rt, a + 1, mr->n_ops, 4) || st_model_run(d, &be, b + 1, mb->n_ops, 4))
    goto out;
  st_check(d, memcmp(rt.out, ref_rt, mr->tensors[mr->output].bytes) == 0, "%s output bit-exact after the padded launch",
           mr->name);
  st_check(d, memcmp(be.out, ref_be, mb->tensors[mb->output].bytes) == 0, "%s output bit-exact after the padded launch",
           mb->name);
  const double t_rt = time_launch_us(d, rt.q, &rt, a, &be, b, 0);
  const double t_be = time_launch_us(d, rt.q, &rt, a, &be, b, 1);
  const double t_pad = time_launch_us(d, rt.q, &rt, a, &be, b, 2);
  printf("  time (medians over %u, submit to completion)\n", d->reps);
  printf("    RT op alone        %10.1f us\n", t_rt);
  printf("    BE op alone        %10.1f us\n", t_be);
  printf("    padded launch      %10.1f us  (%.3f x the RT op alone; %.3f x RT + BE run one after the other)\n", t_pad,
         t_rt > 0 ? t_pad / t_rt : 0, t_rt + t_be > 0 ? t_pad / (t_rt + t_be) : 0);
out:
  free(ref_rt);
  free(ref_be);
  if (rt.m)
    st_model_close(d, &rt);
  if (be.m)
    st_model_close(d, &be);
}
