/* Diagnostics for bad input: where (file, 1-based line and column), what, the offending line, and
 * the path of keys leading to it. A diag copies what it needs, so it outlives the input buffers. */
#ifndef ATOLL_IO_DIAG_H
#define ATOLL_IO_DIAG_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

/* Input text with the name it is reported under (a file path, or "--set"). */
typedef struct atoll_source {
  const char *name;
  const char *text;
  size_t len;
} atoll_source;

typedef struct atoll_diag {
  int set;            /* nonzero once an error was recorded; the first error wins */
  char file[512];
  uint32_t line, col; /* 1-based; 0 when the error has no location (e.g. a missing file) */
  char msg[512];
  char line_text[256];
  char path[256];     /* e.g. "clients[0].arrival.rate_hz"; empty at top level */
} atoll_diag;

void atoll_diag_clear(atoll_diag *d);
/* Records an error unless one is already recorded. src may be NULL (no location). */
void atoll_diag_set(atoll_diag *d, const atoll_source *src, uint32_t line, uint32_t col, const char *path,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));
void atoll_diag_vset(atoll_diag *d, const atoll_source *src, uint32_t line, uint32_t col, const char *path,
                     const char *fmt, va_list ap);
/* "FILE:LINE:COL: message", then the line with a caret under the column, then "  at: path". */
void atoll_diag_print(const atoll_diag *d, FILE *out);

#endif
