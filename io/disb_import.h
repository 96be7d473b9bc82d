/* DISB workloads in REEF's JSON form ({time, rt: [...], be: [...]}) converted to atoll scenarios. */
#ifndef ATOLL_IO_DISB_IMPORT_H
#define ATOLL_IO_DISB_IMPORT_H

#include <stdio.h>

#include "io/arena.h"
#include "io/diag.h"

typedef struct atoll_disb_opts {
  double duration_ms; /* > 0: the scenario's duration_ms, in place of the file's time */
  FILE *notes;        /* where to say what was done with time and each trace (NULL: nowhere) */
} atoll_disb_opts;

/* Reads json_path, checks that models_dir holds a loadable `<model>.yaml` for every client, and
 * writes the scenario to out. Model paths in the scenario are relative to out_dir (the folder the
 * scenario will live in). RT clients keep their frequency (uniform) or trace; BE clients become
 * closed loop, as DISB runs them, with the file's BE frequency kept as a comment. The scenario's
 * duration_ms is the file's time unless opts->duration_ms overrides it; opts may be NULL. */
int atoll_disb_import(atoll_arena *a, const char *json_path, const char *models_dir, const char *out_dir,
                      const atoll_disb_opts *opts, FILE *out, atoll_diag *d);
/* The same from JSON text in memory; src->name stands for the file's path. src must live as long as
 * the arena. */
int atoll_disb_import_source(atoll_arena *a, const atoll_source *src, const char *models_dir, const char *out_dir,
                             const atoll_disb_opts *opts, FILE *out, atoll_diag *d);

#endif
