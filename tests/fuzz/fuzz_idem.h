/* The idem_checker fuzz targets share one body: read the input with one trace reader, then run
 * what idem_checker runs on a trace (group search, summary, JSON, DOT and metadata writers), and
 * check that the metadata it writes loads back with the same verdicts. */
#ifndef ATOLL_FUZZ_IDEM_H
#define ATOLL_FUZZ_IDEM_H

#include <stdio.h>

#include "io/diag.h"
#include "idem/trace.h"

typedef int (*fuzz_idem_reader)(FILE *in, const char *name, idem_trace *t, atoll_diag *d);

int fuzz_idem_run(const uint8_t *data, size_t size, fuzz_idem_reader read);

#endif
