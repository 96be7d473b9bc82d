#include "io/diag.h"

#include <string.h>

void atoll_diag_clear(atoll_diag *d) { memset(d, 0, sizeof *d); }

static void copy_line(atoll_diag *d, const atoll_source *src, uint32_t line) {
  const char *p = src->text, *end = src->text + src->len;
  for (uint32_t l = 1; l < line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *e = p;
  while (e < end && *e != '\n' && *e != '\r')
    e++;
  size_t n = (size_t)(e - p);
  if (n >= sizeof d->line_text)
    n = sizeof d->line_text - 1;
  memcpy(d->line_text, p, n);
  d->line_text[n] = '\0';
}

void atoll_diag_vset(atoll_diag *d, const atoll_source *src, uint32_t line, uint32_t col, const char *path,
                     const char *fmt, va_list ap) {
  if (!d || d->set)
    return;
  d->set = 1;
  snprintf(d->file, sizeof d->file, "%s", src && src->name ? src->name : "");
  d->line = src ? line : 0;
  d->col = src ? col : 0;
  vsnprintf(d->msg, sizeof d->msg, fmt, ap);
  snprintf(d->path, sizeof d->path, "%s", path ? path : "");
  d->line_text[0] = '\0';
  if (src && src->text && line > 0)
    copy_line(d, src, line);
}

void atoll_diag_set(atoll_diag *d, const atoll_source *src, uint32_t line, uint32_t col, const char *path,
                    const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  atoll_diag_vset(d, src, line, col, path, fmt, ap);
  va_end(ap);
}

/* Control bytes (binary input, escape sequences) are never sent to the terminal raw: each is
 * written as \xNN. Returns the width written. Tabs are kept, so echoed lines still line up. */
static int put_escaped(int c, FILE *out) {
  if (c == '\t' || (c >= 0x20 && c != 0x7f)) {
    fputc(c, out);
    return 1;
  }
  return fprintf(out, "\\x%02x", (unsigned)c);
}

static void puts_escaped(const char *s, FILE *out) {
  for (; *s; s++)
    put_escaped((unsigned char)*s, out);
}

void atoll_diag_print(const atoll_diag *d, FILE *out) {
  /* One diagnostic is many stdio calls: held together against other threads printing on out
   * (atoll compare and sweep load each policy's run in a thread of its own). */
  flockfile(out);
  if (d->line > 0)
    fprintf(out, "%s:%u:%u: ", d->file, d->line, d->col);
  else if (d->file[0])
    fprintf(out, "%s: ", d->file);
  puts_escaped(d->msg, out);
  fputc('\n', out);
  if (d->line > 0 && d->line_text[0]) {
    int w = fprintf(out, "  %u | ", d->line);
    puts_escaped(d->line_text, out);
    fputc('\n', out);
    /* The caret sits under the column; tabs in the line are echoed so the caret still lines up,
     * and an escaped byte moves it by the width of its escape. */
    fprintf(out, "%*s", w, "");
    for (uint32_t i = 1; i < d->col && d->line_text[i - 1]; i++) {
      unsigned char c = (unsigned char)d->line_text[i - 1];
      if (c == '\t')
        fputc('\t', out);
      else
        fprintf(out, "%*s", c < 0x20 || c == 0x7f ? 4 : 1, "");
    }
    fputs("^\n", out);
  }
  if (d->path[0])
    fprintf(out, "  at: %s\n", d->path);
  funlockfile(out);
}
