/* Line reading and located errors for the text readers; see lineio.h. */
#include "idem/lineio.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"

void idem_lines_init(idem_lines *l, FILE *in, const char *name, atoll_diag *d) {
  memset(l, 0, sizeof *l);
  l->in = in;
  l->name = name;
  l->diag = d;
}

void idem_lines_free(idem_lines *l) {
  free(l->buf);
  l->buf = NULL;
  l->cap = l->len = 0;
}

int idem_lines_next(idem_lines *l) {
  l->len = 0;
  int c;
  bool any = false;
  while ((c = getc_unlocked(l->in)) != EOF) {
    any = true;
    if (c == '\n')
      break;
    if (c == '\0') { /* refused: the readers take a line as a C string, which ends there */
      l->line++;
      return idem_lines_error(l, (uint32_t)l->len + 1, "a NUL byte: a text trace holds text only");
    }
    if (l->len >= ATOLL_MAX_LINE_BYTES) {
      /* Located at the first byte past the limit; the line itself is not echoed (it is huge). */
      l->line++;
      l->buf[0] = '\0';
      l->len = 0;
      return idem_lines_error(l, ATOLL_MAX_LINE_BYTES + 1,
                              "line longer than %d bytes (atoll's input limit, see docs/limits.md)",
                              (int)ATOLL_MAX_LINE_BYTES);
    }
    if (l->len + 1 >= l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 256;
      char *b = realloc(l->buf, cap);
      if (!b)
        return ATOLL_ENOMEM;
      l->buf = b;
      l->cap = cap;
    }
    l->buf[l->len++] = (char)c;
  }
  if (ferror(l->in)) {
    atoll_source named = {.name = l->name};
    atoll_diag_set(l->diag, &named, 0, 0, NULL, "read error: %s", strerror(errno));
    return ATOLL_EIO;
  }
  if (!any)
    return 0;
  if (!l->buf && !(l->buf = malloc(l->cap = 256)))
    return ATOLL_ENOMEM;
  if (l->len > 0 && l->buf[l->len - 1] == '\r')
    l->len--; /* CRLF files */
  l->buf[l->len] = '\0';
  l->line++;
  return 1;
}

int idem_lines_error(idem_lines *l, uint32_t col, const char *fmt, ...) {
  /* The diag copies the reported line out of its source: give it the current line as a one-line
   * source, then put the real line number back. */
  atoll_source src = {.name = l->name, .text = l->buf ? l->buf : "", .len = l->buf ? l->len : 0};
  va_list ap;
  va_start(ap, fmt);
  bool first = !l->diag->set;
  atoll_diag_vset(l->diag, &src, 1, col, NULL, fmt, ap);
  va_end(ap);
  if (first)
    l->diag->line = l->line;
  return ATOLL_EPARSE;
}

uint32_t idem_lines_col(const idem_lines *l, const char *p) { return (uint32_t)(p - l->buf) + 1; }

static int hex_digit(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

bool idem_parse_u64(const char *p, const char **end, uint64_t *out) {
  uint64_t v = 0;
  const char *q = p;
  if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X')) {
    q += 2;
    const char *digits = q;
    int d;
    while ((d = hex_digit(*q)) >= 0) {
      if (v > (UINT64_MAX >> 4))
        return false;
      v = (v << 4) | (uint64_t)d;
      q++;
    }
    if (q == digits)
      return false;
  } else {
    const char *digits = q;
    while (*q >= '0' && *q <= '9') {
      uint64_t d = (uint64_t)(*q - '0');
      if (v > (UINT64_MAX - d) / 10)
        return false;
      v = v * 10 + d;
      q++;
    }
    if (q == digits)
      return false;
  }
  *end = q;
  *out = v;
  return true;
}
