/* GSLICE's decisions (core/gslice.h, docs/gslice.md). */
#include "core/gslice.h"

#include <math.h>

#include "atoll/scenario.h"

static double absd(double x) { return x < 0 ? -x : x; }

/* Algorithm 1 as the paper gives it; atoll_gslice_tune adds the SLO floor. */
static atoll_gslice_decision tune_free(const atoll_gslice_obs *o, const atoll_gslice_tune_cfg *cfg) {
  atoll_gslice_decision d = {.action = ATOLL_GSLICE_KEEP, .pct = o->pct};
  if (o->avg_latency_ns <= 0 || o->slo_ns <= 0)
    return d; /* nothing measured yet, or no SLO to tune to */
  double res_l = o->slo_ns - o->avg_latency_ns;
  double res_t = o->avg_tput_rps - o->arrival_rps;
  d.diff_l_pct = res_l * 100.0 / o->slo_ns;
  /* No arrivals: any throughput is spare (100 %), none is exact. */
  d.diff_t_pct = o->arrival_rps > 0 ? res_t * 100.0 / o->arrival_rps : (res_t > 0 ? 100.0 : 0.0);
  double band = cfg->band_pct;
  if (absd(d.diff_l_pct) < band && absd(d.diff_t_pct) < band)
    return d;
  /* A residual inside the band is neither negative nor positive: GSLICE shrinks only when both
   * capacities are positive beyond the threshold (§3.2.2), and grows when either falls short. */
  bool short_l = d.diff_l_pct <= -band, short_t = d.diff_t_pct <= -band;
  bool spare_l = d.diff_l_pct >= band, spare_t = d.diff_t_pct >= band;
  atoll_gslice_action a = short_l || short_t ? ATOLL_GSLICE_GROW : spare_l && spare_t ? ATOLL_GSLICE_SHRINK : ATOLL_GSLICE_KEEP;
  if (a == ATOLL_GSLICE_KEEP)
    return d;
  double f_l = absd(res_l) / o->avg_latency_ns;
  double f_t = o->avg_tput_rps > 0 ? absd(res_t) / o->avg_tput_rps : 1.0;
  double f = f_l > f_t ? f_l : f_t;
  d.change_factor = f > 1.0 ? 1.0 : f;
  double change = o->pct * d.change_factor;
  uint32_t step = cfg->step_pct ? cfg->step_pct : 1, lo = cfg->min_pct ? cfg->min_pct : step;
  int64_t p;
  if (a == ATOLL_GSLICE_GROW) {
    p = (int64_t)ceil((o->pct + change) / step - 1e-9) * step;
    if (p < (int64_t)o->pct + step)
      p = (int64_t)o->pct + step;
    if (p > 100)
      p = 100;
  } else {
    p = (int64_t)floor((o->pct - change) / step + 1e-9) * step;
    if (p > (int64_t)o->pct - step)
      p = (int64_t)o->pct - step;
    if (p < (int64_t)lo)
      p = lo;
  }
  d.pct = (uint32_t)p;
  d.action = d.pct == o->pct ? ATOLL_GSLICE_KEEP : a;
  return d;
}

/* A share under which every request that waits for one run of its IF misses the SLO is no slack to
 * give away, whatever the EWMAs say: at a few requests per second they are noise (one window's
 * late completion reads as throughput short of arrivals), and they track the mean, not the tail
 * an SLO is judged on. */
atoll_gslice_decision atoll_gslice_tune(const atoll_gslice_obs *o, const atoll_gslice_tune_cfg *cfg) {
  atoll_gslice_decision d = tune_free(o, cfg);
  uint32_t floor_pct = o->floor_pct > 100 ? 100 : o->floor_pct;
  if (d.pct < floor_pct) {
    d.pct = floor_pct;
    d.action = d.pct > o->pct ? ATOLL_GSLICE_GROW : d.pct < o->pct ? ATOLL_GSLICE_SHRINK : ATOLL_GSLICE_KEEP;
  }
  return d;
}

uint32_t atoll_gslice_floor_pct(const uint32_t *pct, const double *latency_ns, uint32_t n, double slo_ns,
                                uint32_t run_pct) {
  if (n == 0 || run_pct == 0 || slo_ns <= 0)
    return 0;
  double allowed = slo_ns * run_pct / 100.0;
  for (uint32_t i = 0; i < n; i++)
    if (latency_ns[i] <= allowed)
      return pct[i];
  return 100;
}

void atoll_gslice_maxmin(const uint32_t *demand, const double *weight, uint32_t n, uint32_t capacity, uint32_t *out) {
  double got[ATOLL_GSLICE_MAX_IFS];
  bool open[ATOLL_GSLICE_MAX_IFS];
  if (n > ATOLL_GSLICE_MAX_IFS)
    n = ATOLL_GSLICE_MAX_IFS;
  double left = capacity;
  uint32_t n_open = 0;
  for (uint32_t i = 0; i < n; i++) {
    got[i] = 0;
    open[i] = demand[i] > 0;
    n_open += open[i];
  }
  while (n_open > 0) {
    double w_sum = 0;
    for (uint32_t i = 0; i < n; i++)
      if (open[i])
        w_sum += weight && weight[i] > 0 ? weight[i] : 1.0;
    bool left_one = false;
    for (uint32_t i = 0; i < n; i++) {
      double w = weight && weight[i] > 0 ? weight[i] : 1.0;
      if (open[i] && demand[i] <= left * w / w_sum) {
        got[i] = demand[i];
        open[i] = false;
        n_open--;
        left_one = true;
      }
    }
    if (!left_one) {
      for (uint32_t i = 0; i < n; i++)
        if (open[i])
          got[i] = left * (weight && weight[i] > 0 ? weight[i] : 1.0) / w_sum;
      break;
    }
    left = capacity;
    for (uint32_t i = 0; i < n; i++)
      if (!open[i])
        left -= got[i];
  }
  for (uint32_t i = 0; i < n; i++)
    out[i] = (uint32_t)floor(got[i] + 1e-9);
}

void atoll_gslice_to_grid(const uint32_t *alloc, const uint32_t *demand, uint32_t n, uint32_t room, uint32_t step,
                          uint32_t *out) {
  if (step == 0)
    step = 1;
  uint32_t used = 0;
  for (uint32_t k = 0; k < n; k++) {
    out[k] = alloc[k] / step * step;
    out[k] = out[k] < step ? step : out[k];
    used += out[k];
  }
  /* The GPU is not left idle while an IF asked for more: flooring n shares frees up to n steps. */
  for (bool gave = true; gave && used + step <= room;) {
    gave = false;
    for (uint32_t k = 0; k < n && used + step <= room; k++)
      if (out[k] + step <= demand[k]) {
        out[k] += step, used += step;
        gave = true;
      }
  }
}

uint32_t atoll_gslice_slab(uint32_t limit, uint32_t ran, int64_t run_ns, int64_t target_ns, int64_t lat_ns,
                           int64_t slo_ns, uint32_t max) {
  if (limit == 0)
    limit = 1;
  if (ran == 0)
    ran = 1;
  if (max == 0)
    max = 1;
  double next = run_ns > 0 ? (double)ran * (double)target_ns / (double)run_ns : 2.0 * ran;
  double hi = 2.0 * ran, lo = ran / 2.0;
  next = next > hi ? hi : next < lo ? lo : next;
  /* A batch cut short for want of requests says nothing against the limit in use. */
  if (ran < limit && next >= ran)
    next = limit;
  /* The proportion to the run is a guess that fails below the model's knee, where a larger batch
   * runs in barely more time than one request: a batch that left headroom against the SLO
   * (GSLICE's SLO - latency) keeps the limit, and when it was full tries at least one more. */
  double keep = ran >= limit ? limit + 1.0 : limit;
  if (lat_ns <= slo_ns && next < keep)
    next = keep;
  uint32_t b = (uint32_t)floor(next);
  return b < 1 ? 1 : b > max ? max : b;
}

uint32_t atoll_gslice_aimd(uint32_t b, bool within_slo, uint32_t max) {
  uint32_t n = within_slo ? b + 1 : (uint32_t)floor(b * 0.9);
  return n < 1 ? 1 : n > max ? max : n;
}

/* GSLICE (§3.2.4, Fig. 16) measured whole instance starts, about 5 s for ResNet-50 and 12 s for
 * VGG-19, most of it framework start-up rather than the weights' copy (98 and 548 MB take 8 and
 * 45 ms at 12 GB/s): a measured time wins, the copy model is for profiles without one. */
int64_t atoll_gslice_load_ns(const atoll_model *m, const atoll_gpu *g) {
  if (m->instance_load_ns > 0)
    return m->instance_load_ns;
  if (g->partition_init_ns > 0 && m->footprint_known && g->costs.copy_bytes_per_us > 0)
    return g->partition_init_ns +
           llround(m->weights_mb * 1048576.0 / (double)g->costs.copy_bytes_per_us * 1000.0);
  return g->partition_load_ns;
}

/* The CUs of `client` when every client of its GPU holds pcts[i] %: consecutive in client order
 * (atoll_cuset_from_share); a share that would run past the GPU (the shares in effect add up to
 * more than 100 % while one change waits for another) ends at the GPU's last CU instead,
 * overlapping the one before it, as MPS lets caps add up to more than 100 %. */
atoll_cuset atoll_gslice_layout(const atoll_scenario *s, const uint32_t *pcts, uint32_t client) {
  uint32_t first = 0, g = s->clients[client].gpu;
  atoll_cuset out = {0};
  for (uint32_t i = 0; i < s->n_clients; i++) {
    if (s->clients[i].gpu != g)
      continue;
    uint32_t n = pcts[i] * s->gpu.cus / 100;
    n = n < 1 ? 1 : n;
    uint32_t at = first + n > s->gpu.cus ? s->gpu.cus - n : first;
    if (i == client) {
      uint32_t next;
      atoll_cuset_from_share(s->gpu.cus, at, pcts[i], &out, &next);
      return out;
    }
    first = at + n;
  }
  return out;
}

