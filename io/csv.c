#include "io/csv.h"

#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"

void atoll_csv_init(atoll_csv *c, const atoll_source *src) { *c = (atoll_csv){.src = src, .line = 1}; }

static int fail(atoll_csv *c, atoll_diag *d, uint32_t line, const char *msg) {
  atoll_diag_set(d, c->src, line, 1, NULL, "%s", msg);
  return ATOLL_EPARSE;
}

int atoll_csv_next(atoll_csv *c, atoll_arena *a, char ***fields, uint32_t *n, uint32_t *line, atoll_diag *d) {
  const char *t = c->src->text;
  size_t len = c->src->len;
  /* Blank lines between records carry nothing. */
  while (c->pos < len && (t[c->pos] == '\n' || t[c->pos] == '\r')) {
    if (t[c->pos] == '\n')
      c->line++;
    c->pos++;
  }
  if (c->pos >= len)
    return 0;
  *line = c->line;
  char **out = atoll_arena_calloc(a, ATOLL_CSV_MAX_FIELDS, sizeof *out);
  /* A field is never longer than the rest of the text. */
  char *buf = atoll_arena_alloc(a, len - c->pos + 1);
  if (!out || !buf)
    return ATOLL_ENOMEM;
  uint32_t count = 0;
  size_t w = 0;
  for (;;) {
    if (count == ATOLL_CSV_MAX_FIELDS)
      return fail(c, d, *line, "more than 256 fields in one record");
    char *field = buf + w;
    if (c->pos < len && t[c->pos] == '"') {
      uint32_t open_line = c->line;
      c->pos++;
      for (;;) {
        if (c->pos >= len)
          return fail(c, d, open_line, "unterminated quoted field (the file ends inside it)");
        char ch = t[c->pos++];
        if (ch == '"') {
          if (c->pos < len && t[c->pos] == '"') {
            buf[w++] = '"';
            c->pos++;
            continue;
          }
          break;
        }
        if (ch == '\n')
          c->line++;
        buf[w++] = ch;
      }
      if (c->pos < len && t[c->pos] != ',' && t[c->pos] != '\n' && t[c->pos] != '\r')
        return fail(c, d, c->line, "text after a closing quote");
    } else {
      while (c->pos < len && t[c->pos] != ',' && t[c->pos] != '\n' && t[c->pos] != '\r')
        buf[w++] = t[c->pos++];
    }
    buf[w++] = '\0';
    out[count++] = field;
    if (c->pos < len && t[c->pos] == ',') {
      c->pos++;
      continue;
    }
    if (c->pos < len && t[c->pos] == '\r')
      c->pos++;
    if (c->pos < len && t[c->pos] == '\n') {
      c->pos++;
      c->line++;
    }
    break;
  }
  *fields = out;
  *n = count;
  return 1;
}
