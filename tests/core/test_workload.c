/* Request arrivals (core/workload.c): the random streams are a pure function of (seed, client),
 * atoll_rng_unit stays in (0, 1], uniform arrivals sit exactly at k / rate, Poisson arrivals have
 * the right mean, traces replay (or end), and closed-loop clients have no schedule. */
#include <math.h>
#include <string.h>

#include "tests/atoll_test.h"
#include "core/workload.h"

/* Fails with both values when |a - b| > tol. */
#define assert_close(a, b, tol)                                                                     \
  do {                                                                                              \
    double a_ = (double)(a), b_ = (double)(b), t_ = (double)(tol);                                  \
    if (!(fabs(a_ - b_) <= t_))                                                                     \
      fail_msg("%s = %.17g, expected %.17g (tolerance %g)", #a, a_, b_, t_);                        \
  } while (0)

enum { N_DRAWS = 1000 };

static void draws(uint64_t seed, uint64_t stream, uint64_t out[N_DRAWS]) {
  atoll_rng r;
  atoll_rng_seed(&r, seed, stream);
  for (int i = 0; i < N_DRAWS; i++)
    out[i] = atoll_rng_next(&r);
}

static int count_equal(const uint64_t *a, const uint64_t *b, int n) {
  int k = 0;
  for (int i = 0; i < n; i++)
    k += a[i] == b[i];
  return k;
}

static void rng_same_seed_and_stream_same_sequence(void **state) {
  (void)state;
  static uint64_t a[N_DRAWS], b[N_DRAWS];
  draws(42, 3, a);
  draws(42, 3, b);
  assert_memory_equal(a, b, sizeof a);
  /* Not a constant: a generator stuck at one value would pass the comparison above. */
  int repeats = 0;
  for (int i = 1; i < N_DRAWS; i++)
    repeats += a[i] == a[i - 1];
  assert_int_equal(repeats, 0);
}

static void rng_other_seed_or_stream_differs(void **state) {
  (void)state;
  static uint64_t base[N_DRAWS], other[N_DRAWS];
  draws(42, 3, base);
  draws(43, 3, other);
  assert_int_equal(count_equal(base, other, N_DRAWS), 0);
  draws(42, 4, other);
  assert_int_equal(count_equal(base, other, N_DRAWS), 0);
  /* Seed 0, stream 0 still gives a working generator (xoshiro's all-zero state would be stuck). */
  draws(0, 0, other);
  assert_true(other[0] != 0 || other[1] != 0);
  assert_cmp(other[0], !=, other[1]);
}

static atoll_arrival arrival_of(atoll_arrival_kind kind) {
  return (atoll_arrival){.kind = kind, .rate_hz = 1000};
}

/* A client's arrivals depend on (seed, its index) only: the same pair gives the same times, another
 * index or seed other times. */
static void client_gen_deterministic_per_seed_and_client(void **state) {
  (void)state;
  atoll_arrival a = arrival_of(ATOLL_ARRIVAL_POISSON);
  atoll_client_gen g1, g2, g3, g4;
  atoll_client_gen_init(&g1, &a, 1000, 7, 0);
  atoll_client_gen_init(&g2, &a, 1000, 7, 0);
  atoll_client_gen_init(&g3, &a, 1000, 7, 1);
  atoll_client_gen_init(&g4, &a, 1000, 8, 0);
  int same13 = 0, same14 = 0;
  for (int i = 0; i < 1000; i++) {
    int64_t t1 = atoll_client_gen_next(&g1), t2 = atoll_client_gen_next(&g2);
    int64_t t3 = atoll_client_gen_next(&g3), t4 = atoll_client_gen_next(&g4);
    assert_int_equal(t1, t2);
    same13 += t1 == t3;
    same14 += t1 == t4;
  }
  /* Independent exponential sequences agree at a position only by chance (tens of ns in a mean of
   * 1 ms); 1000 equal positions would mean a shared stream. */
  assert_cmp(same13, <, 10);
  assert_cmp(same14, <, 10);
}

/* Adding client 1 (drawn from in between) leaves client 0's arrivals unchanged. */
static void client_streams_are_independent(void **state) {
  (void)state;
  atoll_arrival a = arrival_of(ATOLL_ARRIVAL_POISSON);
  enum { N = 2000 };
  static int64_t alone[N];
  atoll_client_gen g0;
  atoll_client_gen_init(&g0, &a, 500, 99, 0);
  for (int i = 0; i < N; i++)
    alone[i] = atoll_client_gen_next(&g0);

  atoll_client_gen g[2];
  atoll_client_gen_init(&g[0], &a, 500, 99, 0);
  atoll_client_gen_init(&g[1], &a, 2000, 99, 1);
  for (int i = 0; i < N; i++) {
    /* Client 1 draws a varying number of times between client 0's draws. */
    for (int k = 0; k < i % 3; k++)
      (void)atoll_client_gen_next(&g[1]);
    int64_t t = atoll_client_gen_next(&g[0]);
    if (t != alone[i])
      fail_msg("client 0 arrival %d: %lld with client 1 present, %lld alone", i, (long long)t,
               (long long)alone[i]);
  }
}

/* Multiplicative inverse of an odd a modulo 2^64 (Newton iteration). */
static uint64_t inverse_odd(uint64_t a) {
  uint64_t x = a; /* correct to 3 bits for odd a */
  for (int i = 0; i < 6; i++)
    x *= 2 - a * x;
  return x;
}

static uint64_t rotr64(uint64_t x, int k) { return (x >> k) | (x << (64 - k)); }

/* atoll_rng_unit maps the generator's output onto (0, 1]: the smallest output gives 2^-53 (not 0),
 * the largest exactly 1. The states are built by inverting xoshiro256**'s output function
 * (rotl(s1 * 5, 7) * 9), so the edges are hit exactly rather than hoped for. */
static void rng_unit_edges_are_open_at_zero_closed_at_one(void **state) {
  (void)state;
  assert_int_equal(inverse_odd(9) * 9, 1);
  assert_int_equal(inverse_odd(5) * 5, 1);
  atoll_rng r = {{1, 0, 0, 0}}; /* s1 = 0: output 0 */
  double lo = atoll_rng_unit(&r);
  assert_cmp(lo, >, 0);
  assert_cmp(lo, ==, 0x1.0p-53);

  uint64_t want = UINT64_MAX;
  uint64_t s1 = rotr64(want * inverse_odd(9), 7) * inverse_odd(5);
  atoll_rng probe = {{0, s1, 0, 0}};
  assert_int_equal(atoll_rng_next(&probe), want);
  atoll_rng top = {{0, s1, 0, 0}};
  double hi = atoll_rng_unit(&top);
  if (hi != 1.0)
    fail_msg("largest output maps to %.17g, expected 1", hi);
}

static void rng_unit_in_range_and_uniform(void **state) {
  (void)state;
  atoll_rng r;
  atoll_rng_seed(&r, 2024, 1);
  enum { N = 1000000 };
  double sum = 0, lo = 1, hi = 0;
  uint32_t bins[10] = {0};
  for (int i = 0; i < N; i++) {
    double u = atoll_rng_unit(&r);
    if (!(u > 0 && u <= 1))
      fail_msg("draw %d: %.17g is outside (0, 1]", i, u);
    sum += u;
    lo = u < lo ? u : lo;
    hi = u > hi ? u : hi;
    bins[u >= 1 ? 9 : (int)(u * 10)]++;
  }
  assert_close(sum / N, 0.5, 0.002);
  assert_cmp(lo, <, 1e-4);
  assert_cmp(hi, >, 1 - 1e-4);
  for (int b = 0; b < 10; b++)
    assert_close(bins[b], N / 10.0, 1000); /* sd ~ 300 per bin */
}

/* Arrival k of a uniform client is at k / rate, rounded to the nearest ns, computed from k: no
 * drift even after a million arrivals, at rates whose period is not a whole number of ns. */
static void uniform_arrivals_exact_without_drift(void **state) {
  (void)state;
  static const double rates[] = {1000, 3, 7.3, 1234.567, 59.94};
  for (size_t ri = 0; ri < sizeof rates / sizeof *rates; ri++) {
    double rate = rates[ri];
    atoll_arrival a = {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = rate};
    atoll_client_gen g;
    atoll_client_gen_init(&g, &a, rate, 1, 0);
    int64_t prev = -1;
    for (uint32_t k = 0; k < 1000000; k++) {
      int64_t t = atoll_client_gen_next(&g);
      long double exact = (long double)k * 1e9L / (long double)rate;
      long double err = (long double)t - exact;
      if (err < 0)
        err = -err;
      /* Nearest ns, plus the double division's own rounding (< 0.05 ns at 3.3e14 ns). */
      if (err > 0.55L)
        fail_msg("rate %g Hz: arrival %u at %lld ns, exact %.3Lf ns", rate, k, (long long)t, exact);
      assert_cmp(t, >=, prev);
      prev = t;
    }
  }
  /* A whole-ns period: exactly k ms. */
  atoll_arrival a = {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = 1000};
  atoll_client_gen g;
  atoll_client_gen_init(&g, &a, 1000, 1, 0);
  assert_int_equal(atoll_client_gen_next(&g), 0);
  assert_int_equal(atoll_client_gen_next(&g), 1000000);
  for (int k = 2; k < 999999; k++)
    (void)atoll_client_gen_next(&g);
  assert_int_equal(atoll_client_gen_next(&g), 999999000000LL);
}

/* Poisson: exponential gaps of mean 1/rate (mean within 2% over 100k, and the variance of an
 * exponential: mean squared), times never decreasing. */
static void poisson_mean_and_monotonic(void **state) {
  (void)state;
  static const double rates[] = {100, 2500};
  for (size_t ri = 0; ri < 2; ri++) {
    double rate = rates[ri];
    atoll_arrival a = {.kind = ATOLL_ARRIVAL_POISSON, .rate_hz = rate};
    atoll_client_gen g;
    atoll_client_gen_init(&g, &a, rate, 12345, 2);
    enum { N = 100000 };
    int64_t prev = atoll_client_gen_next(&g);
    assert_cmp(prev, >=, 0);
    double sum = 0, sum2 = 0;
    for (int i = 0; i < N; i++) {
      int64_t t = atoll_client_gen_next(&g);
      if (t < prev)
        fail_msg("arrival %d at %lld ns before the previous one at %lld ns", i + 1, (long long)t, (long long)prev);
      double gap = (double)(t - prev);
      sum += gap;
      sum2 += gap * gap;
      prev = t;
    }
    double mean = sum / N, want = 1e9 / rate;
    double var = sum2 / N - mean * mean;
    if (fabs(mean - want) > 0.02 * want)
      fail_msg("rate %g: mean inter-arrival %.1f ns, expected %.1f ns within 2%%", rate, mean, want);
    if (fabs(var - want * want) > 0.05 * want * want)
      fail_msg("rate %g: inter-arrival variance %.4g, expected %.4g within 5%%", rate, var, want * want);
  }
}

static const int64_t trace_times[] = {0, 2500000, 5000000};

static void trace_without_repeat_ends(void **state) {
  (void)state;
  atoll_arrival a = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = trace_times, .n_times = 3};
  atoll_client_gen g;
  atoll_client_gen_init(&g, &a, 0, 1, 0);
  assert_int_equal(atoll_client_gen_next(&g), 0);
  assert_int_equal(atoll_client_gen_next(&g), 2500000);
  assert_int_equal(atoll_client_gen_next(&g), 5000000);
  assert_int_equal(atoll_client_gen_next(&g), -1);
  assert_int_equal(atoll_client_gen_next(&g), -1); /* stays exhausted */
}

static void trace_with_repeat_offsets_each_round(void **state) {
  (void)state;
  atoll_arrival a = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = trace_times, .n_times = 3, .repeat_ns = 10000000};
  atoll_client_gen g;
  atoll_client_gen_init(&g, &a, 0, 1, 0);
  for (int64_t round = 0; round < 1000; round++)
    for (int i = 0; i < 3; i++) {
      int64_t t = atoll_client_gen_next(&g), want = round * 10000000 + trace_times[i];
      if (t != want)
        fail_msg("round %lld entry %d: %lld ns, expected %lld ns", (long long)round, i, (long long)t,
                 (long long)want);
    }
  /* A one-entry trace repeats too. */
  static const int64_t one[] = {300};
  atoll_arrival b = {.kind = ATOLL_ARRIVAL_TRACE, .times_ns = one, .n_times = 1, .repeat_ns = 1000};
  atoll_client_gen_init(&g, &b, 0, 1, 0);
  assert_int_equal(atoll_client_gen_next(&g), 300);
  assert_int_equal(atoll_client_gen_next(&g), 1300);
  assert_int_equal(atoll_client_gen_next(&g), 2300);
}

/* A step arrival (docs/scenarios.md): 40 Hz for 20 s, nothing for 10 s, 400 Hz for 60 s. Each
 * step's count is its rate times its length within 5 standard deviations (sqrt of the mean), none
 * falls in the silent step, times never decrease, and a step whose rate is 0 at the end stops the
 * client. The same seed gives the same arrivals. */
static void step_rates_follow_their_steps(void **state) {
  (void)state;
  static const int64_t at[] = {0, 20000000000, 30000000000};
  static const double rate[] = {40, 0, 400};
  atoll_arrival a = {.kind = ATOLL_ARRIVAL_STEP, .step_at_ns = at, .step_rate_hz = rate, .n_steps = 3};
  assert_true(atoll_arrival_is_valid(&a));
  atoll_client_gen g, h;
  atoll_client_gen_init(&g, &a, 0, 7, 1);
  atoll_client_gen_init(&h, &a, 0, 7, 1);
  uint32_t n[3] = {0}, silent = 0;
  int64_t last = 0;
  for (;;) {
    int64_t t = atoll_client_gen_next(&g);
    assert_int_equal(t, atoll_client_gen_next(&h));
    assert_true(t >= last);
    last = t;
    if (t >= 90000000000)
      break;
    if (t < at[1])
      n[0]++;
    else if (t < at[2])
      silent++;
    else
      n[2]++;
  }
  assert_int_equal(silent, 0);
  assert_true(fabs(n[0] - 800.0) < 5 * sqrt(800.0));
  assert_true(fabs(n[2] - 24000.0) < 5 * sqrt(24000.0));
  /* Ending silent: the client stops. */
  static const double stop[] = {1000, 0};
  atoll_arrival b = {.kind = ATOLL_ARRIVAL_STEP, .step_at_ns = at, .step_rate_hz = stop, .n_steps = 2};
  atoll_client_gen_init(&g, &b, 0, 1, 0);
  int64_t t, end = -2;
  while ((t = atoll_client_gen_next(&g)) >= 0)
    end = t;
  assert_true(end > 19000000000 && end < at[1]);
  /* Not a step arrival: a first step after 0, steps out of order, every rate 0. */
  static const int64_t late[] = {5, 10}, back[] = {0, 10, 10};
  static const double zero[] = {0, 0}, ok3[] = {1, 2, 3};
  atoll_arrival bad1 = {.kind = ATOLL_ARRIVAL_STEP, .step_at_ns = late, .step_rate_hz = stop, .n_steps = 2};
  atoll_arrival bad2 = {.kind = ATOLL_ARRIVAL_STEP, .step_at_ns = back, .step_rate_hz = ok3, .n_steps = 3};
  atoll_arrival bad3 = {.kind = ATOLL_ARRIVAL_STEP, .step_at_ns = at, .step_rate_hz = zero, .n_steps = 2};
  assert_false(atoll_arrival_is_valid(&bad1));
  assert_false(atoll_arrival_is_valid(&bad2));
  assert_false(atoll_arrival_is_valid(&bad3));
}

static void closed_has_no_schedule(void **state) {
  (void)state;
  atoll_arrival a = {.kind = ATOLL_ARRIVAL_CLOSED};
  atoll_client_gen g;
  atoll_client_gen_init(&g, &a, 0, 1, 0);
  for (int i = 0; i < 3; i++)
    assert_int_equal(atoll_client_gen_next(&g), -1);
}

static void tiny_rates_do_not_collapse_arrivals_to_one_instant(void **state) {
  (void)state;
  static const double rates[] = {1e-10, 1e-12, 1e-300};
  for (int i = 0; i < 3; i++) {
    atoll_arrival a = {.kind = ATOLL_ARRIVAL_UNIFORM, .rate_hz = rates[i]};
    atoll_client_gen g;
    atoll_client_gen_init(&g, &a, rates[i], 1, 0);
    int64_t t0 = atoll_client_gen_next(&g), t1 = atoll_client_gen_next(&g);
    if (!(t1 == -1 || t1 > t0))
      fail_msg("uniform at %g Hz: arrivals %lld then %lld (same instant)", rates[i], (long long)t0, (long long)t1);
    a.kind = ATOLL_ARRIVAL_POISSON;
    atoll_client_gen_init(&g, &a, rates[i], 1, 0);
    t0 = atoll_client_gen_next(&g), t1 = atoll_client_gen_next(&g);
    if (!(t1 == -1 || t1 > t0))
      fail_msg("poisson at %g Hz: arrivals %lld then %lld (same instant)", rates[i], (long long)t0, (long long)t1);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(tiny_rates_do_not_collapse_arrivals_to_one_instant),
    cmocka_unit_test(rng_same_seed_and_stream_same_sequence),
    cmocka_unit_test(rng_other_seed_or_stream_differs),
    cmocka_unit_test(client_gen_deterministic_per_seed_and_client),
    cmocka_unit_test(client_streams_are_independent),
    cmocka_unit_test(rng_unit_edges_are_open_at_zero_closed_at_one),
    cmocka_unit_test(rng_unit_in_range_and_uniform),
    cmocka_unit_test(uniform_arrivals_exact_without_drift),
    cmocka_unit_test(poisson_mean_and_monotonic),
    cmocka_unit_test(trace_without_repeat_ends),
    cmocka_unit_test(trace_with_repeat_offsets_each_round),
    cmocka_unit_test(closed_has_no_schedule),
    cmocka_unit_test(step_rates_follow_their_steps),
};
ATOLL_TEST_MAIN(tests)
