#include "io/yquote.h"

#include <stdint.h>
#include <string.h>

/* Decodes the UTF-8 sequence at s (n bytes left); returns its length, or 0 when invalid. */
static size_t decode(const unsigned char *s, size_t n, uint32_t *cp) {
  if (s[0] < 0x80) {
    *cp = s[0];
    return 1;
  }
  size_t len;
  uint32_t min;
  if ((s[0] & 0xe0) == 0xc0)
    len = 2, min = 0x80, *cp = s[0] & 0x1f;
  else if ((s[0] & 0xf0) == 0xe0)
    len = 3, min = 0x800, *cp = s[0] & 0x0f;
  else if ((s[0] & 0xf8) == 0xf0)
    len = 4, min = 0x10000, *cp = s[0] & 0x07;
  else
    return 0;
  if (len > n)
    return 0;
  for (size_t i = 1; i < len; i++) {
    if ((s[i] & 0xc0) != 0x80)
      return 0;
    *cp = (*cp << 6) | (s[i] & 0x3f);
  }
  if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
    return 0;
  return len;
}

bool atoll_utf8_valid(const char *s, size_t len, size_t *bad) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    uint32_t cp;
    size_t n = decode(p + i, len - i, &cp);
    if (n == 0) {
      if (bad)
        *bad = i;
      return false;
    }
    i += n;
  }
  return true;
}

void atoll_yaml_write_quoted(FILE *f, const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  size_t left = strlen(s);
  fputc('"', f);
  while (left > 0) {
    uint32_t cp;
    size_t n = decode(p, left, &cp);
    if (n == 0) {
      fputs("\\uFFFD", f);
      p++, left--;
      continue;
    }
    switch (cp) {
    case '"':
      fputs("\\\"", f);
      break;
    case '\\':
      fputs("\\\\", f);
      break;
    case '\n':
      fputs("\\n", f);
      break;
    case '\t':
      fputs("\\t", f);
      break;
    case '\r':
      fputs("\\r", f);
      break;
    default:
      /* Control characters may not appear raw; U+0085, U+2028 and U+2029 are line breaks that a
       * quoted scalar would fold; U+FFFE and U+FFFF are not characters YAML accepts raw. */
      if (cp < 0x20 || cp == 0x7f)
        fprintf(f, "\\x%02x", (unsigned)cp);
      else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0xfffe || cp == 0xffff)
        fprintf(f, "\\u%04X", (unsigned)cp);
      else
        fwrite(p, 1, n, f);
    }
    p += n;
    left -= n;
  }
  fputc('"', f);
}

/* YAML 1.1 readers take these plain words as booleans or null; a name spelled so is quoted. */
static bool is_reserved_word(const char *s) {
  static const char *const words[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
    size_t len = strlen(words[i]);
    bool same = strlen(s) == len;
    for (size_t j = 0; same && j < len; j++)
      same = (s[j] | 0x20) == words[i][j];
    if (same)
      return true;
  }
  return false;
}

/* A conservative test for text that YAML reads back unchanged as a plain string: an identifier
 * that starts with a letter or '_' cannot be a number, and excluding ':', '#', spaces, quotes and
 * flow indicators means it cannot end a key or a flow collection early. */
static bool is_plain_safe(const char *s) {
  char c = s[0];
  if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'))
    return false;
  for (const char *p = s; *p; p++) {
    c = *p;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '.'))
      return false;
  }
  return !is_reserved_word(s);
}

void atoll_yaml_write_str(FILE *f, const char *s) {
  if (is_plain_safe(s))
    fputs(s, f);
  else
    atoll_yaml_write_quoted(f, s);
}

void atoll_yaml_write_path(FILE *f, const char *path) {
  bool plain = path[0] != '-' && strchr(path, '/') != NULL;
  for (const char *p = path; *p && plain; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("_./-", *p);
  if (plain)
    fputs(path, f);
  else
    atoll_yaml_write_str(f, path);
}
