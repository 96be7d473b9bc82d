/* The latency predictor's file (include/atoll/predictor.h): plain YAML, written by
 * `atoll train-predictor` and read for abacus's policy.predictor. Numbers are written with 17
 * significant digits, so a predictor read back predicts bit for bit what the trained one did. */
#ifndef ATOLL_IO_PREDICTOR_IO_H
#define ATOLL_IO_PREDICTOR_IO_H

#include <stdio.h>

#include "io/arena.h"
#include "atoll/predictor.h"
#include "atoll/scenario.h"
#include "io/diag.h"

int atoll_predictor_write(const atoll_predictor *p, FILE *out);
/* Reads a predictor file into the arena. */
int atoll_predictor_load_file(atoll_arena *a, const char *path, atoll_predictor **out, atoll_diag *d);
/* NULL when p was trained for the scenario's models (same names, in order, and op counts), else
 * why not (an arena string). */
const char *atoll_predictor_mismatch(atoll_arena *a, const atoll_predictor *p, const atoll_scenario *s);

#endif
