/* The queueing tail of a timeout-bounded batcher (core/inss.h, docs/inss.md "The queueing tail"):
 * the chance that a request misses its SLO when its queue launches a batch once b requests wait
 * or once the oldest has waited T = SLO - 2 t_inf(b), whichever comes first, as policy inss does.
 *
 * Batches are the customers of a single-server queue. A batch holds K = min(b, 1 + N(T))
 * requests (N(T): Poisson arrivals in the timeout) and runs t(K), linear between t_inf(1) and
 * t_inf(b). The time between two launches is the next batch's first arrival, Exp(lambda), plus
 * its fill, min(S_{b-1}, T) (S_k: the k-th arrival after the first, Gamma(k, lambda)). Launches
 * are a renewal process and a batch's service is independent of the next gap, so the batches'
 * wait W has the GI/G/1 tail P(W > x) ~ C exp(-theta x), theta the positive root of
 * E[e^(theta S)] E[e^(-theta A)] = 1 (Cramer-Lundberg). A request at place j of its batch waits
 * for the rest to fill at most min(S_{b-j}, T) before W; it misses when fill + W + t(b) > SLO. */
#include <math.h>

#include "core/inss.h"

enum { NODES = 8 };

/* Gauss-Legendre nodes and weights on [-1, 1]: the fill-time integrals are smooth (a power times
 * an exponential) over [0, T]. */
static const double gl_x[NODES] = {-0.9602898564975363, -0.7966664774136267, -0.5255324099163290,
                                   -0.1834346424956498, 0.1834346424956498,  0.5255324099163290,
                                   0.7966664774136267,  0.9602898564975363};
static const double gl_w[NODES] = {0.1012285362903763, 0.2223810344533745, 0.3137066458778873,
                                   0.3626837833783620, 0.3626837833783620, 0.3137066458778873,
                                   0.2223810344533745, 0.1012285362903763};

/* P(Poisson(mu) < k). */
static double pois_below(double mu, uint32_t k) {
  double p = exp(-mu), sum = 0;
  for (uint32_t j = 0; j < k; j++) {
    sum += p;
    p *= mu / (double)(j + 1);
  }
  return sum < 1 ? sum : 1;
}

typedef struct batcher {
  uint32_t b;
  double lambda, t_out, t[ATOLL_INSS_MAX_BATCH + 1], pk[ATOLL_INSS_MAX_BATCH + 1], mean_k;
} batcher;

/* ln E[e^(theta S)] + ln E[e^(-theta A)]: 0 at theta = 0 and at the decay rate, negative between. */
static double lundberg(const batcher *q, double theta) {
  double es = 0;
  for (uint32_t k = 1; k <= q->b; k++)
    es += q->pk[k] * exp(theta * (q->t[k] - q->t[q->b]));
  double r = q->lambda / (q->lambda + theta), fill = 1;
  if (q->b > 1)
    fill = pow(r, (double)(q->b - 1)) * (1 - pois_below((q->lambda + theta) * q->t_out, q->b - 1)) +
           exp(-theta * q->t_out) * pois_below(q->lambda * q->t_out, q->b - 1);
  return log(es) + theta * q->t[q->b] + log(r) + log(fill);
}

/* E[e^(theta min(S_k, T))] for k = 0 .. b - 1 into out[k]: the integral of e^(theta s) over the
 * Gamma(k, lambda) density up to T, plus e^(theta T) P(S_k > T). */
static void fill_mgf(const batcher *q, double theta, double *out) {
  out[0] = 1;
  for (uint32_t k = 1; k < q->b; k++)
    out[k] = exp(theta * q->t_out) * pois_below(q->lambda * q->t_out, k);
  if (q->t_out <= 0)
    return;
  for (int i = 0; i < NODES; i++) {
    double s = 0.5 * q->t_out * (gl_x[i] + 1), w = 0.5 * q->t_out * gl_w[i];
    double g = q->lambda * exp(-q->lambda * s); /* the Gamma(1, lambda) density at s */
    for (uint32_t k = 1; k < q->b; k++) {
      out[k] += w * exp(theta * s) * g;
      g *= q->lambda * s / (double)k;
    }
  }
}

double atoll_inss_wait_mgf_ratio(uint32_t k, double x) {
  if (!(x > 0))
    return (double)k; /* no timeout: nothing waits, each place's e^0 = 1 */
  return 1 + (double)(k - 1) * (-expm1(-x) / x);
}

double atoll_inss_tail_batched(double inf1_ns, double infb_ns, uint32_t b, double lambda, double slo_ns) {
  if (lambda <= 0)
    return 0;
  if (b == 0)
    b = 1;
  if (b > ATOLL_INSS_MAX_BATCH)
    b = ATOLL_INSS_MAX_BATCH;
  if (infb_ns <= 0 || infb_ns >= slo_ns)
    return 1;
  batcher q = {.b = b, .lambda = lambda};
  double slo = slo_ns / 1e9, t1 = inf1_ns / 1e9, tb = infb_ns / 1e9;
  q.t_out = slo > 2 * tb ? slo - 2 * tb : 0;
  double below = 0, mu = lambda * q.t_out, p = exp(-mu);
  for (uint32_t k = 1; k <= b; k++) {
    q.t[k] = b > 1 ? t1 + (tb - t1) * (double)(k - 1) / (double)(b - 1) : tb;
    q.pk[k] = k < b ? p : (1 - below > 0 ? 1 - below : 0); /* K = k: k - 1 more arrive within T */
    below += p;
    p *= mu / (double)k;
    q.mean_k += (double)k * q.pk[k];
  }
  double es = 0;
  for (uint32_t k = 1; k <= b; k++)
    es += q.pk[k] * q.t[k];
  double rho = es * lambda / q.mean_k; /* the mean gap between launches is E[K] / lambda */
  if (rho >= 1)
    return 1;
  if (rho < 1e-9)
    return 0;
  /* The tail is made in backlogs, where every launch takes a full batch: b requests leave per
   * t_inf(b), and the wait's decay u = theta t_inf(b) is the positive root of
   * u = b ln(1 + u / (b rho_b)), rho_b = lambda t_inf(b) / b (Erlang-b gaps against a fixed
   * service: for b = 1, M/D/1's rho (e^u - 1) = u). g(u) = b ln(1 + u / (b rho_b)) - u is concave
   * with g(0) = 0 and g'(0) > 0: Newton from above its root falls onto it. */
  double rho_b = lambda * tb / (double)b;
  if (rho_b >= 1)
    return 1;
  double u = 1;
  while ((double)b * log1p(u / ((double)b * rho_b)) - u >= 0)
    u *= 2;
  for (int it = 0; it < 100; it++) {
    double g = (double)b * log1p(u / ((double)b * rho_b)) - u, dg = 1 / (rho_b + u / (double)b) - 1;
    double step = g / dg;
    u -= step;
    if (fabs(step) <= 1e-12 * u)
      break;
  }
  double theta = u / tb;
  /* Out of backlogs the timeout launches partial batches, each taking t(K) for fewer requests:
   * the renewal process of launches (lundberg) can decay more slowly; the slower decay rules. */
  double lo = 0, flo = es - q.mean_k / lambda, hi = 1 / tb, fhi = lundberg(&q, hi) / hi;
  for (int i = 0; fhi <= 0 && i < 60; i++)
    lo = hi, flo = fhi, hi *= 2, fhi = lundberg(&q, hi) / hi;
  int side = 0;
  for (int it = 0; it < 60 && hi - lo > 1e-7 * hi; it++) {
    double x = (lo * fhi - hi * flo) / (fhi - flo), fx = lundberg(&q, x) / x;
    if (fx > 0) {
      hi = x, fhi = fx;
      if (side == -1)
        flo *= 0.5;
      side = -1;
    } else {
      lo = x, flo = fx;
      if (side == 1)
        fhi *= 0.5;
      side = 1;
    }
  }
  if (0.5 * (lo + hi) < theta)
    theta = 0.5 * (lo + hi);
  /* The prefactor of the M/D/1 tail at the same load and decay (exact for b = 1). */
  double c = (1 - rho_b) / (rho_b * exp(u) - 1);
  if (!(c > 0) || c > 1)
    c = 1;
  /* A full batch: place j waits for the b - j after it, min(S_{b-j}, T) at most. */
  double mgf[ATOLL_INSS_MAX_BATCH], sum = 0, x = theta * q.t_out;
  fill_mgf(&q, theta, mgf);
  for (uint32_t j = 1; j <= b; j++)
    sum += q.pk[b] * fmin(1, c * exp(-theta * (slo - tb)) * mgf[b - j]);
  /* A batch the timeout launched with k < b: its k - 1 later arrivals are uniform over the
   * timeout, so place j waits T (1 - U), U the (j - 1)-th of k - 1 uniforms: T x Beta(k - j + 1,
   * j - 1), whose moment generating function is Kummer's 1F1(k - j + 1; k; theta T). */
  for (uint32_t k = 1; k < b; k++) {
    if (q.pk[k] < 1e-12)
      continue;
    /* Place j's term grows with k - j + 1, to c e^(-theta (SLO - t(k))) e^x at j = 1 (1F1(k; k; x)
     * = e^x): when that one stays under the cap of 1, none reaches it and the k terms add up in
     * closed form, taken in logarithms so that no e^x overflows. Else each is summed on its own
     * and capped. */
    double ln_first = log(c) - theta * (slo - q.t[k]) + x;
    if (ln_first <= 0) {
      sum += q.pk[k] * (exp(ln_first) * atoll_inss_wait_mgf_ratio(k, x));
      continue;
    }
    for (uint32_t j = 1; j <= k; j++) {
      double a = (double)(k - j + 1), term = 1, f = 1;
      for (int i = 0; i < 400 && term > 1e-12 * f; i++) {
        term *= (a + i) / ((double)k + i) * x / (i + 1);
        f += term;
      }
      sum += q.pk[k] * fmin(1, c * exp(-theta * (slo - q.t[k])) * f);
    }
  }
  double tail = sum / q.mean_k;
  if (tail >= 1)
    return 1;
  /* At b = 1 the policy's shedding (a request that would miss even alone is dropped at the head
   * of its queue, bringing no work) is exactly a bound on the waiting time: the queue is M/D/1
   * with customers refused when their wait would pass SLO - t_inf, whose loss is
   * (1 - rho) p / (1 - rho p), p the unbounded queue's tail (Cohen's M/G/1 with bounded virtual
   * waiting time). At b > 1 a request can miss without being shed (its batch runs longer than
   * batch 1), so the plain tail stands. */
  if (b == 1)
    tail = (1 - rho) * tail / (1 - rho * tail);
  return tail;
}
