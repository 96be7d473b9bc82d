/* Writing and reading InSS's latency model (inss_io.h). */
#include "io/inss_io.h"

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

int atoll_inss_model_write(const atoll_inss_model *m, const char *note, FILE *out) {
  fputs("# atoll InSS latency model (docs/inss.md): t_inf = t_d b + (int) n_kernels + o_r (1 + alpha_cache sum l),\n"
        "# int = alpha_s x co-located + beta_s; o_r by LWR over the solo samples. Written by `atoll fit inss`.\n",
        out);
  if (note)
    fprintf(out, "# %s\n", note);
  fprintf(out, "atoll_inss: 1\nalpha_s_ns: %.17g\nbeta_s_ns: %.17g\nalpha_cache: %.17g\nbandwidth: %.17g\nmodels:\n",
          m->alpha_s_ns, m->beta_s_ns, m->alpha_cache, m->bandwidth);
  for (uint32_t i = 0; i < m->n_models; i++) {
    const atoll_inss_profile *p = &m->prof[i];
    fprintf(out, "  - name: %s\n    kernels: %" PRIu32 "\n    t_d_ns: %.17g\n    l2: [%.17g, %.17g]\n"
                 "    memory_mb: [%.17g, %.17g]\n    batch: ",
            p->name, p->n_kernels, p->t_d_ns, p->l2_alpha, p->l2_beta, p->mem_mb, p->act_mb);
    row(out, p->pt_batch, p->n_points);
    fputs("\n    pct: ", out);
    row(out, p->pt_pct, p->n_points);
    fputs("\n    run_ns: ", out);
    row(out, p->pt_ns, p->n_points);
    fputc('\n', out);
  }
  return ferror(out) ? ATOLL_EIO : ATOLL_OK;
}

static int read_list(atoll_yread *r, const atoll_ynode *v, double *out, uint32_t *n, double min, double max) {
  int rc = atoll_yread_seq(r, v, "numbers");
  if (rc == 0)
    rc = atoll_yread_count(r, v, "numbers", ATOLL_INSS_MAX_POINTS);
  for (uint32_t i = 0; rc == 0 && i < v->n; i++)
    rc = atoll_yread_double(r, v->items[i], min, max, false, &out[i]);
  if (rc == 0)
    *n = v->n;
  return rc;
}

static int read_pair(atoll_yread *r, const atoll_ynode *v, double *a, double *b) {
  double t[ATOLL_INSS_MAX_POINTS];
  uint32_t n = 0;
  int rc = read_list(r, v, t, &n, -1e300, 1e300);
  if (rc == 0 && n != 2)
    rc = atoll_yread_error(r, v, "expected 2 numbers, found %" PRIu32, n);
  if (rc == 0)
    *a = t[0], *b = t[1];
  return rc;
}

enum { P_NAME, P_KERNELS, P_TD, P_L2, P_MEM, P_BATCH, P_PCT, P_RUN, P_N };
static const char *const pkeys[P_N] = {"name", "kernels", "t_d_ns", "l2", "memory_mb", "batch", "pct", "run_ns"};

static int read_profile(atoll_yread *r, const atoll_ynode *n, atoll_inss_profile *p) {
  const atoll_ynode *v[P_N];
  int rc = atoll_yread_map(r, n, "model", pkeys, P_N, v);
  for (int k = 0; rc == 0 && k < P_N; k++)
    rc = atoll_yread_require(r, n, v[k], pkeys[k]);
  uint32_t nb = 0, np = 0, nr = 0;
  if (rc == 0)
    rc = WITH_KEY(r, "name", atoll_yread_name(r, v[P_NAME], &p->name));
  if (rc == 0)
    rc = WITH_KEY(r, "kernels", atoll_yread_u32(r, v[P_KERNELS], 0, UINT32_MAX, &p->n_kernels));
  if (rc == 0)
    rc = WITH_KEY(r, "t_d_ns", atoll_yread_double(r, v[P_TD], 0, 1e15, false, &p->t_d_ns));
  if (rc == 0)
    rc = WITH_KEY(r, "l2", read_pair(r, v[P_L2], &p->l2_alpha, &p->l2_beta));
  if (rc == 0)
    rc = WITH_KEY(r, "memory_mb", read_pair(r, v[P_MEM], &p->mem_mb, &p->act_mb));
  if (rc == 0)
    /* The samples' domain: InSS's batches (1..32) on shares of the GPU (1..100 %), each run within
     * the longest time a scenario holds (an 1e300 sample was taken, and predicted 0 us). */
    rc = WITH_KEY(r, "batch", read_list(r, v[P_BATCH], p->pt_batch, &nb, 1, ATOLL_INSS_MAX_BATCH));
  if (rc == 0)
    rc = WITH_KEY(r, "pct", read_list(r, v[P_PCT], p->pt_pct, &np, 1, 100));
  if (rc == 0)
    rc = WITH_KEY(r, "run_ns", read_list(r, v[P_RUN], p->pt_ns, &nr, 1, ATOLL_YREAD_MAX_TIME_NS));
  if (rc == 0 && (nb != np || nb != nr || nb == 0))
    rc = atoll_yread_error(r, v[P_RUN], "batch, pct and run_ns need the same number of samples (at least one)");
  p->n_points = nb;
  return rc;
}

enum { K_VER, K_AS, K_BS, K_AC, K_BW, K_MODELS, K_N };
static const char *const keys[K_N] = {"atoll_inss", "alpha_s_ns", "beta_s_ns", "alpha_cache", "bandwidth", "models"};

int atoll_inss_model_load_file(atoll_arena *a, const char *path, atoll_inss_model **out, atoll_diag *d) {
  atoll_yread r;
  void *obj;
  const atoll_ynode *root, *v[K_N];
  int rc = atoll_yread_file_map(a, path, d, &r, sizeof(atoll_inss_model), &obj, &root, "InSS model", keys, K_N, v);
  if (rc)
    return rc;
  atoll_inss_model *m = obj;
  for (int k = 0; rc == 0 && k < K_N; k++)
    rc = atoll_yread_require(&r, root, v[k], keys[k]);
  uint32_t ver = 0;
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_VER], atoll_yread_u32(&r, v[K_VER], 1, 1, &ver));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_AS], atoll_yread_double(&r, v[K_AS], -1e12, 1e12, false, &m->alpha_s_ns));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_BS], atoll_yread_double(&r, v[K_BS], -1e12, 1e12, false, &m->beta_s_ns));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_AC], atoll_yread_double(&r, v[K_AC], -1e3, 1e3, false, &m->alpha_cache));
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_BW], atoll_yread_double(&r, v[K_BW], 0, 100, true, &m->bandwidth));
  if (rc == 0)
    rc = atoll_yread_seq(&r, v[K_MODELS], "models");
  if (rc == 0)
    rc = WITH_KEY(&r, keys[K_MODELS], atoll_yread_count(&r, v[K_MODELS], "models", ATOLL_INSS_MAX_MODELS));
  for (uint32_t i = 0; rc == 0 && i < v[K_MODELS]->n; i++) { /* at models[i] (it said "[i].models") */
    atoll_yread_push_key(&r, keys[K_MODELS]);
    atoll_yread_push_index(&r, i);
    rc = read_profile(&r, v[K_MODELS]->items[i], &m->prof[i]);
    atoll_yread_pop(&r);
    atoll_yread_pop(&r);
  }
  if (rc == 0) {
    m->n_models = v[K_MODELS]->n;
    *out = m;
  }
  return rc;
}

const char *atoll_inss_model_mismatch(atoll_arena *a, const atoll_inss_model *m, const atoll_scenario *s) {
  for (uint32_t i = 0; i < s->n_models; i++) {
    bool found = false;
    for (uint32_t j = 0; j < m->n_models && !found; j++)
      found = strcmp(m->prof[j].name, s->models[i].name) == 0;
    if (!found) {
      char buf[256];
      snprintf(buf, sizeof buf, "it has no profile of the scenario's model '%s'", s->models[i].name);
      return atoll_arena_strdup(a, buf);
    }
  }
  return NULL;
}
