/* Writing JSON strings: the one escaping routine every JSON writer in atoll uses. */
#ifndef ATOLL_IO_JSON_OUT_H
#define ATOLL_IO_JSON_OUT_H

#include <stdio.h>

/* Writes s as a JSON string: quotes, backslashes and control characters escaped, other bytes
 * (UTF-8) as they are; NULL writes "". Returns 0, or EOF when a write failed. */
int atoll_json_write_string(FILE *f, const char *s);

#endif
