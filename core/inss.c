/* InSS's latency model, BDA and placement-and-share search (core/inss.h, docs/inss.md). */
#include "core/inss.h"

#include <math.h>
#include <string.h>

/* Solves the 3x3 system a x = y by Gaussian elimination with partial pivoting; false when singular. */
static bool solve3(double a[3][3], double y[3], double x[3]) {
  for (int c = 0; c < 3; c++) {
    int p = c;
    for (int r = c + 1; r < 3; r++)
      if (fabs(a[r][c]) > fabs(a[p][c]))
        p = r;
    if (fabs(a[p][c]) < 1e-12)
      return false;
    if (p != c) {
      for (int k = 0; k < 3; k++) {
        double t = a[c][k];
        a[c][k] = a[p][k], a[p][k] = t;
      }
      double t = y[c];
      y[c] = y[p], y[p] = t;
    }
    for (int r = c + 1; r < 3; r++) {
      double f = a[r][c] / a[c][c];
      for (int k = c; k < 3; k++)
        a[r][k] -= f * a[c][k];
      y[r] -= f * y[c];
    }
  }
  for (int c = 2; c >= 0; c--) {
    double s = y[c];
    for (int k = c + 1; k < 3; k++)
      s -= a[c][k] * x[k];
    x[c] = s / a[c][c];
  }
  return true;
}

/* Whether sample i of p enters the regression: none of its fields is 0 or below. */
static bool sample_ok(const atoll_inss_profile *p, uint32_t i) {
  return !(p->pt_ns[i] <= 0 || p->pt_batch[i] <= 0 || p->pt_pct[i] <= 0);
}

static void sample_logs(const atoll_inss_profile *p, atoll_inss_sample_logs *l) {
  for (uint32_t i = 0; i < p->n_points && i < ATOLL_INSS_MAX_POINTS; i++)
    if (sample_ok(p, i))
      l->batch[i] = log(p->pt_batch[i]), l->pct[i] = log(p->pt_pct[i]), l->ns[i] = log(p->pt_ns[i]);
}

/* atoll_inss_run_ns with the samples' logarithms given. */
static double run_ns_logs(const atoll_inss_profile *p, const atoll_inss_sample_logs *l, double bw, double b,
                          double pct) {
  if (p->n_points == 0 || b <= 0 || pct <= 0)
    return 0;
  if (bw <= 0)
    bw = 0.7;
  double lb = log(b), lp = log(pct), a[3][3] = {{0}}, y[3] = {0}, wsum = 0, wy = 0;
  for (uint32_t i = 0; i < p->n_points && i < ATOLL_INSS_MAX_POINTS; i++) {
    if (!sample_ok(p, i))
      continue;
    double xb = l->batch[i] - lb, xp = l->pct[i] - lp, t = l->ns[i];
    double w = exp(-(xb * xb + xp * xp) / (2 * bw * bw));
    /* Centred on the query, so the intercept is the prediction. */
    double f[3] = {1, xb, xp};
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < 3; c++)
        a[r][c] += w * f[r] * f[c];
      y[r] += w * f[r] * t;
    }
    wsum += w, wy += w * t;
  }
  if (wsum <= 0)
    return 0;
  /* A small ridge keeps the slopes finite where the samples lie on one line (one batch size). */
  for (int r = 1; r < 3; r++)
    a[r][r] += 1e-6 * wsum;
  double x[3];
  if (!solve3(a, y, x))
    return exp(wy / wsum);
  return exp(x[0]);
}

double atoll_inss_run_ns(const atoll_inss_profile *p, double bw, double b, double pct) {
  if (!p)
    return 0;
  atoll_inss_sample_logs l;
  sample_logs(p, &l);
  return run_ns_logs(p, &l, bw, b, pct);
}

static double l2_of(const atoll_inss_profile *p, uint32_t pct) {
  double l = p->l2_alpha * ((double)pct / 100.0) + p->l2_beta;
  return l > 0 ? l : 0;
}

void atoll_inss_run_memo_clear(atoll_inss_run_memo *memo) {
  memset(memo->key, 0, sizeof memo->key);
  for (uint32_t i = 0; i < ATOLL_INSS_TAIL_MEMO_SLOTS; i++)
    memo->tail[i].b = 0;
  memo->logs_ready = 0;
}

static uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}

/* atoll_inss_tail_batched, from memo when it holds the same arguments bit for bit (NULL: none):
 * the function is pure, so a tail taken from here is the one it would give. */
static double tail_of(atoll_inss_run_memo *memo, double inf1_ns, double infb_ns, uint32_t b, double lambda,
                      double slo_ns) {
  if (!memo || b == 0)
    return atoll_inss_tail_batched(inf1_ns, infb_ns, b, lambda, slo_ns);
  uint64_t k1 = bits_of(inf1_ns), kb = bits_of(infb_ns), kl = bits_of(lambda), ks = bits_of(slo_ns);
  uint64_t h = (k1 ^ kb * 0x9e3779b97f4a7c15u ^ kl * 0xc2b2ae3d27d4eb4fu ^ ks * 0x165667b19e3779f9u) + b;
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9u;
  _Static_assert((ATOLL_INSS_TAIL_MEMO_SLOTS & (ATOLL_INSS_TAIL_MEMO_SLOTS - 1)) == 0, "a mask picks the slot");
  atoll_inss_tail_slot *t = &memo->tail[(h >> 32) & (ATOLL_INSS_TAIL_MEMO_SLOTS - 1)];
  if (t->b != b || t->inf1_bits != k1 || t->infb_bits != kb || t->lambda_bits != kl || t->slo_bits != ks)
    *t = (atoll_inss_tail_slot){.inf1_bits = k1, .infb_bits = kb, .lambda_bits = kl, .slo_bits = ks, .b = b,
                                .tail = atoll_inss_tail_batched(inf1_ns, infb_ns, b, lambda, slo_ns)};
  return t->tail;
}

/* atoll_inss_run_ns of profile prof at batch b on pct %, from memo when it holds it (NULL: none). */
static double run_of(const atoll_inss_model *m, atoll_inss_run_memo *memo, uint32_t prof, uint32_t b,
                     uint32_t pct) {
  const atoll_inss_profile *p = &m->prof[prof];
  /* A key holds the profile in 4 bits, the batch in 6 and the share in 7 (each within its range:
   * ATOLL_INSS_MAX_MODELS, ATOLL_INSS_MAX_BATCH, 100 %); anything else is worked out directly. */
  _Static_assert(ATOLL_INSS_MAX_MODELS <= 16 && ATOLL_INSS_MAX_BATCH < 64, "a key's fields hold every profile, batch");
  if (!memo || prof >= 16 || b >= 64 || pct >= 128)
    return atoll_inss_run_ns(p, m->bandwidth, (double)b, (double)pct);
  _Static_assert(ATOLL_INSS_RUN_MEMO_SLOTS == 1u << 12, "the hash below picks one of 2^12 slots");
  uint32_t key = 1 + (prof | b << 4 | pct << 10), slot = (key * 2654435761u) >> 20;
  if (memo->key[slot] != key) {
    if (!(memo->logs_ready & 1u << prof)) {
      sample_logs(p, &memo->logs[prof]);
      memo->logs_ready |= 1u << prof;
    }
    memo->ns[slot] = run_ns_logs(p, &memo->logs[prof], m->bandwidth, (double)b, (double)pct);
    memo->key[slot] = key;
  }
  return memo->ns[slot];
}

/* atoll_inss_inf_ns, its solo running time from memo (NULL: none). */
static double inf_with(const atoll_inss_model *m, atoll_inss_run_memo *memo, const atoll_inss_slot *gpu,
                       uint32_t n, uint32_t i) {
  if (!m || i >= n || gpu[i].prof >= m->n_models)
    return 0;
  const atoll_inss_profile *p = &m->prof[gpu[i].prof];
  uint32_t b = gpu[i].batch ? gpu[i].batch : 1;
  double o_r = run_of(m, memo, gpu[i].prof, b, gpu[i].pct);
  double l = 0;
  for (uint32_t j = 0; j < n; j++)
    if (j != i && gpu[j].prof < m->n_models)
      l += l2_of(&m->prof[gpu[j].prof], gpu[j].pct);
  double intf = n > 1 ? m->alpha_s_ns * (double)n + m->beta_s_ns : 0;
  if (intf < 0)
    intf = 0;
  double cache = 1 + m->alpha_cache * l;
  return p->t_d_ns * (double)b + intf * (double)p->n_kernels + o_r * (cache > 0 ? cache : 0);
}

double atoll_inss_inf_ns(const atoll_inss_model *m, const atoll_inss_slot *gpu, uint32_t n, uint32_t i) {
  return inf_with(m, NULL, gpu, n, i);
}

double atoll_inss_task_ns(double inf_ns, uint32_t b, double lambda) {
  double wait = b > 1 ? (lambda > 0 ? (double)(b - 1) / lambda * 1e9 : INFINITY) : 0;
  return (wait > inf_ns ? wait : inf_ns) + inf_ns;
}

/* The decay rate u = theta t_inf of the waiting-time tail of an M/D/1 queue at load rho: the
 * positive root of rho (e^u - 1) = u (Cramer-Lundberg). f(u) = rho (e^u - 1) - u is convex with
 * f(0) = 0 and f'(0) < 0, so Newton's method from a point where f > 0 falls monotonically onto
 * the root. */
static double md1_decay(double rho) {
  double u = 2 * log(1 / rho) + 2;
  while (rho * expm1(u) - u <= 0)
    u *= 2;
  for (int it = 0; it < 100; it++) {
    double f = rho * expm1(u) - u, step = f / (rho * exp(u) - 1);
    u -= step;
    if (fabs(step) <= 1e-12 * u)
      break;
  }
  return u;
}

double atoll_inss_tail(double inf_ns, uint32_t b, double lambda, double slo_ns) {
  if (lambda <= 0)
    return 0;
  double rho = lambda * inf_ns / 1e9 / (double)(b ? b : 1);
  double slack = slo_ns - (double)((b ? b : 1) - 1) / lambda * 1e9 - inf_ns;
  if (rho >= 1 || slack < 0 || inf_ns <= 0)
    return 1;
  if (rho < 1e-9)
    return 0;
  double u = md1_decay(rho), c = (1 - rho) / (rho * exp(u) - 1);
  double tail = c * exp(-u * slack / inf_ns);
  return tail < 1 ? tail : 1;
}

static double mem_of(const atoll_inss_profile *p, uint32_t b) { return p->mem_mb + p->act_mb * (double)b; }

/* atoll_inss_bda, its solo running times from memo (NULL: none). */
static atoll_inss_bda_status bda_with(const atoll_inss_model *m, atoll_inss_run_memo *memo,
                                      atoll_inss_slot *gpu, uint32_t n, uint32_t i, double lambda, double slo_ns,
                                      double mem_room_mb, uint32_t max_batch, double miss, uint32_t *batch) {
  const atoll_inss_profile *p = &m->prof[gpu[i].prof];
  if (max_batch == 0 || max_batch > ATOLL_INSS_MAX_BATCH)
    max_batch = ATOLL_INSS_MAX_BATCH;
  uint32_t lo = 1, hi = max_batch, best = 0;
  bool mem_fail = false;
  while (lo <= hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    gpu[i].batch = mid;
    bool mem_ok = mem_room_mb <= 0 || mem_of(p, mid) <= mem_room_mb;
    double inf = mem_ok ? inf_with(m, memo, gpu, n, i) : 0;
    /* With the tail bound, the policy's batcher: its timeout bounds the fill (core/inss.h). */
    double task = miss > 0 ? 2 * inf : atoll_inss_task_ns(inf, mid, lambda);
    if (!mem_ok || task > slo_ns) {
      if (!mem_ok && mid == 1)
        mem_fail = true;
      hi = mid - 1;
    } else {
      best = mid;
      lo = mid + 1;
    }
  }
  if (best == 0) {
    gpu[i].batch = *batch = 1;
    return mem_fail || (mem_room_mb > 0 && mem_of(p, 1) > mem_room_mb) ? ATOLL_INSS_BDA_MEMORY : ATOLL_INSS_BDA_SLO;
  }
  if (miss > 0) {
    /* Past the paper: the batch up to the largest found whose queueing tail is the smallest (a
     * larger batch serves more but makes its first requests wait longer for the rest). */
    uint32_t pick = best;
    double low = INFINITY, inf1 = 0;
    for (uint32_t b = 1; b <= best; b++) {
      gpu[i].batch = b;
      double inf = inf_with(m, memo, gpu, n, i);
      if (b == 1)
        inf1 = inf;
      double t = tail_of(memo, inf1, inf, b, lambda, slo_ns);
      if (t < low)
        low = t, pick = b;
      else if (t > low && low < 1)
        break; /* past the bottom: the tail falls with b while the queue drains, then rises */
    }
    gpu[i].batch = *batch = pick;
    return low <= miss ? ATOLL_INSS_BDA_OK : ATOLL_INSS_BDA_THROUGHPUT;
  }
  gpu[i].batch = *batch = best;
  double inf = inf_with(m, memo, gpu, n, i);
  return inf > 0 && (double)best * 1e9 / inf >= lambda ? ATOLL_INSS_BDA_OK : ATOLL_INSS_BDA_THROUGHPUT;
}

atoll_inss_bda_status atoll_inss_bda(const atoll_inss_model *m, atoll_inss_slot *gpu, uint32_t n, uint32_t i,
                                     double lambda, double slo_ns, double mem_room_mb, uint32_t max_batch,
                                     double miss, uint32_t *batch) {
  return bda_with(m, NULL, gpu, n, i, lambda, slo_ns, mem_room_mb, max_batch, miss, batch);
}

/* Memory left for slot k: the GPU's less the other instances at their batches. */
static double room_for(const atoll_inss_model *m, const atoll_inss_slot *s, uint32_t n, uint32_t k, double mem) {
  if (mem <= 0)
    return 0;
  double used = 0;
  for (uint32_t j = 0; j < n; j++)
    if (j != k)
      used += mem_of(&m->prof[s[j].prof], s[j].batch ? s[j].batch : 1);
  double room = mem - used;
  return room > 1e-9 ? room : 1e-9; /* none left: every batch fails (0 would mean unbounded) */
}

/* How close slot k is to failing at the batch BDA found: its queueing tail when BDA bounds it,
 * else its utilisation lambda t_inf / b. */
static double risk(const atoll_inss_model *m, atoll_inss_run_memo *memo, atoll_inss_slot *s, uint32_t n,
                   uint32_t k, double lambda, double slo, double miss) {
  if (lambda <= 0)
    return 0;
  double inf = inf_with(m, memo, s, n, k);
  if (miss > 0) {
    uint32_t b = s[k].batch;
    s[k].batch = 1;
    double inf1 = inf_with(m, memo, s, n, k);
    s[k].batch = b;
    return tail_of(memo, inf1, inf, b, lambda, slo);
  }
  return inf > 0 ? lambda * inf / 1e9 / s[k].batch : 1e18;
}

bool atoll_inss_fit_gpu(const atoll_inss_model *m, const atoll_inss_demand *d, const uint32_t *members, uint32_t n,
                        double scale, const atoll_inss_plan_cfg *cfg, bool spread, uint32_t *pct, uint32_t *batch) {
  atoll_inss_slot s[ATOLL_INSS_MAX_MODELS];
  uint32_t step = cfg->step_pct ? cfg->step_pct : 5;
  if (n > ATOLL_INSS_MAX_MODELS)
    return false;
  /* Each starts at the smallest grid share at which it passes alone (more share is never slower),
   * found by binary search; co-location can only ask more of it. */
  for (uint32_t k = 0; k < n; k++) {
    const atoll_inss_demand *dk = &d[members[k]];
    uint32_t lo = 1, hi = 100 / step, b;
    while (lo < hi) {
      uint32_t mid = (lo + hi) / 2;
      atoll_inss_slot one = {.prof = dk->prof, .pct = mid * step, .batch = 1};
      if (bda_with(m, cfg->memo, &one, 1, 0, dk->lambda * scale, dk->slo_ns, 0, cfg->max_batch, cfg->miss, &b) ==
          ATOLL_INSS_BDA_OK)
        hi = mid;
      else
        lo = mid + 1;
    }
    s[k] = (atoll_inss_slot){.prof = dk->prof, .pct = lo * step, .batch = 1};
  }
  for (;;) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < n; k++)
      sum += s[k].pct;
    if (sum > 100)
      return false;
    bool grew = false;
    for (uint32_t k = 0; k < n; k++) {
      const atoll_inss_demand *dk = &d[members[k]];
      uint32_t b;
      atoll_inss_bda_status st = bda_with(m, cfg->memo, s, n, k, dk->lambda * scale, dk->slo_ns,
                                                room_for(m, s, n, k, cfg->mem_mb), cfg->max_batch, cfg->miss, &b);
      if (st == ATOLL_INSS_BDA_MEMORY)
        return false; /* more share brings no memory */
      if (st != ATOLL_INSS_BDA_OK) {
        if (s[k].pct + step > 100)
          return false;
        s[k].pct += step;
        grew = true;
      }
    }
    if (!grew)
      break;
  }
  if (spread) {
    uint32_t sum = 0;
    for (uint32_t k = 0; k < n; k++)
      sum += s[k].pct;
    while (n > 0 && sum + step <= 100) {
      uint32_t high = 0;
      double high_risk = -1;
      for (uint32_t k = 0; k < n; k++) {
        double r = risk(m, cfg->memo, s, n, k, d[members[k]].lambda * scale, d[members[k]].slo_ns, cfg->miss);
        if (r > high_risk)
          high_risk = r, high = k;
      }
      s[high].pct += step, sum += step;
      for (uint32_t k = 0; k < n; k++) {
        uint32_t b;
        bda_with(m, cfg->memo, s, n, k, d[members[k]].lambda * scale, d[members[k]].slo_ns,
                       room_for(m, s, n, k, cfg->mem_mb), cfg->max_batch, cfg->miss, &b);
      }
    }
  }
  /* The batches for the rates as they are (scale 1). */
  for (uint32_t k = 0; k < n; k++) {
    uint32_t b;
    bda_with(m, cfg->memo, s, n, k, d[members[k]].lambda, d[members[k]].slo_ns, room_for(m, s, n, k, cfg->mem_mb),
                   cfg->max_batch, cfg->miss, &b);
  }
  for (uint32_t k = 0; k < n; k++) {
    pct[k] = s[k].pct;
    batch[k] = s[k].batch;
  }
  return true;
}

/* The minimal shares' total of GPU g's members with model `extra` added (extra < 0: none);
 * 1000 when they do not fit. */
static uint32_t gpu_total(const atoll_inss_model *m, const atoll_inss_demand *d, const uint32_t *gpu_of, uint32_t n,
                          uint32_t g, int32_t extra, int32_t without, double scale, const atoll_inss_plan_cfg *cfg,
                          uint32_t *evals) {
  uint32_t members[ATOLL_INSS_MAX_MODELS], k = 0, pct[ATOLL_INSS_MAX_MODELS], batch[ATOLL_INSS_MAX_MODELS];
  for (uint32_t i = 0; i < n; i++)
    if (gpu_of[i] == g && (int32_t)i != without)
      members[k++] = i;
  if (extra >= 0)
    members[k++] = (uint32_t)extra;
  if (k == 0)
    return 0;
  (*evals)++;
  if (!atoll_inss_fit_gpu(m, d, members, k, scale, cfg, false, pct, batch))
    return 1000;
  uint32_t sum = 0;
  for (uint32_t i = 0; i < k; i++)
    sum += pct[i];
  return sum;
}

static bool may_go(const atoll_inss_demand *d, uint32_t g) { return d->gpu < 0 || (uint32_t)d->gpu == g; }

/* Greedy placement at a scale, then moves and swaps while they lower the larger total of the
 * two GPUs they touch. false when some model fits nowhere. */
static bool place(const atoll_inss_model *m, const atoll_inss_demand *d, uint32_t n, const uint32_t *order,
                  double scale, const atoll_inss_plan_cfg *cfg, uint32_t *gpu_of, uint32_t *evals) {
  const uint32_t none = UINT32_MAX;
  for (uint32_t i = 0; i < n; i++)
    gpu_of[i] = none;
  for (uint32_t oi = 0; oi < n; oi++) {
    uint32_t i = order[oi], best = none, best_total = 1000;
    for (uint32_t g = 0; g < cfg->gpus; g++) {
      if (!may_go(&d[i], g))
        continue;
      uint32_t t = gpu_total(m, d, gpu_of, n, g, (int32_t)i, -1, scale, cfg, evals);
      if (t < best_total)
        best_total = t, best = g;
    }
    if (best == none)
      return false;
    gpu_of[i] = best;
  }
  uint32_t total[ATOLL_MAX_GPUS_INSS];
  for (uint32_t g = 0; g < cfg->gpus; g++)
    total[g] = gpu_total(m, d, gpu_of, n, g, -1, -1, scale, cfg, evals);
  for (uint32_t pass = 0; pass < n; pass++) {
    bool better = false;
    for (uint32_t i = 0; i < n; i++) {
      uint32_t from = gpu_of[i];
      for (uint32_t g = 0; g < cfg->gpus; g++) {
        if (g == from || !may_go(&d[i], g))
          continue;
        uint32_t tf = gpu_total(m, d, gpu_of, n, from, -1, (int32_t)i, scale, cfg, evals);
        uint32_t tg = gpu_total(m, d, gpu_of, n, g, (int32_t)i, -1, scale, cfg, evals);
        uint32_t old = total[from] > total[g] ? total[from] : total[g], now = tf > tg ? tf : tg;
        if (now < old) {
          gpu_of[i] = g, total[from] = tf, total[g] = tg, from = g;
          better = true;
        }
      }
    }
    for (uint32_t i = 0; i < n; i++)
      for (uint32_t j = i + 1; j < n; j++) {
        uint32_t gi = gpu_of[i], gj = gpu_of[j];
        if (gi == gj || !may_go(&d[i], gj) || !may_go(&d[j], gi))
          continue;
        gpu_of[i] = gj, gpu_of[j] = gi;
        uint32_t ti = gpu_total(m, d, gpu_of, n, gi, -1, -1, scale, cfg, evals);
        uint32_t tj = gpu_total(m, d, gpu_of, n, gj, -1, -1, scale, cfg, evals);
        uint32_t old = total[gi] > total[gj] ? total[gi] : total[gj], now = ti > tj ? ti : tj;
        if (now < old) {
          total[gi] = ti, total[gj] = tj;
          better = true;
        } else {
          gpu_of[i] = gi, gpu_of[j] = gj;
        }
      }
    if (!better)
      break;
  }
  for (uint32_t g = 0; g < cfg->gpus; g++)
    if (total[g] > 100)
      return false;
  return true;
}

void atoll_inss_decide(const atoll_inss_model *m, const atoll_inss_demand *d, uint32_t n,
                       const atoll_inss_plan_cfg *cfg_in, atoll_inss_plan *out) {
  memset(out, 0, sizeof *out);
  atoll_inss_plan_cfg cfg = *cfg_in;
  atoll_inss_run_memo memo;
  if (!cfg.memo) {
    atoll_inss_run_memo_clear(&memo);
    cfg.memo = &memo;
  }
  if (cfg.gpus == 0)
    cfg.gpus = 1;
  if (cfg.gpus > ATOLL_MAX_GPUS_INSS)
    cfg.gpus = ATOLL_MAX_GPUS_INSS;
  if (n == 0 || n > ATOLL_INSS_MAX_MODELS)
    return;
  /* Order: the largest solo need first (a model that fits nowhere alone counts as 101 %). */
  uint32_t need[ATOLL_INSS_MAX_MODELS], order[ATOLL_INSS_MAX_MODELS];
  for (uint32_t i = 0; i < n; i++) {
    uint32_t one = i, p, b;
    need[i] = atoll_inss_fit_gpu(m, d, &one, 1, 1.0, &cfg, false, &p, &b) ? p : 101;
    order[i] = i;
  }
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && need[order[j]] > need[order[j - 1]]; j--) {
      uint32_t t = order[j];
      order[j] = order[j - 1], order[j - 1] = t;
    }
  uint32_t gpu_of[ATOLL_INSS_MAX_MODELS], best_gpu[ATOLL_INSS_MAX_MODELS];
  double lo = 0, hi = 0, x = 1, gpu_scale[ATOLL_MAX_GPUS_INSS];
  bool found = false, exact = false;
  for (uint32_t g = 0; g < cfg.gpus; g++)
    gpu_scale[g] = 0;
  /* Small instances: every placement (core/inss_exact.c). */
  if (atoll_inss_place_exact(m, d, n, &cfg, order, best_gpu, &lo, gpu_scale, &out->evaluations)) {
    found = exact = true;
  } else if (n <= ATOLL_INSS_EXACT_MODELS) {
    /* Not even 1/64 of the rates fits anywhere: the fallback below. */
  } else if (place(m, d, n, order, 1.0, &cfg, gpu_of, &out->evaluations)) {
    lo = 1, found = true;
    memcpy(best_gpu, gpu_of, sizeof gpu_of);
    for (x = 2; x <= 64 && place(m, d, n, order, x, &cfg, gpu_of, &out->evaluations); x *= 2) {
      lo = x;
      memcpy(best_gpu, gpu_of, sizeof gpu_of);
    }
    hi = x;
  } else {
    hi = 1;
    for (x = 0.5; x >= 1.0 / 64; x /= 2) {
      if (place(m, d, n, order, x, &cfg, gpu_of, &out->evaluations)) {
        lo = x, found = true;
        memcpy(best_gpu, gpu_of, sizeof gpu_of);
        break;
      }
      hi = x;
    }
  }
  if (!found) {
    /* Nothing fits even at 1/64: spread the models over the GPUs in order, equal shares. */
    for (uint32_t i = 0; i < n; i++)
      best_gpu[i] = d[i].gpu >= 0 ? (uint32_t)d[i].gpu : i % cfg.gpus;
    lo = 0;
  } else if (!exact && hi > lo) {
    for (int it = 0; it < 8; it++) {
      double mid = sqrt(lo * hi);
      if (place(m, d, n, order, mid, &cfg, gpu_of, &out->evaluations)) {
        lo = mid;
        memcpy(best_gpu, gpu_of, sizeof gpu_of);
      } else {
        hi = mid;
      }
    }
  }
  out->scale = lo;
  out->ok = lo >= 1;
  for (uint32_t g = 0; g < cfg.gpus; g++) {
    uint32_t members[ATOLL_INSS_MAX_MODELS], k = 0, pct[ATOLL_INSS_MAX_MODELS], batch[ATOLL_INSS_MAX_MODELS];
    for (uint32_t i = 0; i < n; i++)
      if (best_gpu[i] == g)
        members[k++] = i;
    if (k == 0)
      continue;
    /* Each GPU's shares at its own highest scale where the exact search knows it (what the GPU's
     * own run decides: docs/inss.md, "The policy"), else at the common one. */
    double at = exact && gpu_scale[g] > lo ? gpu_scale[g] : lo;
    if (!found || !atoll_inss_fit_gpu(m, d, members, k, at, &cfg, true, pct, batch))
      for (uint32_t j = 0; j < k; j++)
        pct[j] = 100 / k / (cfg.step_pct ? cfg.step_pct : 5) * (cfg.step_pct ? cfg.step_pct : 5), batch[j] = 1;
    for (uint32_t j = 0; j < k; j++) {
      out->gpu[members[j]] = g;
      out->pct[members[j]] = pct[j] ? pct[j] : 1;
      out->batch[members[j]] = batch[j] ? batch[j] : 1;
    }
  }
}
