/* A tiny JSON reader for the report and trace tests: a strict recursive-descent validator (objects,
 * arrays, strings, numbers, true, false, null, per RFC 8259) and look-ups by dotted path, where a
 * segment is an object key or an array index ("clients.0.latency_us.max").
 *
 * Deliberately independent of the writers it checks: it shares no code with report.c or
 * trace.c, so an escaping or number-format bug there cannot hide itself here. */
#ifndef ATOLL_TEST_JSON_CHECK_H
#define ATOLL_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_CHECK_MAX_DEPTH 64

static inline const char *json_ws(const char *p) {
  while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
    p++;
  return p;
}

static inline bool json_is_digit(char c) { return c >= '0' && c <= '9'; }

static inline bool json_is_hex(char c) {
  return json_is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* p at the opening quote; returns the position after the closing quote, or NULL. */
static inline const char *json_skip_string(const char *p) {
  if (*p != '"')
    return NULL;
  for (p++; *p != '"'; p++) {
    if ((unsigned char)*p < 0x20)
      return NULL; /* raw control characters (including the terminating NUL) are invalid */
    if (*p != '\\')
      continue;
    p++;
    if (*p == 'u') {
      for (int i = 1; i <= 4; i++)
        if (!json_is_hex(p[i]))
          return NULL;
      p += 4;
    } else if (!strchr("\"\\/bfnrt", *p) || *p == '\0') {
      return NULL;
    }
  }
  return p + 1;
}

/* -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static inline const char *json_skip_number(const char *p) {
  if (*p == '-')
    p++;
  if (*p == '0')
    p++;
  else if (json_is_digit(*p) && *p != '0')
    while (json_is_digit(*p))
      p++;
  else
    return NULL;
  if (*p == '.') {
    p++;
    if (!json_is_digit(*p))
      return NULL;
    while (json_is_digit(*p))
      p++;
  }
  if (*p == 'e' || *p == 'E') {
    p++;
    if (*p == '+' || *p == '-')
      p++;
    if (!json_is_digit(*p))
      return NULL;
    while (json_is_digit(*p))
      p++;
  }
  return p;
}

static inline const char *json_skip_value(const char *p, int depth);

static inline const char *json_skip_container(const char *p, int depth, char close, bool keys) {
  p = json_ws(p + 1);
  if (*p == close)
    return p + 1;
  for (;;) {
    if (keys) {
      p = json_skip_string(p);
      if (!p)
        return NULL;
      p = json_ws(p);
      if (*p != ':')
        return NULL;
      p = json_ws(p + 1);
    }
    p = json_skip_value(p, depth + 1);
    if (!p)
      return NULL;
    p = json_ws(p);
    if (*p == close)
      return p + 1;
    if (*p != ',')
      return NULL;
    p = json_ws(p + 1);
  }
}

/* p at a value (no leading whitespace); returns the position after it, or NULL if invalid. */
static inline const char *json_skip_value(const char *p, int depth) {
  if (depth > JSON_CHECK_MAX_DEPTH)
    return NULL;
  switch (*p) {
  case '{':
    return json_skip_container(p, depth, '}', true);
  case '[':
    return json_skip_container(p, depth, ']', false);
  case '"':
    return json_skip_string(p);
  case 't':
    return strncmp(p, "true", 4) == 0 ? p + 4 : NULL;
  case 'f':
    return strncmp(p, "false", 5) == 0 ? p + 5 : NULL;
  case 'n':
    return strncmp(p, "null", 4) == 0 ? p + 4 : NULL;
  default:
    return json_skip_number(p);
  }
}

/* The whole text is exactly one JSON value, with optional surrounding whitespace. */
static inline bool json_valid(const char *text) {
  const char *end = json_skip_value(json_ws(text), 0);
  return end && *json_ws(end) == '\0';
}

/* Decodes the string at p (at its opening quote) into buf; \u escapes above 0x7f become '?'.
 * Returns false if the string is invalid or does not fit. */
static inline bool json_decode_string(const char *p, char *buf, size_t size) {
  const char *end = json_skip_string(p);
  if (!end)
    return false;
  size_t n = 0;
  for (p++; p < end - 1; p++) {
    char c = *p;
    if (c == '\\') {
      p++;
      switch (*p) {
      case 'b': c = '\b'; break;
      case 'f': c = '\f'; break;
      case 'n': c = '\n'; break;
      case 'r': c = '\r'; break;
      case 't': c = '\t'; break;
      case 'u': {
        char hex[5] = {p[1], p[2], p[3], p[4], '\0'};
        long v = strtol(hex, NULL, 16);
        c = v < 0x80 ? (char)v : '?';
        p += 4;
        break;
      }
      default: c = *p; break;
      }
    }
    if (n + 1 >= size)
      return false;
    buf[n++] = c;
  }
  buf[n] = '\0';
  return true;
}

/* Inside the container at p, the member (object: by key, array: by decimal index) named by
 * seg[0..len); returns the member's value, or NULL. */
static inline const char *json_member(const char *p, const char *seg, size_t len) {
  bool object = *p == '{';
  if (!object && *p != '[')
    return NULL;
  char close = object ? '}' : ']';
  long want = -1;
  if (!object) {
    char idx[24];
    if (len == 0 || len >= sizeof idx)
      return NULL;
    memcpy(idx, seg, len);
    idx[len] = '\0';
    want = strtol(idx, NULL, 10);
  }
  p = json_ws(p + 1);
  for (long i = 0; *p != close; i++) {
    bool hit = i == want;
    if (object) {
      char key[256];
      if (!json_decode_string(p, key, sizeof key))
        return NULL;
      hit = strlen(key) == len && memcmp(key, seg, len) == 0;
      p = json_ws(json_ws(json_skip_string(p)) + 1);
    }
    if (hit)
      return p;
    p = json_skip_value(p, 0);
    if (!p)
      return NULL;
    p = json_ws(p);
    if (*p == ',')
      p = json_ws(p + 1);
  }
  return NULL;
}

/* The value at a dotted path ("" is the whole document), or NULL when absent. */
static inline const char *json_at(const char *text, const char *path) {
  const char *p = json_ws(text);
  while (p && *path) {
    size_t len = strcspn(path, ".");
    p = json_member(p, path, len);
    path += len;
    if (*path == '.')
      path++;
  }
  return p;
}

static inline bool json_number_at(const char *text, const char *path, double *out) {
  const char *p = json_at(text, path);
  const char *end = p ? json_skip_number(p) : NULL;
  if (!end)
    return false;
  *out = strtod(p, NULL);
  return true;
}

static inline bool json_null_at(const char *text, const char *path) {
  const char *p = json_at(text, path);
  return p && strncmp(p, "null", 4) == 0;
}

static inline bool json_string_at(const char *text, const char *path, char *buf, size_t size) {
  const char *p = json_at(text, path);
  return p && json_decode_string(p, buf, size);
}

/* Members of the object or elements of the array at path; -1 when there is none. */
static inline long json_count_at(const char *text, const char *path) {
  const char *p = json_at(text, path);
  if (!p || (*p != '{' && *p != '['))
    return -1;
  bool object = *p == '{';
  char close = object ? '}' : ']';
  long n = 0;
  p = json_ws(p + 1);
  while (*p != close) {
    if (object)
      p = json_ws(json_ws(json_skip_string(p)) + 1);
    p = json_ws(json_skip_value(p, 0));
    n++;
    if (*p == ',')
      p = json_ws(p + 1);
  }
  return n;
}

/* The i-th key of the object at path, to check key order. */
static inline bool json_key_at(const char *text, const char *path, long i, char *buf, size_t size) {
  const char *p = json_at(text, path);
  if (!p || *p != '{')
    return false;
  p = json_ws(p + 1);
  for (long k = 0; *p != '}'; k++) {
    if (k == i)
      return json_decode_string(p, buf, size);
    p = json_ws(json_ws(json_skip_string(p)) + 1);
    p = json_ws(json_skip_value(p, 0));
    if (*p == ',')
      p = json_ws(p + 1);
  }
  return false;
}

#endif
