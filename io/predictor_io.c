/* Writing and reading the latency predictor's YAML file (predictor_io.h). */
#include "io/predictor_io.h"

#include <inttypes.h>
#include <string.h>

#include "atoll/error.h"
#include "io/yread.h"
#include "io/yread_file.h"

static void row(FILE *out, const double *v, uint32_t n) {
  fputc('[', out);
  for (uint32_t i = 0; i < n; i++)
    fprintf(out, "%s%.17g", i ? ", " : "", v[i]);
  fputc(']', out);
}

static void matrix(FILE *out, const char *key, const double *v, uint32_t rows, uint32_t cols, uint32_t stride) {
  fprintf(out, "%s:\n", key);
  for (uint32_t r = 0; r < rows; r++) {
    fputs("  - ", out);
    row(out, v + (size_t)r * stride, cols);
    fputc('\n', out);
  }
}

int atoll_predictor_write(const atoll_predictor *p, FILE *out) {
  const atoll_mlp *m = &p->mlp;
  fprintf(out, "# atoll latency predictor: an MLP of %d hidden layers of %d predicting ln(group latency in us)\n"
               "# from the features of docs/abacus.md. Written by `atoll train-predictor`.\n",
          ATOLL_PRED_LAYERS, ATOLL_PRED_HIDDEN);
  fputs("atoll_predictor: 1\nmodels:\n", out);
  for (uint32_t i = 0; i < p->n_models; i++)
    fprintf(out, "  - {name: %s, ops: %" PRIu32 "}\n", p->model_names[i], p->model_ops[i]);
  fprintf(out, "batch: %" PRIu32 "\ninputs: %" PRIu32 "\n", p->batch, m->n_in);
  fprintf(out, "held_out: {train_samples: %" PRIu32 ", test_samples: %" PRIu32
               ", mape: %.6f, mape_pairs: %.6f, mape_triplets: %.6f, mape_quads: %.6f}\n",
          p->train_samples, p->test_samples, p->test_mape[0], p->test_mape[2], p->test_mape[3], p->test_mape[4]);
  fputs("in_mean: ", out);
  row(out, m->in_mean, m->n_in);
  fputs("\nin_scale: ", out);
  row(out, m->in_scale, m->n_in);
  fprintf(out, "\nout_mean: %.17g\nout_scale: %.17g\n", m->out_mean, m->out_scale);
  matrix(out, "w0", &m->w0[0][0], ATOLL_PRED_HIDDEN, m->n_in, ATOLL_PRED_MAX_IN);
  fputs("b0: ", out);
  row(out, m->b0, ATOLL_PRED_HIDDEN);
  fputc('\n', out);
  for (uint32_t l = 0; l + 1 < ATOLL_PRED_LAYERS; l++) {
    char key[8];
    snprintf(key, sizeof key, "w%" PRIu32, l + 1);
    matrix(out, key, &m->w[l][0][0], ATOLL_PRED_HIDDEN, ATOLL_PRED_HIDDEN, ATOLL_PRED_HIDDEN);
    fprintf(out, "b%" PRIu32 ": ", l + 1);
    row(out, m->b[l], ATOLL_PRED_HIDDEN);
    fputc('\n', out);
  }
  fputs("wo: ", out);
  row(out, m->wo, ATOLL_PRED_HIDDEN);
  fprintf(out, "\nbo: %.17g\n", m->bo);
  return ferror(out) ? ATOLL_EIO : ATOLL_OK;
}

/* A list of exactly n numbers. */
static int read_row(atoll_yread *r, const atoll_ynode *v, double *out, uint32_t n) {
  int rc = atoll_yread_seq(r, v, "numbers");
  if (rc == 0 && v->n != n)
    rc = atoll_yread_error(r, v, "expected %" PRIu32 " numbers, found %" PRIu32, n, v->n);
  for (uint32_t i = 0; rc == 0 && i < n; i++)
    rc = atoll_yread_double(r, v->items[i], -1e300, 1e300, false, &out[i]);
  return rc;
}

static int read_matrix(atoll_yread *r, const atoll_ynode *v, double *out, uint32_t rows, uint32_t cols,
                       uint32_t stride) {
  int rc = atoll_yread_seq(r, v, "rows");
  if (rc == 0 && v->n != rows)
    rc = atoll_yread_error(r, v, "expected %" PRIu32 " rows, found %" PRIu32, rows, v->n);
  for (uint32_t i = 0; rc == 0 && i < rows; i++)
    rc = read_row(r, v->items[i], out + (size_t)i * stride, cols);
  return rc;
}

enum { K_VER, K_MODELS, K_BATCH, K_INPUTS, K_HELD, K_INM, K_INS, K_OUTM, K_OUTS, K_W0, K_B0, K_W1, K_B1, K_W2,
       K_B2, K_WO, K_BO, K_N };
static const char *const keys[K_N] = {"atoll_predictor", "models", "batch", "inputs", "held_out", "in_mean",
                                      "in_scale", "out_mean", "out_scale", "w0", "b0", "w1", "b1", "w2",
                                      "b2", "wo", "bo"};

static int read_models(atoll_yread *r, const atoll_ynode *v, atoll_predictor *p) {
  int rc = atoll_yread_seq(r, v, "models");
  if (rc == 0)
    rc = atoll_yread_count(r, v, "models", ATOLL_PRED_MAX_MODELS);
  for (uint32_t i = 0; rc == 0 && i < v->n; i++) {
    static const char *const mk[] = {"name", "ops"};
    const atoll_ynode *mv[2];
    atoll_yread_push_index(r, i);
    rc = atoll_yread_map(r, v->items[i], "model", mk, 2, mv);
    if (rc == 0)
      rc = atoll_yread_require(r, v->items[i], mv[0], "name");
    if (rc == 0)
      rc = atoll_yread_require(r, v->items[i], mv[1], "ops");
    if (rc == 0)
      rc = atoll_yread_name(r, mv[0], &p->model_names[i]);
    if (rc == 0)
      rc = atoll_yread_u32(r, mv[1], 1, UINT32_MAX, &p->model_ops[i]);
    atoll_yread_pop(r);
  }
  p->n_models = v->n;
  return rc;
}

int atoll_predictor_load_file(atoll_arena *a, const char *path, atoll_predictor **out, atoll_diag *d) {
  atoll_yread r;
  void *obj;
  const atoll_ynode *root, *v[K_N];
  int rc = atoll_yread_file_map(a, path, d, &r, sizeof(atoll_predictor), &obj, &root, "predictor", keys, K_N, v);
  if (rc)
    return rc;
  atoll_predictor *p = obj;
  for (int k = 0; rc == 0 && k < K_N; k++)
    if (k != K_HELD)
      rc = atoll_yread_require(&r, root, v[k], keys[k]);
  uint32_t ver = 0;
  atoll_mlp *m = &p->mlp;
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_VER], atoll_yread_u32(&r, v[K_VER], 1, 1, &ver));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_MODELS], read_models(&r, v[K_MODELS], p));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_BATCH], atoll_yread_u32(&r, v[K_BATCH], 1, 1u << 16, &p->batch));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_INPUTS],
                  atoll_yread_u32(&r, v[K_INPUTS], p->n_models * ATOLL_PRED_PER_MODEL + 1,
                                  p->n_models * ATOLL_PRED_PER_MODEL + 1, &m->n_in));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_INM], read_row(&r, v[K_INM], m->in_mean, m->n_in));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_INS], read_row(&r, v[K_INS], m->in_scale, m->n_in));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_OUTM], atoll_yread_double(&r, v[K_OUTM], -1e3, 1e3, false, &m->out_mean));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_OUTS], atoll_yread_double(&r, v[K_OUTS], 0, 1e3, true, &m->out_scale));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_W0], read_matrix(&r, v[K_W0], &m->w0[0][0], ATOLL_PRED_HIDDEN, m->n_in, ATOLL_PRED_MAX_IN));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_B0], read_row(&r, v[K_B0], m->b0, ATOLL_PRED_HIDDEN));
  for (uint32_t l = 0; rc == 0 && l + 1 < ATOLL_PRED_LAYERS; l++) {
    rc = WITH_KEY(&r, keys[K_W1 + 2 * l],
                  read_matrix(&r, v[K_W1 + 2 * l], &m->w[l][0][0], ATOLL_PRED_HIDDEN, ATOLL_PRED_HIDDEN, ATOLL_PRED_HIDDEN));
    if (rc == 0)
      rc = WITH_KEY(&r, keys[K_B1 + 2 * l], read_row(&r, v[K_B1 + 2 * l], m->b[l], ATOLL_PRED_HIDDEN));
  }
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_WO], read_row(&r, v[K_WO], m->wo, ATOLL_PRED_HIDDEN));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_BO], atoll_yread_double(&r, v[K_BO], -1e300, 1e300, false, &m->bo));
  if (rc == 0)
    *out = p;
  return rc;
}

const char *atoll_predictor_mismatch(atoll_arena *a, const atoll_predictor *p, const atoll_scenario *s) {
  char buf[256];
  if (p->n_models != s->n_models) {
    snprintf(buf, sizeof buf, "it was trained for %u models, the scenario has %u", (unsigned)p->n_models,
             (unsigned)s->n_models);
    return atoll_arena_strdup(a, buf);
  }
  for (uint32_t i = 0; i < s->n_models; i++)
    if (strcmp(p->model_names[i], s->models[i].name) != 0 || p->model_ops[i] != s->models[i].model.n_ops) {
      snprintf(buf, sizeof buf, "its model %u is '%s' with %u ops, the scenario's is '%s' with %u", (unsigned)i,
               p->model_names[i], (unsigned)p->model_ops[i], s->models[i].name, (unsigned)s->models[i].model.n_ops);
      return atoll_arena_strdup(a, buf);
    }
  return NULL;
}
