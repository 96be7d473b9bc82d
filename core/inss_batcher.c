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
/* lgamma_r (below) is declared under the default feature set, which the build's _XOPEN_SOURCE
 * alone turns off. */
#define _DEFAULT_SOURCE
#include <math.h>

#include "core/inss.h"

/* ln Gamma(x) for x > 0. C's lgamma stores the sign of Gamma in the global signgam: a write that
 * races where several runs decide their batches at once (atoll sweep and compare run them in
 * threads). lgamma_r returns the same value and keeps the sign in the caller's variable. */
static double ln_gamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

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

/* ln P(Poisson(mu) = k), mu > 0. */
static double ln_pois(double mu, uint32_t k) { return -mu + (double)k * log(mu) - ln_gamma((double)k + 1); }

/* P(Poisson(y) = k) for k = 0 .. top into pmf[k], y > 0: upwards from e^-y while that is a normal
 * double, else downwards from the top one (the smaller ones then vanish, as they should). */
static void pois_pmf(double y, uint32_t top, double *pmf) {
  if (y < 700) {
    pmf[0] = exp(-y);
    for (uint32_t k = 1; k <= top; k++)
      pmf[k] = pmf[k - 1] * y / (double)k;
    return;
  }
  pmf[top] = exp(ln_pois(y, top));
  for (uint32_t k = top; k >= 1; k--)
    pmf[k - 1] = pmf[k] * (double)k / y;
}

/* E[1 / (k + N)] for N ~ Poisson(d), d > 0. */
static double inverse_mean(uint32_t k, double d) {
  double p = exp(-d), sum = 0;
  for (uint32_t n = 0; (double)n <= d || p > 1e-17 * sum; n++) {
    sum += p / (double)(k + n);
    p *= d / (double)(n + 1);
  }
  return sum;
}

/* The part of atoll_inss_fill_wait's out[k] where the k-th arrival comes before the timeout,
 * y^k / (k-1)! times the integral over g in [0, 1] of g^(k-1) e^(-y g - x (1 - g)), for k = 1 .. top
 * into in[k], pmf as pois_pmf gives it. Every form below adds positive terms or recurs in the
 * direction that shrinks errors, so nothing cancels or overflows at any x (an 8-point quadrature
 * of e^(theta s) did both: tails 21 % off where the peak is narrow, infinity past x = 709). */
static void fill_before_timeout(uint32_t top, double y, double x, const double *pmf, double *in) {
  if (y >= x) {
    /* With g = y - x: in[k] = sum over n of P(Poisson(y) = k + n) (g / y)^n, so
     * in[k] = P(Poisson(y) = k) + (g / y) in[k + 1] downwards from
     * in[top] = e^-x (y / g)^top P(Poisson(g) >= top). */
    double g = y - x, ln_top;
    if (g >= (double)top) {
      ln_top = -x + (double)top * log(y / g) + log(1 - pois_below(g, top));
    } else { /* P(Poisson(g) >= top) is small: its series, e^-g g^top / top! sum_i g^i top! / (top + i)! */
      double term = 1, series = 1;
      for (uint32_t i = 1; term > 1e-17 * series; i++) {
        term *= g / (double)(top + i);
        series += term;
      }
      ln_top = -y + (double)top * log(y) - ln_gamma((double)top + 1) + log(series);
    }
    in[top] = exp(ln_top);
    for (uint32_t k = top - 1; k >= 1; k--)
      in[k] = pmf[k] + g / y * in[k + 1];
    return;
  }
  /* With d = x - y: in[k] = k P(Poisson(y) = k) J_k, J_k the integral of g^(k-1) e^(-d (1 - g)),
   * that is E[1 / (k + N)] for N ~ Poisson(d). J_k = (1 - (k - 1) J_(k-1)) / d multiplies an error
   * by (k - 1) / d, so it runs upwards from J_1 = (1 - e^-d) / d while k - 1 <= d, and the rest
   * downwards, J_(k-1) = (1 - d J_k) / (k - 1), from J_top summed. */
  double d = x - y, j[ATOLL_INSS_MAX_BATCH + 1];
  uint32_t up = d >= (double)top ? top : (uint32_t)d + 1;
  j[1] = -expm1(-d) / d;
  for (uint32_t k = 2; k <= up; k++)
    j[k] = (1 - (double)(k - 1) * j[k - 1]) / d;
  if (up < top) {
    j[top] = inverse_mean(top, d);
    for (uint32_t k = top; k > up + 1; k--)
      j[k - 1] = (1 - d * j[k]) / (double)(k - 1);
  }
  for (uint32_t k = 1; k <= top; k++)
    in[k] = (double)k * pmf[k] * j[k];
}

void atoll_inss_fill_wait(uint32_t n, double y, double x, double *out) {
  if (n == 0)
    return;
  out[0] = exp(-x);
  if (n == 1)
    return;
  if (!(x > 0) || !(y > 0)) { /* no timeout, or no arrival within it: min(G_k, 1) = 1 */
    for (uint32_t k = 1; k < n; k++)
      out[k] = 1;
    return;
  }
  double pmf[ATOLL_INSS_MAX_BATCH + 1], in[ATOLL_INSS_MAX_BATCH + 1], below = 0;
  pois_pmf(y, n - 1, pmf);
  fill_before_timeout(n - 1, y, x, pmf, in);
  for (uint32_t k = 1; k < n; k++) { /* the k-th arrival after the timeout, P(Poisson(y) < k): e^0 */
    below += pmf[k - 1];
    out[k] = (below < 1 ? below : 1) + in[k];
  }
}

double atoll_inss_place_wait_ln(uint32_t k, uint32_t j, double x) {
  if (j <= 1 || !(x > 0))
    return 0; /* place 1 waits the whole timeout: 1F1(k; k; x) = e^x */
  double a = (double)(k - j + 1), m = (double)(j - 1), kk = (double)k;
  if (x >= fmax(kk * kk, 100)) {
    /* For whole a and k the asymptotic expansion ends: e^-x 1F1(a; k; x) = Gamma(k) / Gamma(a)
     * x^-m sum_(s < a) (m)_s (1 - a)_s / s! x^-s, plus a part below e^-x x^(k - 2a) Gamma(k) /
     * Gamma(m), which this x makes smaller than the rounding. Here the terms alternate, each at most
     * (k / 2)^2 / x <= 1/4 of the one before, so their sum keeps its digits. */
    double term = 1, sum = 1;
    for (double s = 0; s + 1 < a; s++) {
      term *= (m + s) * (s + 1 - a) / ((s + 1) * x);
      sum += term;
    }
    return ln_gamma(kk) - ln_gamma(a) - m * log(x) + log(sum);
  }
  /* e^-x 1F1(a; k; x) = E[(a)_N / (k)_N], N ~ Poisson(x): positive terms, summed outwards from
   * the largest, where x (a + n) = (n + 1)(k + n). */
  double disc = (x - kk - 1) * (x - kk - 1) + 4 * (a * x - kk), n0 = 0;
  if (disc >= 0 && x - kk - 1 + sqrt(disc) > 0)
    n0 = floor(0.5 * (x - kk - 1 + sqrt(disc)));
  double ln_w0 =
      -x + n0 * log(x) - ln_gamma(n0 + 1) + ln_gamma(a + n0) - ln_gamma(a) - ln_gamma(kk + n0) + ln_gamma(kk);
  double sum = 1, w = 1;
  for (double n = n0; w > 1e-17 * sum; n++) {
    w *= x / (n + 1) * (a + n) / (kk + n);
    sum += w;
  }
  w = 1;
  for (double n = n0; n > 0 && w > 1e-17 * sum; n--) {
    w *= n / x * (kk + n - 1) / (a + n - 1);
    sum += w;
  }
  return ln_w0 + log(sum);
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
   * the renewal process of launches (lundberg) can decay more slowly; the slower decay rules.
   * lundberg is negative only below its root, so where it is not positive at the backlog's rate,
   * that rate is the slower and the root is not looked for. */
  if (lundberg(&q, theta) > 0) {
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
  }
  /* The prefactor of the M/D/1 tail at the same load and decay (exact for b = 1). */
  double c = (1 - rho_b) / (rho_b * exp(u) - 1);
  if (!(c > 0) || c > 1)
    c = 1;
  /* A full batch: place j waits for the b - j after it, min(S_{b-j}, T) at most. */
  double wait[ATOLL_INSS_MAX_BATCH], sum = 0, x = theta * q.t_out;
  atoll_inss_fill_wait(b, lambda * q.t_out, x, wait); /* e^-x E[e^(theta min(S_k, T))] */
  double full = c * exp(-theta * (slo - tb - q.t_out));
  for (uint32_t j = 1; j <= b; j++)
    sum += q.pk[b] * fmin(1, full * wait[b - j]);
  /* A batch the timeout launched with k < b: its k - 1 later arrivals are uniform over the
   * timeout, so place j waits T (1 - U), U the (j - 1)-th of k - 1 uniforms: T x Beta(k - j + 1,
   * j - 1), whose moment generating function is Kummer's 1F1(k - j + 1; k; theta T). */
  for (uint32_t k = 1; k < b; k++) {
    if (q.pk[k] < 1e-12)
      continue;
    /* Place j's term grows with k - j + 1, to c e^(-theta (SLO - t(k))) e^x at j = 1 (1F1(k; k; x)
     * = e^x): when that one stays under the cap of 1, none reaches it and the k terms add up in
     * closed form, taken in logarithms so that no e^x overflows. Else each is taken on its own,
     * in logarithms too, and capped. */
    double ln_first = log(c) - theta * (slo - q.t[k]) + x;
    if (ln_first <= 0) {
      sum += q.pk[k] * (exp(ln_first) * atoll_inss_wait_mgf_ratio(k, x));
      continue;
    }
    for (uint32_t j = 1; j <= k; j++)
      sum += q.pk[k] * fmin(1, exp(ln_first + atoll_inss_place_wait_ln(k, j, x)));
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
