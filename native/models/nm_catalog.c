/* nm_catalog.c — the catalogue of native models (nmodel.h): built once, on first use, then
 * read-only, so any thread may look models up. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "native/models/nm_build.h"

typedef const atoll_nmodel *(*builder_fn)(const char **error);

static const builder_fn builders[] = {atoll__nm_cnn, atoll__nm_transformer, atoll__nm_inplace};
#define N_MODELS (sizeof builders / sizeof builders[0])

static const atoll_nmodel *models[N_MODELS];
static uint32_t n_models;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void build_all(void) {
  for (uint32_t i = 0; i < N_MODELS; i++) {
    const char *error = NULL;
    const atoll_nmodel *m = builders[i](&error);
    if (m)
      models[n_models++] = m;
    else /* a bug in a model file: say which, and leave the model out */
      fprintf(stderr, "atoll: native model %u is inconsistent: %s\n", i, error ? error : "?");
  }
}

uint32_t atoll_nmodel_count(void) {
  pthread_once(&once, build_all);
  return n_models;
}

const atoll_nmodel *atoll_nmodel_at(uint32_t i) {
  pthread_once(&once, build_all);
  return i < n_models ? models[i] : NULL;
}

const atoll_nmodel *atoll_nmodel_find(const char *name) {
  pthread_once(&once, build_all);
  for (uint32_t i = 0; name && i < n_models; i++)
    if (strcmp(models[i]->name, name) == 0)
      return models[i];
  return NULL;
}
