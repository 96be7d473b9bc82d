/* Parsing and checking of `expect:` bounds against the report field grammar. */
#include "atoll/expect.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

/* The report's field grammar. A pattern segment "*" is a client name; "{stats}" is one of the
 * latency statistics. Keep in step with the report writer and docs/scenarios.md. */
static const char *const stats5[] = {"mean", "p50", "p95", "p99", "max", NULL};
static const char *const stats4[] = {"mean", "p50", "p99", "max", NULL};

typedef struct field_pattern {
  const char *prefix; /* dotted, "*" for the client name */
  const char *const *stats; /* NULL: the prefix is the whole field */
} field_pattern;

static const field_pattern patterns[] = {
    {"rt.norm_latency", stats5},
    {"rt.latency_us", stats5},
    {"total_norm_throughput", NULL},
    {"clients.*.requests", NULL},
    {"clients.*.completed", NULL},
    {"clients.*.dropped", NULL},
    {"clients.*.shed", NULL},
    {"clients.*.failed", NULL},
    {"clients.*.demotions", NULL},
    {"clients.*.recoveries", NULL},
    {"clients.*.goodput_rps", NULL},
    {"clients.*.batch.mean", NULL},
    {"clients.*.batch.max", NULL},
    {"clients.*.qos_violations", NULL},
    {"clients.*.violation_ratio", NULL},
    {"clients.*.throughput_rps", NULL},
    {"clients.*.norm_throughput", NULL},
    {"clients.*.deadline_misses", NULL},
    {"clients.*.latency_us", stats5},
    {"clients.*.norm_latency", stats5},
    {"preemptions.count", NULL},
    {"preemptions.latency_us", stats4},
    {"preemptions.restored_kernels", NULL},
    {"preemptions.wasted_gpu_us", NULL},
    {"preemptions.restore_us", NULL},
    {"preemptions.breakdown_us.hq_reset", NULL},
    {"preemptions.breakdown_us.dq_evict", NULL},
    {"preemptions.breakdown_us.cu_kill", NULL},
    {"gpu.cu_busy_frac", NULL},
    {"gpu.cu_busy_frac_rt", NULL},
    {"gpu.cu_busy_frac_be", NULL},
    {"gpu.cu_busy_frac_be_padded", NULL},
    {"predictor.groups", NULL},
    {"predictor.groups_per_s", NULL},
    {"predictor.mape", NULL},
    {"predictor.p99_abs_err_us", NULL},
};

static bool is_space(char c) { return c == ' ' || c == '\t'; }

int atoll_expect_parse(const char *text, char *field_buf, size_t field_size, atoll_cmp *cmp, double *value,
                       atoll_expect_error *err) {
  const char *p = text;
  while (is_space(*p))
    p++;
  const char *f0 = p;
  while (*p && !is_space(*p) && *p != '<' && *p != '>' && *p != '=')
    p++;
  size_t flen = (size_t)(p - f0);
  if (flen == 0) {
    *err = (atoll_expect_error){"expected a report field, e.g. rt.norm_latency.p99", (uint32_t)(f0 - text)};
    return ATOLL_EPARSE;
  }
  if (flen >= field_size) {
    *err = (atoll_expect_error){"field name too long", (uint32_t)(f0 - text)};
    return ATOLL_EPARSE;
  }
  memcpy(field_buf, f0, flen);
  field_buf[flen] = '\0';
  while (is_space(*p))
    p++;
  const char *op = p;
  if (p[0] == '<' && p[1] == '=')
    *cmp = ATOLL_CMP_LE, p += 2;
  else if (p[0] == '>' && p[1] == '=')
    *cmp = ATOLL_CMP_GE, p += 2;
  else if (p[0] == '<')
    *cmp = ATOLL_CMP_LT, p += 1;
  else if (p[0] == '>')
    *cmp = ATOLL_CMP_GT, p += 1;
  else {
    *err = (atoll_expect_error){"expected a comparison: <=, >=, < or >", (uint32_t)(op - text)};
    return ATOLL_EPARSE;
  }
  while (is_space(*p))
    p++;
  const char *v0 = p;
  char *end = NULL;
  errno = 0;
  double v = strtod(v0, &end);
  /* strtod accepts "inf", "nan" and hex: a bound is a plain decimal number. */
  bool plain = end != v0 && strpbrk(v0, "xXnNiI") == NULL;
  while (plain && is_space(*end))
    end++;
  if (!plain || *end != '\0') {
    *err = (atoll_expect_error){"expected a decimal number after the comparison", (uint32_t)(v0 - text)};
    return ATOLL_EPARSE;
  }
  /* Past a double's range strtod gives infinity or a value that lost its precision (ERANGE); a
   * bound of infinity would print blank and compare oddly, so refuse both as the YAML reader
   * (io/yread.c, atoll_yread_double) refuses such numbers elsewhere in a scenario. */
  if (errno == ERANGE || !isfinite(v)) {
    *err = (atoll_expect_error){"the number is outside the range of a double (magnitudes of about 2.2e-308 to "
                                "1.8e308)",
                                (uint32_t)(v0 - text)};
    return ATOLL_EPARSE;
  }
  /* Every field of the grammar is a count, a latency, a rate or a fraction, never below 0: such a
   * bound below 0 can never hold, and reads as a sign mistyped. */
  if ((*cmp == ATOLL_CMP_LE && v < 0) || (*cmp == ATOLL_CMP_LT && v <= 0)) {
    *err = (atoll_expect_error){"report fields are never below 0, so this bound can never hold; check its sign",
                                (uint32_t)(v0 - text)};
    return ATOLL_EPARSE;
  }
  *value = v;
  return ATOLL_OK;
}

/* Matches one dotted segment of the field against a pattern segment; returns the length matched
 * in the field, or 0. */
static size_t seg_len(const char *s) {
  size_t n = 0;
  while (s[n] && s[n] != '.')
    n++;
  return n;
}

static bool client_known(const char *name, size_t len, const char *const *names, uint32_t n) {
  for (uint32_t i = 0; i < n; i++)
    if (strlen(names[i]) == len && memcmp(names[i], name, len) == 0)
      return true;
  return false;
}

/* Walks field and pattern segment by segment. Returns the field offset where matching failed, or
 * -1 when the whole pattern prefix matched (then *rest points after it). */
static long match_prefix(const char *field, const char *pat, const char *const *names, uint32_t n_names,
                         bool *unknown_client, const char **rest) {
  const char *f = field, *q = pat;
  *unknown_client = false;
  for (;;) {
    size_t fl = seg_len(f), ql = seg_len(q);
    if (ql == 1 && q[0] == '*') {
      /* Client names may not contain '.', which the loader enforces for clients. */
      if (fl == 0)
        return f - field;
      if (!client_known(f, fl, names, n_names)) {
        *unknown_client = true;
        return f - field;
      }
    } else if (fl != ql || memcmp(f, q, fl) != 0) {
      return f - field;
    }
    f += fl;
    q += ql;
    if (*q == '\0') {
      *rest = f;
      return -1;
    }
    if (*f != '.')
      return f - field;
    f++, q++;
  }
}

int atoll_expect_field_check(const char *field, const char *const *client_names, uint32_t n_clients,
                             atoll_expect_error *err) {
  long best = -1;
  bool best_unknown_client = false;
  for (size_t i = 0; i < sizeof patterns / sizeof patterns[0]; i++) {
    const char *rest = NULL;
    bool unknown_client = false;
    long at = match_prefix(field, patterns[i].prefix, client_names, n_clients, &unknown_client, &rest);
    if (at < 0) {
      if (!patterns[i].stats && *rest == '\0')
        return ATOLL_OK;
      if (patterns[i].stats && *rest == '.') {
        for (const char *const *s = patterns[i].stats; *s; s++)
          if (strcmp(rest + 1, *s) == 0)
            return ATOLL_OK;
        at = rest + 1 - field;
        if (at > best) {
          best = at;
          best_unknown_client = false;
          *err = (atoll_expect_error){patterns[i].stats == stats5
                                          ? "unknown statistic (expected mean, p50, p95, p99 or max)"
                                          : "unknown statistic (expected mean, p50, p99 or max)",
                                      (uint32_t)at};
        }
        continue;
      }
      at = rest - field;
    }
    if (at > best || (at == best && unknown_client)) {
      best = at;
      best_unknown_client = unknown_client;
      *err = (atoll_expect_error){unknown_client ? "no client of that name in this scenario"
                                                 : "unknown report field (see docs/scenarios.md, \"expect\")",
                                  (uint32_t)at};
    }
  }
  (void)best_unknown_client;
  return ATOLL_ENOENT;
}

/* Appends n bytes of s at *at in buf (size bytes in all, a NUL left room for); false when full. */
static bool append(char *buf, size_t size, size_t *at, const char *s, size_t n) {
  if (n >= size - *at)
    return false;
  memcpy(buf + *at, s, n);
  *at += n;
  buf[*at] = '\0';
  return true;
}

int atoll_expect_field_name(uint32_t i, const char *client, char *buf, size_t size) {
  for (size_t p = 0; p < sizeof patterns / sizeof patterns[0]; p++) {
    uint32_t n_stats = 1;
    if (patterns[p].stats)
      for (n_stats = 0; patterns[p].stats[n_stats]; n_stats++)
        ;
    if (i >= n_stats) {
      i -= n_stats;
      continue;
    }
    if (size == 0)
      return ATOLL_EINVAL;
    size_t at = 0;
    buf[0] = '\0';
    const char *pre = patterns[p].prefix, *star = strchr(pre, '*');
    bool ok = star ? append(buf, size, &at, pre, (size_t)(star - pre)) &&
                         append(buf, size, &at, client, strlen(client)) &&
                         append(buf, size, &at, star + 1, strlen(star + 1))
                   : append(buf, size, &at, pre, strlen(pre));
    if (ok && patterns[p].stats)
      ok = append(buf, size, &at, ".", 1) && append(buf, size, &at, patterns[p].stats[i], strlen(patterns[p].stats[i]));
    return ok ? ATOLL_OK : ATOLL_EINVAL;
  }
  return ATOLL_ENOENT;
}

int atoll_expect_holds(atoll_cmp cmp, double bound, double value, double *margin) {
  switch (cmp) {
  case ATOLL_CMP_LE:
    *margin = bound - value;
    return value <= bound;
  case ATOLL_CMP_LT:
    *margin = bound - value;
    return value < bound;
  case ATOLL_CMP_GE:
    *margin = value - bound;
    return value >= bound;
  case ATOLL_CMP_GT:
    *margin = value - bound;
    return value > bound;
  }
  *margin = 0;
  return 0;
}
