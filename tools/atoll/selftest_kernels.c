/* selftest_kernels.c — the self-test's device report and its kernel check: every op of every native
 * model, in every version, run alone on the device from the CPU reference's state before it, and
 * its outputs compared with the CPU build of the kernel library; then the synthetic spin kernel;
 * then a FAIL for any library kernel no check reached.
 *
 * Results must be bit for bit the CPU's, except for kernels that call the platform's expf/tanhf
 * (softmax, gelu: native/kernels/k_rows.h and k_eltwise.h say the builds may differ in the last
 * bit there, and such a difference can grow through a cancellation, e.g. 1 + tanh(x) near -1).
 * Those are held to |gpu - cpu| <= 1e-6 + 1e-5 |cpu|, and the largest difference is printed. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native/kernels/ak_catalog.h"
#include "atoll/error.h"
#include "tools/atoll/selftest.h"

#define LIBM_ABS_TOL 1e-6
#define LIBM_REL_TOL 1e-5

typedef struct kernel_tally {
  uint32_t launches, exact, within_tol, wrong;
  double max_abs;
} kernel_tally;

static bool uses_libm(uint32_t kernel) { return kernel == AK_K_SOFTMAX || kernel == AK_K_GELU; }

void st_check_info(st_dev *d) {
  const atoll_nbackend_info *i = &d->info;
  printf("device\n");
  printf("  name            %s (back-end %s)\n", i->name, d->ops->name);
  printf("  compute units   %u\n", i->cus);
  printf("  max occupancy   %u blocks per CU (the entry kernel, smallest block)\n", i->max_occupancy);
  printf("  CU reset        %s\n", i->can_reset_cus ? "yes"
                                                    : "no: lazy eviction plus in-kernel preemption points");
  printf("  padded launches %s\n", i->can_pad ? "yes" : "no (the runtime launches unpadded)");
  st_check(d, i->cus > 0 && i->max_occupancy > 0, "device reports %u CUs, occupancy %u", i->cus, i->max_occupancy);
}

/* Compares n floats; returns the largest |a - b| (0 when bit-identical), *bad when a value is off
 * tolerance (exact: any bit difference). */
static double compare_floats(const float *gpu, const float *cpu, size_t n, bool tolerant, bool *exact, bool *bad) {
  double worst = 0;
  *exact = memcmp(gpu, cpu, n * sizeof(float)) == 0;
  *bad = false;
  if (*exact)
    return 0;
  for (size_t k = 0; k < n; k++) {
    if (memcmp(&gpu[k], &cpu[k], sizeof(float)) == 0)
      continue;
    const double diff = fabs((double)gpu[k] - (double)cpu[k]);
    if (!(diff <= LIBM_ABS_TOL + LIBM_REL_TOL * fabs((double)cpu[k])) || !tolerant)
      *bad = true;
    if (!(diff <= worst)) /* NaN counts as worst */
      worst = diff;
  }
  return worst;
}

/* Runs op `op` in `version` on the device from host state `h` and compares what it writes with the
 * CPU library run from the same state. */
static int check_op(st_dev *d, st_model *sm, void **h, uint32_t op, uint32_t version, kernel_tally *t) {
  const atoll_nmodel *m = sm->m;
  const atoll_nop *o = &m->ops[op];
  for (uint32_t i = 0; i < m->n_tensors; i++)
    if (d->ops->copy_to_device(d->be, sm->dev[i], h[i], m->tensors[i].bytes) != 0)
      return -1;
  st_begin(d);
  atoll_nlaunch l;
  st_model_launch(sm, op, version, st_tag(d, 0), &l);
  if (d->ops->submit(d->be, sm->q, &l) != 0 || st_wait(d, 1) != 0)
    return -1;
  if (d->status[0] != ATOLL_ND_OK) {
    st_check(d, false, "%s op %u (%s) version %u: completed with status %u", m->name, op, o->name, version,
             d->status[0]);
    return -1;
  }
  /* The CPU run: the written tensors on copies of the state, the others shared. */
  void **t2 = calloc(m->n_tensors, sizeof *t2);
  if (!t2)
    return -1;
  memcpy(t2, h, m->n_tensors * sizeof *t2);
  int rc = 0;
  for (uint32_t w = 0; w < o->n_writes && rc == 0; w++) {
    const uint32_t ti = o->writes[w];
    t2[ti] = malloc(m->tensors[ti].bytes);
    if (!t2[ti])
      rc = -1;
    else
      memcpy(t2[ti], h[ti], m->tensors[ti].bytes);
  }
  if (rc == 0 && atoll_nmodel_run_blocks(m, op, version, t2, 0, o->v[version].grid, NULL) != AK_DONE)
    rc = -1;
  const uint32_t kernel = o->v[version].kernel;
  bool all_exact = true, any_bad = false;
  double worst = 0;
  for (uint32_t w = 0; w < o->n_writes && rc == 0; w++) {
    const uint32_t ti = o->writes[w];
    const size_t bytes = m->tensors[ti].bytes;
    float *got = malloc(bytes ? bytes : 1);
    if (!got || d->ops->copy_from_device(d->be, got, sm->dev[ti], bytes) != 0) {
      free(got);
      rc = -1;
      break;
    }
    bool exact, bad;
    double diff = compare_floats(got, t2[ti], bytes / sizeof(float), uses_libm(kernel), &exact, &bad);
    all_exact &= exact;
    any_bad |= bad;
    if (!(diff <= worst))
      worst = diff;
    free(got);
  }
  for (uint32_t w = 0; w < o->n_writes; w++)
    if (t2[o->writes[w]] != h[o->writes[w]])
      free(t2[o->writes[w]]);
  free(t2);
  if (rc)
    return st_check(d, false, "%s op %u (%s): could not compare", m->name, op, o->name), -1;
  t->launches++;
  t->exact += all_exact;
  t->within_tol += !all_exact && !any_bad;
  t->wrong += any_bad;
  if (!(worst <= t->max_abs))
    t->max_abs = worst;
  if (any_bad)
    st_check(d, false, "%s op %u (%s) version %u: differs from the CPU build (max |diff| %.3g)", m->name, op, o->name,
             version, worst);
  return 0;
}

/* Every op of one model, walking the CPU reference state forward with version 0. */
static void check_model_kernels(st_dev *d, const atoll_nmodel *m, kernel_tally *tally) {
  st_model sm;
  memset(&sm, 0, sizeof sm);
  void **h = atoll_nmodel_alloc_host(m);
  if (!h || st_model_open(d, &sm, m, 0) != 0) {
    st_check(d, false, "%s: cannot allocate its tensors", m->name);
    atoll_nmodel_free_host(m, h);
    st_model_close(d, &sm);
    return;
  }
  if (m->make_input)
    m->make_input(1, h[m->input]);
  for (uint32_t op = 0; op < m->n_ops; op++) {
    const atoll_nop *o = &m->ops[op];
    if (o->kind == ATOLL_OP_MEMSET)
      memset(h[o->ptr[0]], o->value, m->tensors[o->ptr[0]].bytes);
    if (o->kind != ATOLL_OP_KERNEL)
      continue; /* copies: the CPU state is host and device at once */
    for (uint32_t v = 0; v < o->n_versions; v++) {
      if (o->v[v].kernel == 0 || o->v[v].kernel >= AK_K_COUNT) {
        st_check(d, false, "%s op %u: unknown kernel id %u", m->name, op, o->v[v].kernel);
        goto out;
      }
      if (check_op(d, &sm, h, op, v, &tally[o->v[v].kernel]) != 0)
        goto out;
    }
    atoll_nmodel_run_blocks(m, op, 0, h, 0, o->v[0].grid, NULL);
  }
out:
  atoll_nmodel_free_host(m, h);
  st_model_close(d, &sm);
}

/* The spin kernel is used by no model: one launch of 2 waves of blocks, compared with the CPU. */
static void check_spin(st_dev *d, kernel_tally *t) {
  const uint32_t grid = 2 * d->info.cus, threads = 64;
  float *dev_out = NULL, *got = calloc(grid, sizeof *got), *want = calloc(grid, sizeof *want);
  atoll_nqueue *q = NULL;
  if (!got || !want || d->ops->alloc(d->be, grid * sizeof(float), (void **)&dev_out) != 0 ||
      d->ops->create_queue(d->be, 0, &q) != 0) {
    st_check(d, false, "spin: cannot allocate");
    goto out;
  }
  atoll_nlaunch l;
  memset(&l, 0, sizeof l);
  st_begin(d);
  l.kind = ATOLL_NL_KERNEL;
  l.tag = l.k.tag = st_tag(d, 0);
  l.k.kernel = AK_K_SPIN;
  l.k.args.p[0] = dev_out;
  l.k.args.i[0] = 5000; /* iterations */
  l.k.args.i[1] = 250;  /* per preemption point */
  l.k.grid = l.k.block_n = grid;
  l.k.threads = threads;
  l.k.occupancy = 1;
  if (d->ops->submit(d->be, q, &l) != 0 || st_wait(d, 1) != 0 ||
      d->ops->copy_from_device(d->be, got, dev_out, grid * sizeof(float)) != 0) {
    st_check(d, false, "spin: launch failed");
    goto out;
  }
  ak_args a = l.k.args;
  a.p[0] = want;
  for (uint32_t b = 0; b < grid; b++) {
    ak_ctx c = {.block = b, .grid = grid, .threads = threads, .kill = NULL, .trace = NULL};
    ak_run_block(AK_K_SPIN, &a, &c);
  }
  t->launches++;
  bool same = d->status[0] == ATOLL_ND_OK && memcmp(got, want, grid * sizeof(float)) == 0;
  t->exact += same;
  t->wrong += !same;
  st_check(d, same, "spin: %u blocks bit-identical to the CPU build", grid);
out:
  if (dev_out)
    d->ops->free(d->be, dev_out);
  free(got);
  free(want);
}

void st_check_kernels(st_dev *d) {
  printf("kernels against the CPU build\n");
  kernel_tally tally[AK_K_COUNT];
  memset(tally, 0, sizeof tally);
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++)
    check_model_kernels(d, atoll_nmodel_at(i), tally);
  check_spin(d, &tally[AK_K_SPIN]);
  for (uint32_t k = 1; k < AK_K_COUNT; k++) {
    const ak_kernel_info *ki = ak_kernel_info_get(k);
    const kernel_tally *t = &tally[k];
    const char *name = ki ? ki->name : "?";
    if (t->launches == 0) {
      st_check(d, false, "%-12s no check ran it", name);
      continue;
    }
    st_check(d, t->wrong == 0, "%-12s %3u launches: %u bit-identical, %u within the libm tolerance (max |diff| %.3g)",
             name, t->launches, t->exact, t->within_tol, t->max_abs);
  }
}
