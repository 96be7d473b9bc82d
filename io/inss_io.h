/* InSS's fitted latency model's file (include/atoll/inss.h, docs/inss.md): plain YAML, written by
 * `atoll fit inss` and read for policy.model of inss and gpulet. Numbers are written with 17
 * significant digits, so a model read back predicts what the fitted one did. */
#ifndef ATOLL_IO_INSS_IO_H
#define ATOLL_IO_INSS_IO_H

#include <stdio.h>

#include "atoll/inss.h"
#include "atoll/scenario.h"
#include "io/arena.h"
#include "io/diag.h"

/* `note` (may be NULL): a comment line saying how it was fitted. */
int atoll_inss_model_write(const atoll_inss_model *m, const char *note, FILE *out);
int atoll_inss_model_load_file(atoll_arena *a, const char *path, atoll_inss_model **out, atoll_diag *d);
/* NULL when m has a profile for every model of s, else why not (an arena string). */
const char *atoll_inss_model_mismatch(atoll_arena *a, const atoll_inss_model *m, const atoll_scenario *s);

#endif
