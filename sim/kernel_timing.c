#include "sim/kernel_timing.h"

#include <math.h>
#include <stdlib.h>

#include "core/dkp.h"
#include "sim/state_hash.h"

static int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/* The measured slowdown at k blocks per CU: the per-block time at k over the one at 1. */
static double measured_slowdown(const atoll_kernel_shape *s, uint32_t cus, int64_t overhead_ns, uint32_t k,
                                int64_t bt1_ns) {
  int64_t blocks = (int64_t)atoll_dim3_count(s->grid);
  int64_t t = s->time_per_occupancy_ns[k - 1] - overhead_ns;
  if (t < 1)
    t = 1;
  return ((double)t / (double)ceil_div(blocks, (int64_t)cus * k)) / (double)bt1_ns;
}

static int64_t bt1_from(const atoll_kernel_shape *s, uint32_t cus, int64_t overhead_ns) {
  int64_t blocks = (int64_t)atoll_dim3_count(s->grid);
  int64_t base = s->n_time_per_occupancy ? s->time_per_occupancy_ns[0] : s->time_ns;
  int64_t waves = s->n_time_per_occupancy ? ceil_div(blocks, cus) : ceil_div(blocks, (int64_t)cus * s->occupancy);
  int64_t t = (base - overhead_ns) / waves;
  return t > 0 ? t : 1;
}

uint32_t atoll_fit_demand(const atoll_kernel_shape *s, uint32_t cus, int64_t overhead_ns) {
  if (s->n_time_per_occupancy < 2)
    return (ATOLL_DEMAND_ONE + s->occupancy - 1) / s->occupancy;
  int64_t bt1 = bt1_from(s, cus, overhead_ns);
  /* Least squares in log space over k = 1..n of log(slowdown_k) against log(max(1, k u)), by a
   * scan over u: one parameter, small n, done once per kernel. Points where k exceeds the blocks a
   * CU can get (k > ceil(B / C)) carry no information on sharing and are skipped. */
  uint64_t blocks = atoll_dim3_count(s->grid);
  uint32_t kmax = s->n_time_per_occupancy;
  if (kmax > ceil_div((int64_t)blocks, cus))
    kmax = (uint32_t)ceil_div((int64_t)blocks, cus);
  if (kmax < 2)
    return (ATOLL_DEMAND_ONE + s->occupancy - 1) / s->occupancy;
  double log_k[64], log_slow[64];
  if (kmax > 64)
    kmax = 64;
  for (uint32_t k = 1; k <= kmax; k++) {
    log_k[k - 1] = log((double)k);
    log_slow[k - 1] = log(measured_slowdown(s, cus, overhead_ns, k, bt1));
  }
  double best_err = INFINITY;
  uint32_t best = ATOLL_DEMAND_ONE;
  for (uint32_t u = 8; u <= 2 * ATOLL_DEMAND_ONE; u += 8) {
    double log_u = log((double)u / ATOLL_DEMAND_ONE), err = 0;
    for (uint32_t k = 0; k < kmax; k++) {
      double model = log_k[k] + log_u; /* log(k u), floored at log(1) = 0 */
      double d = log_slow[k] - (model > 0 ? model : 0);
      err += d * d;
    }
    if (err < best_err)
      best_err = err, best = u;
  }
  return best;
}

enum { REF_BT1_NS = 1000000 };

/* A kernel alone on an idle GPU, dispatched as the simulated device does it (simdev.c,
 * place_kernel): each placement gives every CU at most ceil(remaining / CUs) blocks, then fills
 * greedily; a block's duration is fixed at placement from its CU's demand; placement repeats
 * whenever blocks end. Returns when the last block ends. Block times scale linearly with bt1, so
 * the timing is solved once at a reference bt1 and scaled. */
typedef struct emu_group {
  int64_t end;
  uint32_t cu, count;
} emu_group;

static int64_t emulate_alone(const atoll_gpu *g, uint32_t blocks, uint32_t units, uint32_t demand, int64_t bt1) {
  uint32_t ncu = g->cus, cap = ncu * 8 + 8, n = 0;
  emu_group *grp = malloc(cap * sizeof *grp);
  uint32_t *free_u = calloc(ncu, sizeof *free_u), *nb = calloc(ncu, sizeof *nb), *dem = calloc(ncu, sizeof *dem);
  int64_t t = 0, last = 0;
  uint32_t remaining = blocks;
  if (!grp || !free_u || !nb || !dem) {
    free(grp), free(free_u), free(nb), free(dem);
    return -1;
  }
  for (uint32_t cu = 0; cu < ncu; cu++)
    free_u[cu] = g->registers_per_cu;
  for (;;) {
    uint32_t share = (remaining + ncu - 1) / ncu;
    for (int pass = 0; pass < 2; pass++) {
      for (uint32_t cu = 0; cu < ncu && remaining; cu++) {
        uint32_t fit = free_u[cu] / units, room = g->max_blocks_per_cu - nb[cu];
        fit = fit < room ? fit : room;
        if (pass == 0 && fit > share)
          fit = share;
        fit = fit < remaining ? fit : remaining;
        if (!fit)
          continue;
        if (n == cap) {
          emu_group *ng = realloc(grp, 2 * cap * sizeof *ng);
          if (!ng)
            break;
          grp = ng, cap *= 2;
        }
        uint32_t d = dem[cu] + fit * demand;
        int64_t end = t + bt1 * (d > ATOLL_DEMAND_ONE ? d : ATOLL_DEMAND_ONE) / ATOLL_DEMAND_ONE;
        grp[n++] = (emu_group){end, cu, fit};
        free_u[cu] -= fit * units, nb[cu] += fit, dem[cu] = d, remaining -= fit;
        if (end > last)
          last = end;
      }
    }
    if (n == 0)
      break;
    /* Advance to the earliest end and free every group ending then. */
    t = grp[0].end;
    for (uint32_t i = 1; i < n; i++)
      if (grp[i].end < t)
        t = grp[i].end;
    for (uint32_t i = 0; i < n;) {
      if (grp[i].end == t) {
        free_u[grp[i].cu] += grp[i].count * units, nb[grp[i].cu] -= grp[i].count;
        dem[grp[i].cu] -= grp[i].count * demand;
        grp[i] = grp[--n];
      } else {
        i++;
      }
    }
    if (remaining == 0 && n == 0)
      break;
  }
  free(grp), free(free_u), free(nb), free(dem);
  return last;
}

void atoll_kernel_timing_prepare(const atoll_gpu *g, const atoll_model *m, uint32_t op, atoll_kernel_timing *out) {
  const atoll_op *o = &m->ops[op];
  *out = (atoll_kernel_timing){0};
  if (o->kind != ATOLL_OP_KERNEL) {
    out->is_copy = 1;
    out->copy_ns = o->copy_time_ns > 0
                       ? o->copy_time_ns
                       : g->costs.copy_latency_ns + (int64_t)(o->bytes * 1000 / g->costs.copy_bytes_per_us);
    return;
  }
  atoll_kernel_timing_prepare_shape(g, &o->shape, out);
  atoll_kernel_timing_memory(g, atoll_op_bytes_per_block(m, op), out);
}

void atoll_kernel_timing_memory(const atoll_gpu *g, uint64_t bytes_per_block, atoll_kernel_timing *t) {
  t->mem = t->mem_alone = 0;
  if (t->is_copy || bytes_per_block == 0 || !(g->memory_bytes_per_ns > 0) || t->bt1_ns <= 0)
    return;
  /* A block alone streams bytes_per_block over bt1: that rate as a share of the bandwidth. */
  double share = (double)bytes_per_block / (double)t->bt1_ns / g->memory_bytes_per_ns;
  double units = share * (double)ATOLL_MEM_ONE + 0.5;
  t->mem = units < 1 ? 1 : units > (double)(UINT64_C(1) << 40) ? UINT64_C(1) << 40 : (uint64_t)units;
  /* Resident alone: every CU holds what its register file and slots allow, up to the grid. */
  uint32_t fit = t->block_units ? g->registers_per_cu / t->block_units : g->max_blocks_per_cu;
  if (fit > g->max_blocks_per_cu)
    fit = g->max_blocks_per_cu;
  uint64_t resident = (uint64_t)(fit ? fit : 1) * g->cus;
  if (resident > t->blocks)
    resident = t->blocks;
  t->mem_alone = resident * t->mem;
}

int64_t atoll_mem_stretch(const atoll_kernel_timing *t, uint64_t resident, int64_t dur) {
  uint64_t cap = t->mem_alone > ATOLL_MEM_ONE ? t->mem_alone : ATOLL_MEM_ONE;
  if (t->mem == 0 || resident <= cap)
    return dur;
  int64_t mem_dur = (int64_t)((double)t->bt1_ns * (double)resident / (double)cap + 0.5);
  return mem_dur > dur ? mem_dur : dur;
}

void atoll_kernel_timing_prepare_shape(const atoll_gpu *g, const atoll_kernel_shape *s, atoll_kernel_timing *out) {
  *out = (atoll_kernel_timing){0};
  int64_t overhead = g->costs.launch_sync_ns;
  out->blocks = (uint32_t)atoll_dim3_count(s->grid);
  out->block_units = g->registers_per_cu / s->occupancy;
  out->demand = atoll_fit_demand(s, g->cus, overhead);
  /* A kernel whose isolated time is within the overhead still runs: at least one short wave. */
  int64_t run = s->time_ns - overhead;
  if (run < ATOLL_MIN_KERNEL_NS)
    run = ATOLL_MIN_KERNEL_NS;
  int64_t ref = emulate_alone(g, out->blocks, out->block_units, out->demand, REF_BT1_NS);
  out->bt1_ns = ref > 0 ? (int64_t)((double)run * REF_BT1_NS / (double)ref + 0.5) : run;
  if (out->bt1_ns < 1)
    out->bt1_ns = 1;
}

/* Keep these two to the fields prepare_shape above reads: a field it starts to read belongs here too,
 * or the shape memo would hand one shape's timing to another. */
bool atoll_kernel_shape_times_alike(const atoll_kernel_shape *a, const atoll_kernel_shape *b) {
  if (atoll_dim3_count(a->grid) != atoll_dim3_count(b->grid) || a->occupancy != b->occupancy ||
      a->time_ns != b->time_ns || a->n_time_per_occupancy != b->n_time_per_occupancy)
    return false;
  for (uint32_t k = 0; k < a->n_time_per_occupancy; k++)
    if (a->time_per_occupancy_ns[k] != b->time_per_occupancy_ns[k])
      return false;
  return true;
}

uint64_t atoll_kernel_shape_timing_hash(const atoll_kernel_shape *s) {
  uint64_t h = atoll__hmix(atoll_dim3_count(s->grid), s->occupancy);
  h = atoll__hmix(h, (uint64_t)s->time_ns), h = atoll__hmix(h, s->n_time_per_occupancy);
  for (uint32_t k = 0; k < s->n_time_per_occupancy; k++)
    h = atoll__hmix(h, (uint64_t)s->time_per_occupancy_ns[k]);
  return h;
}

void atoll_kernel_timing_padded(const atoll_gpu *g, const atoll_op *op, uint32_t version, uint32_t k,
                                atoll_kernel_timing *t) {
  t->block_units = g->registers_per_cu / k;
  t->bt1_ns = atoll_dkp_block_ns(g, atoll_dkp_shape(op, version), k);
  t->demand = ATOLL_DEMAND_ONE / k; /* k blocks fill the CU exactly: no sharing beyond the list's */
  t->mem = t->mem_alone = 0;        /* the persistent form's traffic is not modelled */
}

int64_t atoll_kernel_alone_ns(const atoll_gpu *g, const atoll_kernel_timing *t) {
  if (t->is_copy)
    return t->copy_ns;
  return emulate_alone(g, t->blocks, t->block_units, t->demand, t->bt1_ns);
}

int64_t atoll_batch_table_ns(const atoll_op *op, uint32_t b) {
  double b0 = 1, t0 = (double)op->shape.time_ns;
  for (uint32_t i = 0; i < op->n_batch_times; i++) {
    double b1 = op->batch_times[i].batch, t1 = (double)op->batch_times[i].time_ns;
    if (b <= b1 || i + 1 == op->n_batch_times) {
      double t = t0 + (t1 - t0) * ((double)b - b0) / (b1 - b0);
      return t > 1 ? (int64_t)(t + 0.5) : 1;
    }
    b0 = b1, t0 = t1;
  }
  return op->shape.time_ns;
}

void atoll_kernel_timing_batch(const atoll_gpu *g, const atoll_op *op, uint32_t b, atoll_kernel_timing *t) {
  if (b <= 1)
    return;
  if (t->is_copy) {
    /* The fixed cost once, the bytes b times. */
    int64_t fixed = g->costs.copy_latency_ns < t->copy_ns ? g->costs.copy_latency_ns : t->copy_ns;
    t->copy_ns = fixed + (t->copy_ns - fixed) * (int64_t)b;
    return;
  }
  if (op->n_batch_times) {
    /* Measured: both times are isolated launches, so the launch overhead comes off each. */
    int64_t overhead = g->costs.launch_sync_ns;
    int64_t run1 = op->shape.time_ns - overhead, runb = atoll_batch_table_ns(op, b) - overhead;
    run1 = run1 > ATOLL_MIN_KERNEL_NS ? run1 : ATOLL_MIN_KERNEL_NS;
    runb = runb > ATOLL_MIN_KERNEL_NS ? runb : ATOLL_MIN_KERNEL_NS;
    int64_t bt = (int64_t)((double)t->bt1_ns * (double)runb / (double)run1 + 0.5);
    t->bt1_ns = bt > 0 ? bt : 1;
    return;
  }
  uint64_t blocks = (uint64_t)t->blocks * b;
  t->blocks = blocks < UINT32_MAX ? (uint32_t)blocks : UINT32_MAX - 1;
  /* mem stays (each block as at batch 1); atoll_cu_add works out mem_alone for the larger grid. */
}
