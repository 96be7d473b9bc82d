/* Line-by-line input for the text readers, with errors located as FILE:LINE:COL.
 *
 * Trace files can be hundreds of megabytes, so they are read one line at a time rather than loaded
 * whole; the error path copies the current line into the diag, which is all it needs. */
#ifndef ATOLL_IDEM_LINEIO_H
#define ATOLL_IDEM_LINEIO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "io/diag.h"

typedef struct idem_lines {
  FILE *in;
  const char *name; /* reported as FILE */
  char *buf;        /* the current line, NUL-terminated, without its newline */
  size_t len, cap;
  uint32_t line;    /* 1-based number of the current line */
  atoll_diag *diag;
} idem_lines;

void idem_lines_init(idem_lines *l, FILE *in, const char *name, atoll_diag *d);
void idem_lines_free(idem_lines *l);
/* Reads the next line: 1 when there is one, 0 at the end, a negative ATOLL_E* code on error. */
int idem_lines_next(idem_lines *l);
/* Records an error at column col (1-based) of the current line; returns ATOLL_EPARSE. */
int idem_lines_error(idem_lines *l, uint32_t col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Column (1-based) of p, a pointer into the current line. */
uint32_t idem_lines_col(const idem_lines *l, const char *p);

/* Parses an unsigned number: 0x/0X then hex digits, or decimal digits. *end is the first
 * character after it. False when there are no digits or it overflows 64 bits. */
bool idem_parse_u64(const char *p, const char **end, uint64_t *out);

#endif
