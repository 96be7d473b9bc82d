/* A small CSV reader (RFC 4180): comma-separated fields, optionally in double quotes, a doubled
 * quote inside quotes standing for one, quoted fields may hold commas and line breaks; CRLF or LF
 * line ends. Every record knows the line it starts on, so importers report FILE:LINE: message. */
#ifndef ATOLL_IO_CSV_H
#define ATOLL_IO_CSV_H

#include <stdint.h>

#include "io/arena.h"
#include "io/diag.h"

enum { ATOLL_CSV_MAX_FIELDS = 256 };

typedef struct atoll_csv {
  const atoll_source *src;
  size_t pos;
  uint32_t line; /* 1-based line of the next character */
} atoll_csv;

void atoll_csv_init(atoll_csv *c, const atoll_source *src);
/* Reads the next non-empty record: *fields (arena-allocated, NUL-terminated strings) and *n, and
 * the line it started on. Returns 1 for a record, 0 at the end, or a negative ATOLL_E* code with a
 * located error in d (an unterminated quote, more than ATOLL_CSV_MAX_FIELDS fields, text after a
 * closing quote). */
int atoll_csv_next(atoll_csv *c, atoll_arena *a, char ***fields, uint32_t *n, uint32_t *line, atoll_diag *d);

#endif
