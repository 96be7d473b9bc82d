#include "io/csv.h"

#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"

void atoll_csv_init(atoll_csv *c, const atoll_source *src) { *c = (atoll_csv){.src = src, .line = 1}; }

static int fail(atoll_csv *c, atoll_diag *d, uint32_t line, const char *msg) {
  atoll_diag_set(d, c->src, line, 1, NULL, "%s", msg);
  return ATOLL_EPARSE;
}

/* An allocation refused: said where, and why (the input limit or memory), not only returned. */
static int no_room(atoll_csv *c, const atoll_arena *a, atoll_diag *d, uint32_t line) {
  atoll_diag_set(d, c->src, line, 1, NULL, "%s", atoll_arena_failure(a));
  return ATOLL_ENOMEM;
}

/* Where the record starting at i ends, read as atoll_csv_next reads it (a quote opens a quoted
 * field only at the field's start, where a line end does not end the record), or past where it
 * stops on an error: never before. */
static size_t record_end(const char *t, size_t len, size_t i) {
  for (;;) {
    if (i < len && t[i] == '"')
      for (i++; i < len; i++) {
        if (t[i] != '"')
          continue;
        if (i + 1 < len && t[i + 1] == '"') { /* a doubled quote: one quote of the field */
          i++;
          continue;
        }
        i++; /* the closing quote */
        break;
      }
    while (i < len && t[i] != ',' && t[i] != '\n' && t[i] != '\r')
      i++;
    if (i < len && t[i] == ',') {
      i++;
      continue;
    }
    return i;
  }
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
  /* The record's fields, NUL-ended, never take more than its text and one byte: each field's
   * separator becomes its NUL, and quotes only shrink. Sized to the record (it was the rest of the
   * file at every record: a 3,000-row rocprof CSV of 225 KB filled the arena's cap). */
  char *buf = atoll_arena_alloc(a, record_end(t, len, c->pos) - c->pos + 1);
  if (!buf)
    return no_room(c, a, d, *line);
  char *field_at[ATOLL_CSV_MAX_FIELDS];
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
    field_at[count++] = field;
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
  char **out = atoll_arena_alloc(a, count * sizeof *out);
  if (!out)
    return no_room(c, a, d, *line);
  memcpy(out, field_at, count * sizeof *out);
  *fields = out;
  *n = count;
  return 1;
}
