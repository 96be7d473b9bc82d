/* Importing a model from REEF's measured data (SJTU-IPADS/reef resource/<m>/).
 *
 * A REEF model directory holds <m>.json (TVM's storage table and kernel launches), <m>.profile.json
 * (per-kernel latencies measured on one MI50) and <m>.params.json (each kernel's parameters with
 * their read/write roles); tests/data/reef (REEF's data, see its NOTICE) holds them. The importer turns them
 * into an atoll model as docs/models.md ("Importing REEF's models") describes, deriving block time
 * and registers with the documented formulas. */
#ifndef ATOLL_IO_REEF_IMPORT_H
#define ATOLL_IO_REEF_IMPORT_H

#include "io/arena.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "io/diag.h"

/* Reads the REEF model in dir, whose base name (trailing slashes ignored) is <m>. gpu supplies
 * the derivation inputs (CUs, register file, vendor) and its name becomes the model's gpu. The
 * model lives in arena a. Returns 0, or a negative ATOLL_E* code with one located error in d
 * (FILE:LINE:COL and the path of JSON keys); on error *out is untouched and whatever was
 * allocated stays in a for the caller to free. */
int atoll_reef_import(atoll_arena *a, const char *dir, const atoll_gpu *gpu, atoll_model *out, atoll_diag *d);
/* The same from the three files' text in memory (<m>.json, <m>.profile.json, <m>.params.json);
 * name stands for <m>. The sources are only read during the call. */
int atoll_reef_import_sources(atoll_arena *a, const char *name, const atoll_source *model,
                              const atoll_source *profile, const atoll_source *params, const atoll_gpu *gpu,
                              atoll_model *out, atoll_diag *d);

#endif
