#include "io/yread.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/suggest.h"

void atoll_yread_init(atoll_yread *r, atoll_arena *a, atoll_diag *d) {
  memset(r, 0, sizeof *r);
  r->arena = a;
  r->diag = d;
}

/* The path is a stack of entries, each a key (seg set) or an index (seg NULL, idx >= 0); entries
 * past ATOLL_YREAD_MAX_PATH are counted but not recorded, so push/pop always balance. */
void atoll_yread_push_key(atoll_yread *r, const char *key) {
  if (r->depth < ATOLL_YREAD_MAX_PATH) {
    r->seg[r->depth] = key;
    r->idx[r->depth] = -1;
  }
  r->depth++;
}

void atoll_yread_push_index(atoll_yread *r, uint32_t i) {
  if (r->depth < ATOLL_YREAD_MAX_PATH) {
    r->seg[r->depth] = NULL;
    r->idx[r->depth] = (int32_t)i;
  }
  r->depth++;
}

void atoll_yread_pop(atoll_yread *r) {
  if (r->depth > 0)
    r->depth--;
}

void atoll_yread_path(const atoll_yread *r, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  int depth = r->depth < ATOLL_YREAD_MAX_PATH ? r->depth : ATOLL_YREAD_MAX_PATH;
  for (int i = 0; i < depth && len < size; i++) {
    if (r->seg[i])
      len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? "." : "", r->seg[i]);
    else
      len += (size_t)snprintf(buf + len, size - len, "[%d]", r->idx[i]);
  }
}

static int verror(atoll_yread *r, const atoll_ynode *n, const char *fmt, va_list ap) {
  char path[256];
  atoll_yread_path(r, path, sizeof path);
  atoll_diag_vset(r->diag, n ? n->src : NULL, n ? n->line : 0, n ? n->col : 0, path, fmt, ap);
  return ATOLL_EPARSE;
}

int atoll_yread_error(atoll_yread *r, const atoll_ynode *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int rc = verror(r, n, fmt, ap);
  va_end(ap);
  return rc;
}

static const char *kind_name(atoll_ykind k) {
  return k == ATOLL_Y_MAP ? "a mapping" : k == ATOLL_Y_SEQ ? "a list" : "a scalar";
}

int atoll_yread_map(atoll_yread *r, const atoll_ynode *n, const char *what, const char *const *keys,
                    uint32_t nkeys, const atoll_ynode **vals) {
  for (uint32_t k = 0; k < nkeys; k++)
    vals[k] = NULL;
  if (!n || n->kind != ATOLL_Y_MAP)
    return atoll_yread_error(r, n, "%s must be a mapping, not %s", what, n ? kind_name(n->kind) : "empty");
  for (uint32_t i = 0; i < n->n; i++) {
    const atoll_ynode *key = n->items[2 * i];
    uint32_t k = 0;
    while (k < nkeys && strcmp(keys[k], key->str) != 0)
      k++;
    if (k == nkeys) {
      char list[384];
      size_t len = 0;
      list[0] = '\0';
      for (uint32_t j = 0; j < nkeys && len < sizeof list; j++)
        len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", j ? ", " : "", keys[j]);
      char hint[96];
      atoll_suggest_text(hint, sizeof hint, key->str, keys, nkeys);
      return atoll_yread_error(r, key, "unknown key '%s' in %s%s (expected one of: %s)", key->str, what, hint,
                               list);
    }
    vals[k] = n->items[2 * i + 1];
  }
  return 0;
}

int atoll_yread_oom(atoll_yread *r, const atoll_ynode *n) {
  return atoll_yread_error(r, n, "%s", atoll_arena_failure(r->arena));
}

int atoll_yread_require(atoll_yread *r, const atoll_ynode *map, const atoll_ynode *v, const char *key) {
  if (v)
    return 0;
  return atoll_yread_error(r, map, "missing required key '%s'", key);
}

int atoll_yread_seq(atoll_yread *r, const atoll_ynode *n, const char *what) {
  if (!n || n->kind != ATOLL_Y_SEQ)
    return atoll_yread_error(r, n, "%s must be a list, not %s", what, n ? kind_name(n->kind) : "empty");
  return 0;
}

int atoll_yread_count(atoll_yread *r, const atoll_ynode *n, const char *what, uint32_t max) {
  uint32_t count = n->kind == ATOLL_Y_MAP || n->kind == ATOLL_Y_SEQ ? n->n : 0;
  if (count > max)
    return atoll_yread_error(r, n, "more than %u %s (atoll's input limit, see docs/limits.md)", max, what);
  return 0;
}

static int want_scalar(atoll_yread *r, const atoll_ynode *n, const char *what) {
  if (!n || n->kind != ATOLL_Y_SCALAR)
    return atoll_yread_error(r, n, "expected %s, found %s", what, n ? kind_name(n->kind) : "nothing");
  return 0;
}

static bool is_null(const atoll_ynode *n) {
  return n->plain && (n->len == 0 || strcmp(n->str, "null") == 0 || strcmp(n->str, "~") == 0);
}

int atoll_yread_str(atoll_yread *r, const atoll_ynode *n, const char **out) {
  int rc = want_scalar(r, n, "a string");
  if (rc)
    return rc;
  if (n->len == 0 || is_null(n))
    return atoll_yread_error(r, n, "expected a non-empty string");
  if (strlen(n->str) != n->len)
    return atoll_yread_error(r, n, "string contains a NUL character");
  *out = n->str;
  return 0;
}

int atoll_yread_name(atoll_yread *r, const atoll_ynode *n, const char **out) {
  int rc = atoll_yread_str(r, n, out);
  if (rc)
    return rc;
  if (n->len > ATOLL_MAX_NAME_BYTES)
    return atoll_yread_error(r, n, "a name longer than %d bytes (atoll's input limit, see docs/limits.md)",
                             (int)ATOLL_MAX_NAME_BYTES);
  for (const char *p = n->str; *p; p++) {
    char c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.'))
      return atoll_yread_error(r, n, "'%s' is not a valid name (letters, digits, '_', '-', '.')", n->str);
  }
  return 0;
}

int atoll_yread_bool(atoll_yread *r, const atoll_ynode *n, bool *out) {
  int rc = want_scalar(r, n, "true or false");
  if (rc)
    return rc;
  if (n->plain && strcmp(n->str, "true") == 0)
    *out = true;
  else if (n->plain && strcmp(n->str, "false") == 0)
    *out = false;
  else
    return atoll_yread_error(r, n, "expected true or false, found '%s'", n->str);
  return 0;
}

/* A quoted scalar that reads as a decimal number ('100', "0.5"): YAML makes it a string, which a
 * number key refuses; saying only "found '100'" hid the quotes that made it one. */
static bool quoted_number(const atoll_ynode *n) {
  if (n->plain || n->len == 0 || strpbrk(n->str, "xXnN") != NULL)
    return false;
  char *end = NULL;
  (void)strtod(n->str, &end);
  return end == n->str + n->len;
}

static int not_a_number(atoll_yread *r, const atoll_ynode *n, const char *want) {
  if (quoted_number(n))
    return atoll_yread_error(r, n, "expected %s, found the string '%s' (quoted; remove the quotes)", want, n->str);
  return atoll_yread_error(r, n, "expected %s, found '%s'", want, n->str);
}

int atoll_yread_u64(atoll_yread *r, const atoll_ynode *n, uint64_t min, uint64_t max, uint64_t *out) {
  int rc = want_scalar(r, n, "an integer");
  if (rc)
    return rc;
  const char *s = n->str;
  bool digits = n->plain && n->len > 0;
  for (const char *p = s; *p && digits; p++)
    digits = *p >= '0' && *p <= '9';
  if (!digits)
    return not_a_number(r, n, "a non-negative integer");
  errno = 0;
  unsigned long long v = strtoull(s, NULL, 10);
  if (min == max && v != min)
    return atoll_yread_error(r, n, "%s is not supported here (expected %llu)", s, (unsigned long long)min);
  if (v < min)
    return atoll_yread_error(r, n, "%s is below the minimum %llu", s, (unsigned long long)min);
  if (errno == ERANGE || v > max)
    return atoll_yread_error(r, n, "%s exceeds the maximum %llu", s, (unsigned long long)max);
  *out = v;
  return 0;
}

int atoll_yread_u32(atoll_yread *r, const atoll_ynode *n, uint32_t min, uint32_t max, uint32_t *out) {
  uint64_t v = 0;
  int rc = atoll_yread_u64(r, n, min, max, &v);
  if (rc == 0)
    *out = (uint32_t)v;
  return rc;
}

int atoll_yread_double(atoll_yread *r, const atoll_ynode *n, double min, double max, bool min_exclusive,
                       double *out) {
  int rc = want_scalar(r, n, "a number");
  if (rc)
    return rc;
  char *end = NULL;
  errno = 0;
  double v = n->plain && n->len ? strtod(n->str, &end) : 0;
  if (!n->plain || n->len == 0 || *end != '\0' ||
      /* strtod also takes hex floats, "inf" and "nan"; the formats document decimal numbers. */
      strpbrk(n->str, "xXnN") != NULL)
    return not_a_number(r, n, "a number");
  /* A decimal number past a double's range: overflowing to infinity, or so small it loses its
   * precision (strtod's ERANGE). */
  if (errno == ERANGE || !isfinite(v))
    return atoll_yread_error(r, n, "%s is outside the range of a double (magnitudes of about 2.2e-308 to "
                                   "1.8e308)", n->str);
  if (min_exclusive && v <= min)
    return atoll_yread_error(r, n, "expected a number greater than %g, found %s", min, n->str);
  if (v < min)
    return atoll_yread_error(r, n, "%s is below the minimum %g", n->str, min);
  if (v > max)
    return atoll_yread_error(r, n, "%s exceeds the maximum %.10g", n->str, max);
  *out = v;
  return 0;
}

int atoll_yread_time_ns(atoll_yread *r, const atoll_ynode *n, double scale_ns, bool allow_zero, int64_t *out) {
  const double max_ns = ATOLL_YREAD_MAX_TIME_NS;
  double v = 0;
  int rc = atoll_yread_double(r, n, 0.0, max_ns / scale_ns, !allow_zero, &v);
  if (rc)
    return rc;
  *out = (int64_t)llround(v * scale_ns);
  if (*out == 0 && !allow_zero)
    return atoll_yread_error(r, n, "%s is below the 1 ns resolution", n->str);
  return 0;
}

int atoll_yread_enum(atoll_yread *r, const atoll_ynode *n, const char *what, const char *const *names,
                     uint32_t count, uint32_t *out) {
  int rc = want_scalar(r, n, what);
  if (rc)
    return rc;
  for (uint32_t i = 0; i < count; i++) {
    if (strcmp(names[i], n->str) == 0) {
      *out = i;
      return 0;
    }
  }
  char list[256];
  size_t len = 0;
  list[0] = '\0';
  for (uint32_t i = 0; i < count && len < sizeof list; i++)
    len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
  char hint[96];
  atoll_suggest_text(hint, sizeof hint, n->str, names, count);
  return atoll_yread_error(r, n, "unknown %s '%s'%s (expected one of: %s)", what, n->str, hint, list);
}
