/* Loaders for atoll's YAML formats: GPU presets, model profiles and scenarios.
 *
 * Each loader either fills its output completely and returns 0, or leaves it untouched, records
 * one located error in the diag and returns a negative code: nothing half-built escapes. All
 * memory of a loaded object lives in the arena the caller passes. */
#ifndef ATOLL_IO_LOAD_H
#define ATOLL_IO_LOAD_H

#include "io/arena.h"
#include "atoll/gpu.h"
#include "atoll/model.h"
#include "atoll/scenario.h"
#include "io/diag.h"
#include "io/yread.h"
#include "io/ytree.h"

/* --- GPU presets --- */
int atoll_gpu_from_node(atoll_yread *r, const atoll_ynode *n, atoll_gpu *out);
int atoll_gpu_load_file(atoll_arena *a, const char *path, atoll_gpu *out, atoll_diag *d);
/* The same from text already in memory (the file version reads the file and calls this). */
int atoll_gpu_load_source(atoll_arena *a, const atoll_source *src, atoll_gpu *out, atoll_diag *d);
/* Finds NAME.yaml for a preset name in base_dir, then in each data folder (atoll_data_dirs), each
 * folder tried as it is and with gpus/ appended. Returns an arena copy of the path, or NULL. */
const char *atoll_gpu_find_preset(atoll_arena *a, const char *name, const char *base_dir);
/* The preset (in the gpus/ folder of base_dir or of a data folder) whose name is closest to a
 * mistyped name, for "did you mean"; NULL when none is near (io/suggest.h). */
const char *atoll_gpu_suggest_preset(atoll_arena *a, const char *name, const char *base_dir);
/* The folders atoll_gpu_find_preset searches from base_dir, comma-separated, for an error message. */
const char *atoll_gpu_preset_searched(atoll_arena *a, const char *base_dir);
/* The largest registers per thread a kernel may use on this GPU's family. */
uint32_t atoll_gpu_max_registers_per_thread(const atoll_gpu *g);

/* --- Model profiles --- */
/* gpu is used to derive fields the profile omits (block time, registers); it may be NULL, and
 * then such a profile is an error naming the missing field. */
int atoll_model_from_node(atoll_yread *r, const atoll_ynode *n, const atoll_gpu *gpu, atoll_model *out);
/* Loads a profile; the GPU for derivations is the preset its `gpu:` names, looked up from the
 * profile's folder (or `gpu` when not NULL). */
int atoll_model_load_file(atoll_arena *a, const char *path, const atoll_gpu *gpu, atoll_model *out,
                          atoll_diag *d);
/* The same from text in memory; dir stands for the profile's folder (where its GPU preset is looked
 * up first). src must live as long as the arena. */
int atoll_model_load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_gpu *gpu,
                            atoll_model *out, atoll_diag *d);

/* --- Scenarios --- */
typedef struct atoll_set_override {
  const char *text;   /* "PATH=VALUE" as given on the command line */
  const char *option; /* NULL for --set; a shorthand's name ("--policy") when text was made from it,
                         so errors show "--policy VALUE" as the user typed it */
} atoll_set_override;

int atoll_scenario_load_file(atoll_arena *a, const char *path, const atoll_set_override *sets, uint32_t n_sets,
                             atoll_scenario *out, atoll_diag *d);
/* The same from text in memory: src->name becomes the scenario's path, and the files it names
 * (profiles, presets, arrival traces) are resolved against dir. src must live as long as the arena. */
int atoll_scenario_load_source(atoll_arena *a, const atoll_source *src, const char *dir,
                               const atoll_set_override *sets, uint32_t n_sets, atoll_scenario *out, atoll_diag *d);
/* Profiles loaded before, for loads of the same scenario to take instead of reading them again:
 * `atoll sweep` loads its scenario once per run, and parsing the profiles' YAML was most of a load
 * (DISB C: 135 M of 136 M instructions). A profile whose resolved path is one of `models` is taken
 * from there (the struct copied, its arrays shared); any other is loaded as usual. The loads only
 * read it, so threads share it; the models stay in the arena of the load that filled it. */
typedef struct atoll_model_memo {
  const atoll_scenario_model *models;
  uint32_t n;
} atoll_model_memo;
int atoll_scenario_load_file_memo(atoll_arena *a, const char *path, const atoll_set_override *sets, uint32_t n_sets,
                                  const atoll_model_memo *memo, atoll_scenario *out, atoll_diag *d);

/* --- Paths --- */
/* atoll's data folders, in search order: each $ATOLL_PATH entry (colon-separated), then
 * <the executable's folder>/../share/atoll. Stores at most max arena strings in dirs; returns the count. */
#define ATOLL_DATA_DIRS_MAX 16
size_t atoll_data_dirs(atoll_arena *a, const char **dirs, size_t max);
/* The folder part of path ("." when it has none), as an arena string. */
const char *atoll_path_dir(atoll_arena *a, const char *path);
/* rel resolved against base_dir unless it is absolute. */
const char *atoll_path_join(atoll_arena *a, const char *base_dir, const char *rel);

#endif
