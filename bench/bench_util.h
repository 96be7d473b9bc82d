/* What the benchmarks share: the median they print, and strict reading of their options. A bad
 * value is refused as the atoll CLI refuses one: a message naming it, the usage line, exit 2
 * (ATOLL_EXIT_BAD_INPUT), never a silent default, so that a figure never comes from a run the user
 * did not ask for. Header-only: each bench is one source file. */
#ifndef ATOLL_BENCH_UTIL_H
#define ATOLL_BENCH_UTIL_H

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts v[0..n) (callers read the minimum and maximum from it afterwards) and returns its median:
 * the middle value, or the mean of the two middle values when n is even. n >= 1. */
static inline double bench_median(double *v, size_t n) {
  qsort(v, n, sizeof *v, bench_cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The value of option argv[*i], which the caller matched: argv[*i + 1], *i moved onto it. NULL,
 * after saying so on stderr, when the option is the last argument. */
static inline const char *bench_opt_value(const char *prog, int argc, char **argv, int *i) {
  if (*i + 1 >= argc) {
    fprintf(stderr, "%s: %s needs a value\n", prog, argv[*i]);
    return NULL;
  }
  return argv[++*i];
}

/* All of s as a decimal integer in [lo, hi]: no leading space, no trailing characters, no overflow. */
static inline bool bench_parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (end == s || isspace((unsigned char)*s) || *end || errno || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

/* All of s as a finite number in [lo, hi], or in (lo, hi] when lo_open. */
static inline bool bench_parse_double(const char *s, double lo, bool lo_open, double hi, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || isspace((unsigned char)*s) || *end || errno || !isfinite(v) || v < lo || (lo_open && v == lo) ||
      v > hi)
    return false;
  *out = v;
  return true;
}

/* Reads option argv[*i]'s value as an integer in [lo, hi]; false after saying why on stderr (the
 * caller then prints its usage line and exits 2). */
static inline bool bench_opt_int(const char *prog, int argc, char **argv, int *i, long long lo, long long hi,
                                 long long *out) {
  const char *opt = argv[*i], *s = bench_opt_value(prog, argc, argv, i);
  if (!s)
    return false;
  if (bench_parse_int(s, lo, hi, out))
    return true;
  fprintf(stderr, "%s: %s '%s': expected an integer from %lld to %lld\n", prog, opt, s, lo, hi);
  return false;
}

/* Reads option argv[*i]'s value as a number in [lo, hi] ((lo, hi] when lo_open); false after
 * saying why on stderr. */
static inline bool bench_opt_double(const char *prog, int argc, char **argv, int *i, double lo, bool lo_open,
                                    double hi, double *out) {
  const char *opt = argv[*i], *s = bench_opt_value(prog, argc, argv, i);
  if (!s)
    return false;
  if (bench_parse_double(s, lo, lo_open, hi, out))
    return true;
  fprintf(stderr, "%s: %s '%s': expected a number %s %.10g %s %.10g\n", prog, opt, s, lo_open ? "above" : "from", lo,
          lo_open ? "up to" : "to", hi);
  return false;
}

/* The usage line on stderr; returns the exit code of bad input. */
static inline int bench_usage(const char *usage) {
  fprintf(stderr, "usage: %s\n", usage);
  return 2;
}

#endif
