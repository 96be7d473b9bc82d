/* Scenario loading (docs/scenarios.md): the YAML tree, --set overrides grafted onto it, then a
 * strict read into an atoll_scenario. Files a scenario names are relative to its folder. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "atoll/limits.h"
#include "atoll/memory.h"
#include "atoll/policy.h"
#include "core/dart.h"
#include "io/model_gpu_fit.h"
#include "io/expect_hint.h"
#include "io/load.h"
#include "io/inss_io.h"
#include "io/predictor_io.h"
#include "io/suggest.h"

int atoll__apply_sets(atoll_arena *a, atoll_ynode *root, const atoll_set_override *sets, uint32_t n_sets,
                      atoll_diag *d);
double atoll__op_max_ns(const atoll_op *o, const atoll_gpu *gpu);
int atoll__model_load_file_near(atoll_arena *a, const char *path, const atoll_gpu *scenario_gpu, atoll_model *out,
                                atoll_diag *d);


typedef struct scen_ctx {
  atoll_yread *r;
  atoll_arena *a;
  const char *dir;
  atoll_scenario *s;
  uint32_t *share_pct; /* each client's GPU% share (0: none), given CUs once clients are on their GPUs */
  const atoll_model_memo *memo; /* profiles loaded before (NULL: none) */
} scen_ctx;

/* Puts every key of over into base; where both values are mappings, key by key, so that one cost
 * of a preset can change and the others stay. */
static int overlay_map(atoll_arena *a, atoll_ynode *base, const atoll_ynode *over) {
  for (uint32_t i = 0; i < over->n; i++) {
    atoll_ynode *key = over->items[2 * i], *value = over->items[2 * i + 1];
    atoll_ynode *old = (atoll_ynode *)atoll_ymap_get(base, key->str);
    int rc = old && old->kind == ATOLL_Y_MAP && value && value->kind == ATOLL_Y_MAP ? overlay_map(a, old, value)
                                                                                  : atoll_ymap_put(a, base, key, value);
    if (rc)
      return rc;
  }
  return 0;
}

/* The error for a GPU preset name that names no preset file, with the nearest name. */
static int unknown_preset(scen_ctx *c, const atoll_ynode *at, const char *name) {
  const char *near = atoll_gpu_suggest_preset(c->a, name, c->dir);
  char hint[96] = "";
  if (near)
    snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
  return atoll_yread_error(c->r, at, "unknown GPU preset '%s'%s (looked for %s.yaml in each folder and its gpus/: "
                                     "%s; set ATOLL_PATH to add folders)", name, hint, name,
                           atoll_gpu_preset_searched(c->a, c->dir));
}

/* A GPU mapping without `atoll_gpu:` whose `name:` is a preset: that preset with the mapping's other
 * keys over it. `--set gpu.cus=400` on `gpu: mi50` makes {name: mi50, cus: 400} (set_override.c),
 * the MI50 with 400 CUs; the name stays the preset's, so its models still load (docs/scenarios.md,
 * "Top-level keys"). Returns 1 when n is not such a mapping. */
static int read_gpu_preset_with_changes(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  const atoll_ynode *name = atoll_ymap_get(n, "name");
  if (atoll_ymap_get(n, "atoll_gpu") || !name || name->kind != ATOLL_Y_SCALAR)
    return 1;
  const char *preset;
  atoll_yread_push_key(r, "name"); /* a name that could not be a file's, refused as in a preset */
  int rc = atoll_yread_name(r, name, &preset);
  atoll_yread_pop(r);
  const char *path = rc == 0 ? atoll_gpu_find_preset(c->a, preset, c->dir) : NULL;
  if (rc)
    return rc;
  /* Without atoll_gpu: the mapping changes a preset, so a name that is none is the error to show. */
  if (!path)
    return WITH_KEY(r, "name", unknown_preset(c, name, preset));
  atoll_source *src;
  atoll_ynode *root;
  rc = atoll_ytree_load_file(c->a, path, &src, &root, r->diag);
  if (rc == 0 && (!root || root->kind != ATOLL_Y_MAP))
    return atoll_gpu_load_file(c->a, path, &c->s->gpu, r->diag) ? ATOLL_EPARSE : 0; /* its own error */
  if (rc == 0) {
    atoll_ynode changes = *n; /* every key but the name, which must stay the preset's */
    changes.items = NULL, changes.n = 0;
    for (uint32_t i = 0; rc == 0 && i < n->n; i++)
      if (n->items[2 * i + 1] != name)
        rc = atoll_ymap_put(c->a, &changes, n->items[2 * i], n->items[2 * i + 1]);
    if (rc == 0)
      rc = overlay_map(c->a, root, &changes);
  }
  return rc ? rc : atoll_gpu_from_node(r, root, &c->s->gpu);
}

static int read_gpu(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  if (n && n->kind == ATOLL_Y_MAP) {
    int rc = read_gpu_preset_with_changes(c, n);
    return rc == 1 ? atoll_gpu_from_node(r, n, &c->s->gpu) : rc;
  }
  const char *name;
  int rc = atoll_yread_name(r, n, &name);
  if (rc)
    return rc;
  const char *path = atoll_gpu_find_preset(c->a, name, c->dir);
  if (!path)
    return unknown_preset(c, n, name);
  if (atoll_gpu_load_file(c->a, path, &c->s->gpu, r->diag) != 0)
    return ATOLL_EPARSE;
  return 0;
}

static int check_model_fits_gpu(scen_ctx *c, const atoll_ynode *at, const atoll_scenario_model *sm) {
  const atoll_gpu *g = &c->s->gpu;
  if (strcmp(sm->model.gpu, g->name) != 0)
    return atoll_yread_error(c->r, at, "model '%s' was measured on GPU '%s'; this scenario runs on '%s'", sm->name,
                             sm->model.gpu, g->name);
  char why[256];
  if (atoll_model_gpu_misfit(&sm->model, g, why, sizeof why) != UINT32_MAX)
    return atoll_yread_error(c->r, at, "model '%s' %s", sm->name, why);
  /* The model's one year (docs/models.md) x the GPU's CUs can pass the CU-time count (int64 CU-ns) of
   * its standalone run on a GPU of many CUs: the limit of duration_ms, applied to the model alone. */
  double ns = 0;
  for (uint32_t i = 0; i < sm->model.n_ops; i++)
    ns += atoll__op_max_ns(&sm->model.ops[i], g);
  if (ns * g->cus > 9.2e18)
    return atoll_yread_error(c->r, at, "model '%s' takes %.4g days alone; x the GPU's %u CUs that is past the "
                                       "simulator's CU-time count: at most %.4g days on this GPU", sm->name,
                             ns / 86400e9, g->cus, 9.2e18 / g->cus / 86400e9);
  return 0;
}

/* The memo's profile loaded from path, or NULL. */
static const atoll_model *memo_find(const atoll_model_memo *memo, const char *path) {
  for (uint32_t i = 0; memo && i < memo->n; i++)
    if (strcmp(memo->models[i].path, path) == 0)
      return &memo->models[i].model;
  return NULL;
}

static int read_models(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  if (!n || n->kind != ATOLL_Y_MAP || n->n == 0)
    return atoll_yread_error(r, n, "models must be a mapping of model names to profile paths");
  if (atoll_yread_count(r, n, "models", ATOLL_MAX_MODELS))
    return ATOLL_EPARSE;
  atoll_scenario_model *ms = atoll_arena_calloc(c->a, n->n, sizeof *ms);
  if (!ms)
    return atoll_yread_oom(r, n);
  int rc = 0;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *key = n->items[2 * i], *val = n->items[2 * i + 1];
    atoll_yread_push_key(r, key->str);
    const char *rel;
    rc = atoll_yread_name(r, key, &ms[i].name);
    if (rc == 0)
      rc = atoll_yread_str(r, val, &rel);
    if (rc == 0) {
      ms[i].path = atoll_path_join(c->a, c->dir, rel);
      atoll_diag inner;
      atoll_diag_clear(&inner);
      const atoll_model *known = memo_find(c->memo, ms[i].path);
      if (known) {
        ms[i].model = *known;
      } else if (atoll__model_load_file_near(c->a, ms[i].path, &c->s->gpu, &ms[i].model, &inner) != 0) {
        /* A missing file is the scenario's error; a bad profile is reported where it is bad. */
        if (inner.line == 0)
          rc = atoll_yread_error(r, val, "cannot load model profile '%s': %s", ms[i].path, inner.msg);
        else {
          *r->diag = inner;
          rc = ATOLL_EPARSE;
        }
      }
    }
    if (rc == 0)
      rc = check_model_fits_gpu(c, val, &ms[i]);
    atoll_yread_pop(r);
  }
  c->s->models = ms;
  c->s->n_models = n->n;
  return rc;
}

/* A trace file: one arrival time in milliseconds per line; blank lines and '#' comments ignored. */
static int read_trace_file(scen_ctx *c, const atoll_ynode *at, const char *rel, int64_t **out, uint32_t *count) {
  const char *path = atoll_path_join(c->a, c->dir, rel);
  atoll_source src;
  atoll_diag inner;
  atoll_diag_clear(&inner);
  if (atoll_source_read_file(c->a, path, &src, &inner) != 0)
    return atoll_yread_error(c->r, at, "cannot read trace file '%s': %s", path, inner.msg);
  uint32_t cap = 0, n = 0, line = 1;
  int64_t *t = NULL;
  for (const char *p = src.text, *end = src.text + src.len; p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    if (!eol)
      eol = end;
    const char *q = p;
    while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
      q++;
    if (q < eol && *q != '#') {
      char buf[64];
      size_t len = (size_t)(eol - q);
      while (len && (q[len - 1] == ' ' || q[len - 1] == '\t' || q[len - 1] == '\r'))
        len--;
      char *e = NULL;
      double ms = -1;
      if (len < sizeof buf) {
        memcpy(buf, q, len);
        buf[len] = '\0';
        errno = 0;
        ms = strtod(buf, &e);
      }
      /* Decimal numbers only, as times_ms takes them: strtod also reads hex (0x10, 0x1p3), inf and nan. */
      bool decimal = len < sizeof buf && strspn(buf, "0123456789.eE+-") == len;
      if (!decimal || *e != '\0' || (errno && errno != ERANGE) || !(ms >= 0)) {
        atoll_diag_set(c->r->diag, &src, line, (uint32_t)(q - p + 1), NULL,
                       "expected an arrival time in milliseconds (>= 0)");
        return ATOLL_EPARSE;
      }
      /* The limit of every time atoll reads, times_ms's included (one year). */
      if (ms > ATOLL_YREAD_MAX_TIME_NS / 1e6) {
        atoll_diag_set(c->r->diag, &src, line, (uint32_t)(q - p + 1), NULL,
                       "%s exceeds the maximum %.10g ms (one year, atoll's limit on times)", buf,
                       ATOLL_YREAD_MAX_TIME_NS / 1e6);
        return ATOLL_EPARSE;
      }
      if (n == ATOLL_MAX_ARRIVALS) {
        atoll_diag_set(c->r->diag, &src, line, (uint32_t)(q - p + 1), NULL,
                       "more than %d arrival times (atoll's input limit, see docs/limits.md)",
                       (int)ATOLL_MAX_ARRIVALS);
        return ATOLL_EPARSE;
      }
      if (n == cap) {
        uint32_t ncap = cap ? cap * 2 : 256;
        int64_t *nt = atoll_arena_calloc(c->a, ncap, sizeof *nt);
        if (!nt) {
          atoll_diag_set(c->r->diag, &src, line, (uint32_t)(q - p + 1), NULL, "%s", atoll_arena_failure(c->a));
          return ATOLL_EPARSE;
        }
        if (n)
          memcpy(nt, t, n * sizeof *t);
        t = nt, cap = ncap;
      }
      t[n] = (int64_t)(ms * 1e6 + 0.5);
      if (n > 0 && t[n] < t[n - 1]) {
        atoll_diag_set(c->r->diag, &src, line, (uint32_t)(q - p + 1), NULL,
                       "arrival times must not decrease (%.6g ms after %.6g ms)", ms, (double)t[n - 1] / 1e6);
        return ATOLL_EPARSE;
      }
      n++;
    }
    p = eol + 1;
  }
  if (n == 0)
    return atoll_yread_error(c->r, at, "trace file '%s' holds no arrival times", path);
  *out = t;
  *count = n;
  return 0;
}

static int read_times_ms(scen_ctx *c, const atoll_ynode *n, int64_t **out, uint32_t *count) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "times_ms");
  if (rc)
    return rc;
  if (n->n == 0)
    return atoll_yread_error(r, n, "times_ms needs at least one arrival time");
  if (atoll_yread_count(r, n, "arrival times", ATOLL_MAX_ARRIVALS))
    return ATOLL_EPARSE;
  int64_t *t = atoll_arena_calloc(c->a, n->n, sizeof *t);
  if (!t)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = atoll_yread_time_ns(r, n->items[i], 1e6, true, &t[i]);
    if (rc == 0 && i > 0 && t[i] < t[i - 1])
      rc = atoll_yread_error(r, n->items[i], "arrival times must not decrease");
    atoll_yread_pop(r);
  }
  *out = t;
  *count = n->n;
  return rc;
}

static const char *const arrival_kinds[] = {"uniform", "poisson", "closed", "trace", "step"};

/* steps: [{at_ms, rate_hz}, ...]: the first at 0, each later one after the one before, rates >= 0
 * with at least one above 0 (docs/scenarios.md, arrival kind step). */
static int read_steps(scen_ctx *c, const atoll_ynode *n, atoll_arrival *a) {
  static const char *const keys[] = {"at_ms", "rate_hz"};
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "steps");
  if (rc)
    return rc;
  if (n->n == 0)
    return atoll_yread_error(r, n, "steps needs at least one step ({at_ms: 0, rate_hz: R})");
  if (atoll_yread_count(r, n, "steps", ATOLL_MAX_ARRIVALS))
    return ATOLL_EPARSE;
  int64_t *at = atoll_arena_calloc(c->a, n->n, sizeof *at);
  double *rate = atoll_arena_calloc(c->a, n->n, sizeof *rate);
  if (!at || !rate)
    return atoll_yread_oom(r, n);
  bool any = false;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *v[2];
    atoll_yread_push_index(r, i);
    rc = atoll_yread_map(r, n->items[i], "step", keys, 2, v);
    if (rc == 0)
      rc = atoll_yread_require(r, n->items[i], v[0], "at_ms");
    if (rc == 0)
      rc = atoll_yread_require(r, n->items[i], v[1], "rate_hz");
    if (rc == 0)
      rc = WITH_KEY(r, "at_ms", atoll_yread_time_ns(r, v[0], 1e6, true, &at[i]));
    if (rc == 0)
      rc = WITH_KEY(r, "rate_hz", atoll_yread_double(r, v[1], 0, 1e9, false, &rate[i]));
    if (rc == 0 && i == 0 && at[0] != 0)
      rc = WITH_KEY(r, "at_ms", atoll_yread_error(r, v[0], "the first step starts the run: at_ms 0, not %.6g",
                                                  (double)at[0] / 1e6));
    if (rc == 0 && i > 0 && at[i] <= at[i - 1])
      rc = WITH_KEY(r, "at_ms", atoll_yread_error(r, v[0], "steps must start in increasing order (%.6g ms after %.6g ms)",
                                                  (double)at[i] / 1e6, (double)at[i - 1] / 1e6));
    any = any || rate[i] > 0;
    atoll_yread_pop(r);
  }
  if (rc == 0 && !any)
    rc = atoll_yread_error(r, n, "every step has rate_hz 0: the client would send nothing");
  a->step_at_ns = at;
  a->step_rate_hz = rate;
  a->n_steps = n->n;
  return rc;
}

static int read_arrival(scen_ctx *c, const atoll_ynode *n, atoll_arrival *out) {
  static const char *const keys[] = {"kind", "rate_hz", "load", "times_ms", "file", "repeat_ms", "steps", "blocking"};
  enum { A_KIND, A_RATE, A_LOAD, A_TIMES, A_FILE, A_REPEAT, A_STEPS, A_BLOCKING, A_N };
  atoll_yread *r = c->r;
  const atoll_ynode *v[A_N];
  int rc = atoll_yread_map(r, n, "arrival", keys, A_N, v);
  if (rc == 0)
    rc = atoll_yread_require(r, n, v[A_KIND], "kind");
  uint32_t kind = 0;
  if (rc == 0)
    rc = WITH_KEY(r, "kind", atoll_yread_enum(r, v[A_KIND], "arrival kind", arrival_kinds, 5, &kind));
  if (rc)
    return rc;
  atoll_arrival a = {.kind = (atoll_arrival_kind)kind};
  /* Each kind takes its own keys; a key of another kind is a mistake worth naming. */
  bool rated = a.kind == ATOLL_ARRIVAL_UNIFORM || a.kind == ATOLL_ARRIVAL_POISSON;
  bool traced = a.kind == ATOLL_ARRIVAL_TRACE, stepped = a.kind == ATOLL_ARRIVAL_STEP;
  for (int k = A_RATE; k < A_N; k++) {
    bool allowed = (k == A_RATE || k == A_LOAD) ? rated
                   : k == A_STEPS                ? stepped
                   : k == A_BLOCKING             ? a.kind != ATOLL_ARRIVAL_CLOSED
                                                 : traced;
    if (v[k] && !allowed)
      return atoll_yread_error(r, v[k], "'%s' does not apply to a %s arrival", keys[k],
                               arrival_kinds[kind]);
  }
  if (rated) {
    if (!v[A_RATE] == !v[A_LOAD])
      return atoll_yread_error(r, n, "a %s arrival needs exactly one of rate_hz and load", arrival_kinds[kind]);
    if (v[A_RATE])
      /* At least one request a million seconds: below that nothing arrives in any run. */
      rc = WITH_KEY(r, "rate_hz", atoll_yread_double(r, v[A_RATE], 1e-6, 1e9, false, &a.rate_hz));
    else
      rc = WITH_KEY(r, "load", atoll_yread_double(r, v[A_LOAD], 1e-9, 1000, false, &a.load));
  } else if (stepped) {
    if (!v[A_STEPS])
      return atoll_yread_error(r, n, "a step arrival needs steps: [{at_ms: 0, rate_hz: R}, ...]");
    rc = WITH_KEY(r, "steps", read_steps(c, v[A_STEPS], &a));
  } else if (traced) {
    int64_t *times = NULL;
    if (!v[A_TIMES] == !v[A_FILE])
      return atoll_yread_error(r, n, "a trace arrival needs exactly one of times_ms and file");
    if (v[A_TIMES])
      rc = WITH_KEY(r, "times_ms", read_times_ms(c, v[A_TIMES], &times, &a.n_times));
    else {
      const char *rel;
      rc = WITH_KEY(r, "file", atoll_yread_str(r, v[A_FILE], &rel));
      if (rc == 0)
        rc = WITH_KEY(r, "file", read_trace_file(c, v[A_FILE], rel, &times, &a.n_times));
    }
    a.times_ns = times;
    if (rc == 0 && v[A_REPEAT]) {
      rc = WITH_KEY(r, "repeat_ms", atoll_yread_time_ns(r, v[A_REPEAT], 1e6, false, &a.repeat_ns));
      if (rc == 0 && a.times_ns[a.n_times - 1] >= a.repeat_ns)
        rc = WITH_KEY(r, "repeat_ms",
                      atoll_yread_error(r, v[A_REPEAT], "repeat_ms must exceed the last arrival time (%.6g ms)",
                                        (double)a.times_ns[a.n_times - 1] / 1e6));
    }
  }
  if (rc == 0 && v[A_BLOCKING])
    rc = WITH_KEY(r, "blocking", atoll_yread_bool(r, v[A_BLOCKING], &a.blocking));
  if (rc == 0)
    *out = a;
  return rc;
}

static int find_model(scen_ctx *c, const atoll_ynode *n, uint32_t *out) {
  for (uint32_t m = 0; m < c->s->n_models; m++) {
    if (strcmp(c->s->models[m].name, n->str) == 0) {
      *out = m;
      return 0;
    }
  }
  const char *names[ATOLL_MAX_MODELS];
  uint32_t count = 0;
  for (uint32_t m = 0; m < c->s->n_models && count < ATOLL_MAX_MODELS; m++)
    names[count++] = c->s->models[m].name;
  char hint[96];
  atoll_suggest_text(hint, sizeof hint, n->str, names, count);
  return atoll_yread_error(c->r, n, "unknown model '%s'%s (not under models:)", n->str, hint);
}

/* cus: "LO-HI", a single CU "N", or a comma list of them ("0-9,20-29"), inside the GPU's CUs. The
 * parts of a list may not overlap: "0-9,5-14" is more likely a typo than a wish for CUs 0-14. */
static int read_cus(scen_ctx *c, const atoll_ynode *n, atoll_cuset *out) {
  const char *text;
  int rc = atoll_yread_str(c->r, n, &text);
  if (rc)
    return rc;
  uint32_t gpu_cus = c->s->gpu.cus;
  const char *p = text;
  *out = (atoll_cuset){{0}};
  for (;;) {
    char *end;
    if (*p < '0' || *p > '9')
      break;
    errno = 0;
    unsigned long lo = strtoul(p, &end, 10), hi = lo;
    p = end;
    if (*p == '-') {
      if (p[1] < '0' || p[1] > '9')
        break;
      hi = strtoul(p + 1, &end, 10);
      p = end;
    }
    if (errno == ERANGE)
      return atoll_yread_error(c->r, n, "a CU number in '%s' is too large: past the GPU's %u CUs (0-%u)", text,
                               gpu_cus, gpu_cus - 1);
    if (errno || lo > hi)
      return atoll_yread_error(c->r, n, "CU range %lu-%lu in '%s' runs backwards", lo, hi, text);
    if (hi >= gpu_cus)
      return atoll_yread_error(c->r, n, "CU %lu in '%s' is past the GPU's %u CUs (0-%u)", hi, text, gpu_cus,
                               gpu_cus - 1);
    atoll_cuset part = {{0}};
    if (atoll_cuset_add_range(&part, (uint32_t)lo, (uint32_t)hi) != 0)
      return atoll_yread_error(c->r, n, "CU %lu in '%s': a CU set holds CUs 0-%d", hi, text, ATOLL_CUSET_MAX - 1);
    if (atoll_cuset_intersects(out, &part))
      return atoll_yread_error(c->r, n, "CU range %lu-%lu in '%s' overlaps an earlier range of the list", lo, hi, text);
    for (uint32_t w = 0; w < ATOLL_CUSET_WORDS; w++)
      out->w[w] |= part.w[w];
    if (*p == '\0')
      return 0;
    if (*p != ',')
      break;
    p++;
  }
  return atoll_yread_error(c->r, n, "cus must be CU ranges such as \"0-29\" or \"0-9,20-29\", not '%s'", text);
}

/* share: a GPU% (1-100). Its CUs are taken later (place_shares), once every client is on its GPU:
 * each GPU's shares take its CUs from 0 in client order. */
static int read_share(scen_ctx *c, const atoll_ynode *n, uint32_t *percent) {
  int rc = atoll_yread_u32(c->r, n, 1, 100, percent);
  if (rc == 0 && c->s->gpu.cus > ATOLL_CUSET_MAX)
    return atoll_yread_error(c->r, n, "share needs a GPU of at most %d CUs (a CU set's size); '%s' has %u",
                             ATOLL_CUSET_MAX, c->s->gpu.name, c->s->gpu.cus);
  return rc;
}

/* batch: {max: B, timeout_ms: T}: the fixed-size batcher in front of the policy (docs/scenarios.md). */
static int read_batch(scen_ctx *c, const atoll_ynode *n, atoll_client *cl) {
  static const char *const keys[] = {"max", "timeout_ms"};
  atoll_yread *r = c->r;
  const atoll_ynode *v[2];
  int rc = atoll_yread_map(r, n, "batch", keys, 2, v);
  for (int k = 0; k < 2 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc == 0)
    rc = WITH_KEY(r, "max", atoll_yread_u32(r, v[0], 1, ATOLL_MAX_BATCH, &cl->batch_max));
  if (rc == 0)
    rc = WITH_KEY(r, "timeout_ms", atoll_yread_time_ns(r, v[1], 1e6, false, &cl->batch_timeout_ns));
  return rc;
}

static int read_client(scen_ctx *c, const atoll_ynode *n, uint32_t index, atoll_client *cl) {
  static const char *const keys[] = {"name", "model", "class", "arrival", "deadline_ms", "share", "cus", "gpu", "batch"};
  static const char *const classes[] = {"rt", "be"};
  atoll_yread *r = c->r;
  const atoll_ynode *v[9];
  int rc = atoll_yread_map(r, n, "client", keys, 9, v);
  for (int k = 0; k < 4 && rc == 0; k++)
    rc = atoll_yread_require(r, n, v[k], keys[k]);
  if (rc == 0)
    rc = WITH_KEY(r, "name", atoll_yread_name(r, v[0], &cl->name));
  if (rc == 0 && strchr(cl->name, '.'))
    rc = WITH_KEY(r, "name", atoll_yread_error(r, v[0], "client names may not contain '.' (they appear in "
                                                        "dotted report paths)"));
  for (uint32_t j = 0; j < index && rc == 0; j++)
    if (strcmp(c->s->clients[j].name, cl->name) == 0)
      rc = WITH_KEY(r, "name", atoll_yread_error(r, v[0], "duplicate client name '%s'", cl->name));
  const char *model;
  if (rc == 0)
    rc = WITH_KEY(r, "model", atoll_yread_str(r, v[1], &model));
  if (rc == 0)
    rc = WITH_KEY(r, "model", find_model(c, v[1], &cl->model));
  uint32_t cls = 0;
  if (rc == 0)
    rc = WITH_KEY(r, "class", atoll_yread_enum(r, v[2], "client class", classes, 2, &cls));
  cl->cls = (atoll_client_class)cls;
  if (rc == 0)
    rc = WITH_KEY(r, "arrival", read_arrival(c, v[3], &cl->arrival));
  if (rc == 0 && v[4])
    rc = WITH_KEY(r, "deadline_ms", atoll_yread_time_ns(r, v[4], 1e6, false, &cl->deadline_ns));
  if (rc == 0 && v[5] && v[6])
    rc = WITH_KEY(r, "cus", atoll_yread_error(r, v[6], "a client takes share or cus, not both"));
  if (rc == 0 && v[5])
    rc = WITH_KEY(r, "share", read_share(c, v[5], &c->share_pct[index]));
  if (rc == 0 && v[6])
    rc = WITH_KEY(r, "cus", read_cus(c, v[6], &cl->cus));
  if (rc == 0 && v[7]) {
    cl->gpu_given = true;
    rc = WITH_KEY(r, "gpu", atoll_yread_u32(r, v[7], 0, UINT32_MAX, &cl->gpu));
  }
  if (rc == 0 && v[8])
    rc = WITH_KEY(r, "batch", read_batch(c, v[8], cl));
  /* A blocking client has one request in flight: nothing for a batcher to gather. */
  if (rc == 0 && v[8] && cl->arrival.blocking && cl->batch_max > 1)
    rc = WITH_KEY(r, "batch",
                  atoll_yread_error(r, v[8], "a blocking client sends one request at a time, so it cannot batch"));
  return rc;
}

/* An error about client i that points where its fix goes: at clients[i].key (clients[i].key.sub when
 * sub is set), the deepest of those nodes the file holds (a key left to its default points at the
 * client). The message is printf's fmt with its arguments. */
static int client_error(scen_ctx *c, const atoll_ynode *clients, uint32_t i, const char *key, const char *sub,
                        const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int client_error(scen_ctx *c, const atoll_ynode *clients, uint32_t i, const char *key, const char *sub,
                        const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  const atoll_ynode *item = clients->items[i];
  const atoll_ynode *at = item, *v = item->kind == ATOLL_Y_MAP ? atoll_ymap_get(item, key) : NULL;
  if (v)
    at = v;
  if (v && sub && v->kind == ATOLL_Y_MAP && atoll_ymap_get(v, sub))
    at = atoll_ymap_get(v, sub);
  atoll_yread_push_index(c->r, i);
  atoll_yread_push_key(c->r, key);
  if (sub)
    atoll_yread_push_key(c->r, sub);
  int rc = atoll_yread_error(c->r, at, "%s", msg);
  if (sub)
    atoll_yread_pop(c->r);
  atoll_yread_pop(c->r);
  atoll_yread_pop(c->r);
  return rc;
}

/* Maps the GPU% shares onto CUs: shares are counted per GPU (each GPU has all its CUs), so the
 * clients of one GPU take its CUs from 0 in client order. */
static int place_shares(scen_ctx *c, const atoll_ynode *clients) {
  uint32_t next[ATOLL_MAX_GPUS] = {0};
  atoll_client *cl = (atoll_client *)c->s->clients;
  for (uint32_t i = 0; i < c->s->n_clients; i++) {
    uint32_t pct = c->share_pct[i], g = cl[i].gpu < ATOLL_MAX_GPUS ? cl[i].gpu : 0, first = next[g];
    if (pct == 0 || atoll_cuset_from_share(c->s->gpu.cus, first, pct, &cl[i].cus, &next[g]) == 0)
      continue;
    char on[32] = "";
    int rc;
    if (c->s->gpu_count > 1)
      snprintf(on, sizeof on, " on gpu %u", g);
    return WITH_KEY(c->r, "clients",
                    client_error(c, clients, i, "share", NULL,
                                 "share %u%% does not fit: the clients before it%s took CUs 0-%u of the GPU's %u "
                                 "(shares add up to more than 100%%)",
                                 pct, on, first - 1, c->s->gpu.cus));
  }
  return 0;
}

/* gpu_count: N devices of the preset; every client's gpu: names one of them. Clients without one
 * are placed (atoll_scenario_place_clients). Runs after the clients are read. */
static int read_gpu_count(scen_ctx *c, const atoll_ynode *n, const atoll_ynode *clients) {
  atoll_yread *r = c->r;
  c->s->gpu_count = 1;
  int rc = n ? WITH_KEY(r, "gpu_count", atoll_yread_u32(r, n, 1, ATOLL_MAX_GPUS, &c->s->gpu_count)) : 0;
  atoll_client *cl = (atoll_client *)c->s->clients;
  for (uint32_t i = 0; i < c->s->n_clients && rc == 0; i++)
    if (cl[i].gpu_given && cl[i].gpu >= c->s->gpu_count)
      rc = WITH_KEY(r, "clients",
                    client_error(c, clients, i, "gpu", NULL,
                                 "client '%s' is on gpu %u, but the scenario has %u (gpu_count: %u; GPUs count from 0)",
                                 cl[i].name, cl[i].gpu, c->s->gpu_count, c->s->gpu_count));
  if (rc == 0)
    atoll_scenario_place_clients(c->s, cl);
  return rc ? rc : place_shares(c, clients);
}

static int read_clients(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "clients");
  if (rc == 0 && n->n == 0)
    rc = atoll_yread_error(r, n, "a scenario needs at least one client");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "clients", ATOLL_MAX_CLIENTS);
  if (rc)
    return rc;
  atoll_client *cl = atoll_arena_calloc(c->a, n->n, sizeof *cl);
  if (!cl)
    return atoll_yread_oom(r, n);
  c->s->clients = cl;
  c->share_pct = atoll_arena_calloc(c->a, n->n, sizeof *c->share_pct);
  if (!c->share_pct)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_client(c, n->items[i], i, &cl[i]);
    atoll_yread_pop(r);
    c->s->n_clients = i + 1;
  }
  return rc;
}

/* Reads one option's value from node v into the policy configuration. */
static int read_option(atoll_yread *r, const atoll_ynode *v, const atoll_policy_option *o, atoll_policy_cfg *p) {
  int rc = 0;
  int64_t val = 0;
  if (o->type == ATOLL_OPT_BOOL) {
    bool b = false;
    rc = atoll_yread_bool(r, v, &b);
    val = b;
  } else if (o->type == ATOLL_OPT_U32) {
    uint32_t u = 0;
    rc = atoll_yread_u32(r, v, (uint32_t)o->min, (uint32_t)o->max, &u);
    val = u;
  } else {
    uint32_t k = 0;
    rc = atoll_yread_enum(r, v, o->what, o->names, (uint32_t)o->max + 1, &k);
    val = k;
  }
  if (rc == 0)
    atoll_policy_option_set(p, o, val);
  return rc;
}

/* Loads the file an option names (path, already relative to the working directory) and, when it
 * fits the scenario's models, stores it in the scenario. Returns the loader's error (its diag in
 * *d), or 0 with *why saying why the file does not fit (NULL when it fits and was stored). One per
 * kind of file, so that read_option_file keeps the messages and the order of the checks in one
 * place. */
typedef int (*option_file_loader)(scen_ctx *c, const char *path, atoll_diag *d, const char **why);

static int load_predictor(scen_ctx *c, const char *path, atoll_diag *d, const char **why) {
  atoll_predictor *pred = NULL;
  int rc = atoll_predictor_load_file(c->a, path, &pred, d);
  if (rc)
    return rc;
  if (!(*why = atoll_predictor_mismatch(c->a, pred, c->s))) {
    c->s->predictor = pred;
    c->s->predictor_path = path;
  }
  return 0;
}

static int load_inss_model(scen_ctx *c, const char *path, atoll_diag *d, const char **why) {
  atoll_inss_model *m = NULL;
  int rc = atoll_inss_model_load_file(c->a, path, &m, d);
  if (rc)
    return rc;
  if (!(*why = atoll_inss_model_mismatch(c->a, m, c->s))) {
    c->s->inss = m;
    c->s->inss_path = path;
  }
  return 0;
}

/* A file an option names (ATOLL_OPT_PREDICTOR: a latency predictor; ATOLL_OPT_INSS_MODEL: InSS's
 * latency model), relative to the scenario: read into the scenario, checked against its models.
 * `what` names the file in errors. An error located in the file itself is reported there, not at
 * the option. */
static int read_option_file(scen_ctx *c, const atoll_ynode *v, const atoll_policy_option *o, const char *what,
                            option_file_loader load) {
  atoll_yread *r = c->r;
  const char *rel;
  int rc = atoll_yread_str(r, v, &rel);
  if (rc)
    return rc;
  const char *path = atoll_path_join(c->a, c->dir, rel);
  atoll_diag inner;
  atoll_diag_clear(&inner);
  const char *why = NULL;
  if (load(c, path, &inner, &why) != 0) {
    if (inner.line == 0)
      return atoll_yread_error(r, v, "cannot load %s '%s': %s", what, path, inner.msg);
    *r->diag = inner;
    return ATOLL_EPARSE;
  }
  if (why)
    return atoll_yread_error(r, v, "%s '%s' does not fit this scenario: %s", what, path, why);
  atoll_policy_option_set(&c->s->policy, o, 1);
  return 0;
}

enum { MAX_POLICY_KEYS = 24 };

static bool is_key(const char *const *keys, uint32_t n, const char *key) {
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(keys[i], key) == 0)
      return true;
  return false;
}

/* Whether some policy takes this option (for a clearer error than "unknown key"). */
static bool other_policy_option(const char *key) {
  for (int k = 0; k < ATOLL_POLICY_COUNT; k++) {
    uint32_t n = 0;
    const atoll_policy_option *o = atoll_policy_options((atoll_policy_kind)k, &n);
    for (uint32_t i = 0; i < n; i++)
      if (strcmp(o[i].key, key) == 0)
        return true;
  }
  return false;
}

/* `policy:`: a name, or {name, options...} where the options are the ones every policy takes and
 * the named policy's own (atoll_policy_options); an unknown key's error lists exactly those. */
static int read_policy(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  atoll_policy_cfg *p = &c->s->policy;
  const char *names[ATOLL_POLICY_COUNT];
  for (int k = 0; k < ATOLL_POLICY_COUNT; k++)
    names[k] = atoll_policy_name((atoll_policy_kind)k);
  bool shorthand = n && n->kind == ATOLL_Y_SCALAR; /* `policy: reef` = `policy: {name: reef}` */
  const atoll_ynode *name = shorthand ? n : n && n->kind == ATOLL_Y_MAP ? atoll_ymap_get(n, "name") : NULL;
  int rc = 0;
  uint32_t kind = 0;
  /* Without a name the policy's options are not known: an option would be called an unknown key. */
  if (n && n->kind == ATOLL_Y_MAP && !name)
    return atoll_yread_require(r, n, NULL, "name");
  if (name)
    rc = WITH_KEY(r, "name", atoll_yread_enum(r, name, "policy", names, ATOLL_POLICY_COUNT, &kind));
  if (rc)
    return rc;
  uint32_t n_common = 0, n_own = 0;
  const atoll_policy_option *common = atoll_policy_common_options(&n_common);
  const atoll_policy_option *own = atoll_policy_options((atoll_policy_kind)kind, &n_own);
  const char *keys[MAX_POLICY_KEYS] = {"name"};
  const atoll_policy_option *opt[MAX_POLICY_KEYS] = {NULL};
  uint32_t n_keys = 1;
  for (uint32_t i = 0; i < n_common && n_keys < MAX_POLICY_KEYS; i++, n_keys++)
    keys[n_keys] = common[i].key, opt[n_keys] = &common[i];
  for (uint32_t i = 0; i < n_own && n_keys < MAX_POLICY_KEYS; i++, n_keys++)
    keys[n_keys] = own[i].key, opt[n_keys] = &own[i];
  const atoll_ynode *v[MAX_POLICY_KEYS] = {NULL};
  for (uint32_t i = 0; !shorthand && name && i < n->n; i++) {
    const char *key = n->items[2 * i]->str;
    if (is_key(keys, n_keys, key) || !other_policy_option(key))
      continue;
    return atoll_yread_error(r, n->items[2 * i + 1], "option '%s' does not apply to policy '%s'", key, names[kind]);
  }
  if (shorthand) {
    v[0] = n;
  } else {
    rc = atoll_yread_map(r, n, "policy", keys, n_keys, v);
    if (rc == 0)
      rc = atoll_yread_require(r, n, v[0], "name");
  }
  if (rc)
    return rc;
  *p = atoll_policy_defaults((atoll_policy_kind)kind);
  uint64_t given = 0;
  for (uint32_t k = 1; k < n_keys && rc == 0; k++) {
    if (!v[k])
      continue;
    if (opt[k]->type == ATOLL_OPT_PREDICTOR)
      rc = WITH_KEY(r, keys[k], read_option_file(c, v[k], opt[k], "predictor", load_predictor));
    else if (opt[k]->type == ATOLL_OPT_INSS_MODEL)
      rc = WITH_KEY(r, keys[k], read_option_file(c, v[k], opt[k], "InSS model", load_inss_model));
    else
      rc = WITH_KEY(r, keys[k], read_option(r, v[k], opt[k], p));
    if (k > n_common)
      given |= 1ull << (k - 1 - n_common);
  }
  uint32_t bad = 0;
  const char *msg = rc == 0 ? atoll_policy_finish_options(c->s, given, &bad) : NULL;
  if (msg) {
    const char *key = bad < n_own ? own[bad].key : "name";
    const atoll_ynode *at = bad < n_own && v[1 + n_common + bad] ? v[1 + n_common + bad] : v[0];
    rc = WITH_KEY(r, key, atoll_yread_error(r, at, "%s", msg));
  }
  return rc;
}

/* How many columns a scalar's text starts after its node's column when the file holds that text as
 * it reads (plain: 0; quoted, without escapes, on one line: 1), else UINT32_MAX. */
static uint32_t verbatim_skip(const atoll_ynode *n) {
  const atoll_source *src = n->src;
  if (!src || !src->text || n->line == 0 || n->col == 0)
    return UINT32_MAX;
  const char *p = src->text, *end = src->text + src->len;
  for (uint32_t line = 1; line < n->line && p < end; line++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    p = eol ? eol + 1 : end;
  }
  if ((size_t)(end - p) < n->col - 1)
    return UINT32_MAX;
  p += n->col - 1;
  uint32_t skip = 0;
  if (!n->plain) {
    if (p >= end || (*p != '"' && *p != '\''))
      return UINT32_MAX;
    p++, skip = 1;
  }
  if ((size_t)(end - p) < n->len || memcmp(p, n->str, n->len) != 0 || memchr(n->str, '\n', n->len))
    return UINT32_MAX;
  /* A quote right after the text: the scalar closed there, so nothing was escaped or doubled. */
  if (!n->plain && (p + n->len >= end || p[n->len] != p[-1]))
    return UINT32_MAX;
  return skip;
}

static int read_expects(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "expect");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "bounds", ATOLL_MAX_EXPECTS);
  if (rc)
    return rc;
  atoll_expect *e = n->n ? atoll_arena_calloc(c->a, n->n, sizeof *e) : NULL;
  if (n->n && !e)
    return atoll_yread_oom(r, n);
  const char **client_names = atoll_arena_calloc(c->a, c->s->n_clients + 1, sizeof *client_names);
  if (!client_names)
    return atoll_yread_oom(r, n);
  for (uint32_t i = 0; i < c->s->n_clients; i++)
    client_names[i] = c->s->clients[i].name;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    const atoll_ynode *item = n->items[i];
    atoll_yread_push_index(r, i);
    rc = atoll_yread_str(r, item, &e[i].text);
    if (rc == 0) {
      char field[128];
      atoll_expect_error err;
      int prc = atoll_expect_parse(e[i].text, field, sizeof field, &e[i].cmp, &e[i].value, &err);
      char hint[192] = "";
      if (prc == 0 && (prc = atoll_expect_field_check(field, client_names, c->s->n_clients, &err)) != 0 &&
          strncmp(err.msg, "unknown statistic", 17) != 0) /* which lists the statistics */
        atoll_expect_hint(hint, sizeof hint, field, client_names, c->s->n_clients);
      if (prc != 0) {
        /* Point at the offending character where the bound stands in the file as it reads; else (a
         * block or multi-line scalar, escapes) at the bound's start, never past its text. */
        atoll_ynode at = *item;
        uint32_t skip = verbatim_skip(item);
        if (skip != UINT32_MAX)
          at.col += skip + (err.offset < item->len ? err.offset : item->len);
        rc = atoll_yread_error(r, &at, "bad bound '%s': %s%s", e[i].text, err.msg, hint);
      } else {
        e[i].field = atoll_arena_strdup(c->a, field);
        /* The same bound twice was accepted and reported twice: a copy-paste slip, or a bound meant
         * to differ (another client, comparison or value). */
        for (uint32_t k = 0; k < i && rc == 0; k++)
          if (e[i].field && e[k].field && strcmp(e[k].field, e[i].field) == 0 && e[k].cmp == e[i].cmp &&
              e[k].value == e[i].value)
            rc = atoll_yread_error(r, item, "bound '%s' is expect[%u] again (line %u): give each bound once",
                                   e[i].text, k, n->items[k]->line);
      }
    }
    atoll_yread_pop(r);
  }
  c->s->expects = e;
  c->s->n_expects = n->n;
  return rc;
}

/* sim.arrival_jitter_us: increasing offsets >= 0; 0 (on time) is always the first option. */
enum { MAX_JITTER = 16 };
static int read_jitter(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  int rc = atoll_yread_seq(r, n, "arrival_jitter_us");
  if (rc)
    return rc;
  if (n->n == 0)
    return atoll_yread_error(r, n, "arrival_jitter_us needs at least one offset");
  if (n->n > MAX_JITTER)
    return atoll_yread_error(r, n, "arrival_jitter_us lists %u offsets; at most %d", n->n, MAX_JITTER);
  int64_t *t = atoll_arena_calloc(c->a, n->n + 1, sizeof *t);
  if (!t)
    return atoll_yread_oom(r, n);
  uint32_t k = 1; /* t[0] = 0 */
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    int64_t off = 0;
    rc = atoll_yread_time_ns(r, n->items[i], 1e3, true, &off);
    if (rc == 0 && i > 0 && off <= t[k - 1])
      rc = atoll_yread_error(r, n->items[i], "arrival jitter offsets must increase");
    if (rc == 0 && off >= c->s->duration_ns)
      rc = atoll_yread_error(r, n->items[i], "an arrival jitter offset must be shorter than duration_ms");
    if (rc == 0 && off > 0)
      t[k++] = off;
    atoll_yread_pop(r);
  }
  c->s->jitter_ns = t;
  c->s->n_jitter = k;
  return rc;
}

/* sim: options of the simulated device (docs/scenarios.md). */
static int read_sim(scen_ctx *c, const atoll_ynode *n) {
  static const char *const keys[] = {"engine", "timing_spread", "arrival_jitter_us", "launch", "memory"};
  static const char *const launches[] = {"device-bound", "launch-bound"};
  atoll_yread *r = c->r;
  static const char *const memories[] = {[ATOLL_MEMORY_PROFILE] = "profile", [ATOLL_MEMORY_TENSORS] = "tensors"};
  const atoll_ynode *v[5] = {0};
  int rc = atoll_yread_map(r, n, "sim", keys, 5, v);
  /* memory: where a kernel's bytes per block come from (docs/simulator.md, "Memory interference"). */
  if (rc == 0 && v[4])
    rc = WITH_KEY(r, "memory", atoll_yread_enum(r, v[4], "memory intensity source", memories, 2, &c->s->memory_estimate));
  uint32_t launch = 0;
  if (rc == 0 && v[3])
    rc = WITH_KEY(r, "launch", atoll_yread_enum(r, v[3], "launch mode", launches, 2, &launch));
  /* launch-bound: the host launches every kernel itself (eager frameworks), so each command's
   * transmit costs the preset's host launch time instead of a queued submission (docs/gpus.md). */
  if (rc == 0 && launch == 1) {
    if (c->s->gpu.costs.host_launch_ns <= 0)
      return WITH_KEY(r, "launch", atoll_yread_error(r, v[3], "launch-bound needs the GPU preset's costs.host_launch_us, "
                                                              "which '%s' does not give", c->s->gpu.name));
    c->s->gpu.costs.hq_transmit_ns = c->s->gpu.costs.host_launch_ns;
  }
  uint32_t engine = c->s->engine;
  if (rc == 0 && v[0])
    rc = WITH_KEY(r, "engine", atoll_yread_enum(r, v[0], "sim engine", atoll_sim_engine_names, ATOLL_ENGINE_COUNT,
                                                          &engine));
  if (rc == 0 && v[0] && engine == ATOLL_ENGINE_BLOCKS && c->s->gpu.cus > ATOLL_BLOCKS_MAX_CUS)
    rc = WITH_KEY(r, "engine", atoll_yread_error(r, v[0],
                                                 "the blocks engine simulates at most %u CUs, and GPU '%s' has %u "
                                                 "(engine: fluid runs it)",
                                                 ATOLL_BLOCKS_MAX_CUS, c->s->gpu.name, c->s->gpu.cus));
  c->s->engine = (atoll_sim_engine)engine;
  if (rc == 0 && v[1]) {
    rc = WITH_KEY(r, "timing_spread", atoll_yread_double(r, v[1], 0, 1, false, &c->s->timing_spread));
    if (rc == 0 && c->s->timing_spread >= 1)
      rc = WITH_KEY(r, "timing_spread",
                    atoll_yread_error(r, v[1], "timing_spread must be below 1 (a block cannot take no time)"));
  }
  if (rc == 0 && v[2])
    rc = WITH_KEY(r, "arrival_jitter_us", read_jitter(c, v[2]));
  return rc;
}

/* Every client holds its own instance of its model on its GPU (as a process per client does): its
 * weights and the activations of one model run (its largest batch). With the preset's memory_mb known, a placement that
 * needs more is refused, naming every instance and its size (docs/partitions.md, "Memory"). */
static int check_gpu_memory(scen_ctx *c, const atoll_ynode *clients, uint32_t gpu) {
  const atoll_scenario *s = c->s;
  atoll_gpu_memory mem;
  if (atoll_scenario_gpu_memory(s, gpu, &mem) != 0 || mem.capacity_mb <= 0 || mem.used_mb <= mem.capacity_mb)
    return 0;
  /* Whole entries only: the ones that do not fit are counted at the end ("and N more"), never cut.
   * Sized for the message's text (atoll_diag's 512 characters) with the sentence before it. */
  char list[320] = "";
  size_t at = 0;
  uint32_t listed = 0, left = 0;
  for (uint32_t i = 0; i < s->n_clients; i++) {
    const atoll_scenario_model *sm = &s->models[s->clients[i].model];
    if (s->clients[i].gpu != gpu)
      continue;
    char entry[192];
    if (sm->model.footprint_known)
      snprintf(entry, sizeof entry, s->clients[i].batch_max > 1 ? "%s (%s: %g + %g x %u MB)" : "%s (%s: %g + %g MB)",
               s->clients[i].name, sm->name, sm->model.weights_mb, sm->model.activations_mb_per_batch,
               s->clients[i].batch_max);
    else
      snprintf(entry, sizeof entry, "%s (%s: footprint unknown)", s->clients[i].name, sm->name);
    /* Room kept for ", and 4294967295 more". */
    if (left == 0 && at + strlen(entry) + 2 + 24 < sizeof list)
      at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", listed++ ? ", " : "", entry);
    else
      left++;
  }
  if (left)
    snprintf(list + at, sizeof list - at, ", and %u more", left);
  if (atoll_scenario_gpus(s) > 1)
    return atoll_yread_error(c->r, clients, "the models of gpu %u's clients need %g MB, more than the %g MB of GPU '%s': %s",
                             gpu, mem.used_mb, mem.capacity_mb, s->gpu.name, list);
  return atoll_yread_error(c->r, clients, "the clients' models need %g MB, more than the %g MB of GPU '%s': %s",
                           mem.used_mb, mem.capacity_mb, s->gpu.name, list);
}

static int check_memory(scen_ctx *c, const atoll_ynode *clients) {
  int rc = 0;
  for (uint32_t g = 0; g < atoll_scenario_gpus(c->s) && rc == 0; g++)
    rc = check_gpu_memory(c, clients, g);
  return rc;
}

/* A client bound to CUs needs a stream of its own: policies that put every RT client on one
 * shared stream cannot honour a binding, so it is refused rather than ignored. */
static int check_bindings(scen_ctx *c, const atoll_ynode *policy) {
  if (atoll_policy_queue_per_client(c->s->policy.kind))
    return 0;
  /* The policies that do, from the registry: the message named two of the ten. DART's family
   * has a queue per client too but runs stages on whole nodes (check_node_model_clients). */
  char which[256] = "";
  size_t at = 0;
  for (int k = 0; k < ATOLL_POLICY_COUNT && at < sizeof which; k++)
    if (atoll_policy_queue_per_client((atoll_policy_kind)k) && k != ATOLL_POLICY_DART && k != ATOLL_POLICY_BASE_GPU &&
        k != ATOLL_POLICY_BASE_CPU)
      at += (size_t)snprintf(which + at, sizeof which - at, "%s%s", at ? ", " : "",
                             atoll_policy_name((atoll_policy_kind)k));
  for (uint32_t i = 0; i < c->s->n_clients; i++)
    if (!atoll_cuset_is_empty(&c->s->clients[i].cus))
      return atoll_yread_error(c->r, policy, "client '%s' is bound to CUs (share or cus), which needs a policy that "
                                             "gives every client its own stream (%s); '%s' does not",
                               c->s->clients[i].name, which, atoll_policy_name(c->s->policy.kind));
  return 0;
}

/* A client's batch: cannot apply under a policy that sizes its batches itself or runs one request
 * at a time (atoll_policy_own_batches): it is refused at that client's batch:, where the fix goes,
 * rather than ignored or fought over. */
static int check_own_batches(scen_ctx *c, const atoll_ynode *clients) {
  const char *why = atoll_policy_own_batches(c->s->policy.kind);
  for (uint32_t i = 0; why && i < c->s->n_clients; i++) {
    const atoll_client *cl = &c->s->clients[i];
    if (cl->batch_max <= 1)
      continue;
    return client_error(c, clients, i, "batch", NULL,
                        "client '%s' batches (batch: max %u), but %s: a client's batch: is for the other policies "
                        "(remove it, or choose a policy that runs the scenario's batcher, e.g. streams)",
                        cl->name, cl->batch_max, why);
  }
  return 0;
}

/* The node model of dart, base-gpu and base-cpu (sim/dart_run.c) sends a uniform client's requests
 * on its schedule only, so a blocking client is refused; and under dart and base-gpu a client's
 * batch: is the batch its back-to-back BE jobs run at (docs/dart.md), as the policy's be_batch is
 * for every BE client: the node model has no batcher waiting for arrivals, so an RT or open-arrival
 * client's batch: is refused, and under base-cpu, which batches nothing, any client's. Each refusal
 * points at the client's key. */
static int check_node_model_clients(scen_ctx *c, const atoll_ynode *clients) {
  atoll_policy_kind pk = c->s->policy.kind;
  bool batches = pk == ATOLL_POLICY_DART || pk == ATOLL_POLICY_BASE_GPU;
  if (!batches && pk != ATOLL_POLICY_BASE_CPU)
    return 0;
  for (uint32_t i = 0; i < c->s->n_clients; i++) {
    const atoll_client *cl = &c->s->clients[i];
    /* base-cpu runs each request alone (DART's BaseCPU, unbatched): a batch: was accepted and ignored. */
    if (!batches && cl->batch_max > 1)
      return client_error(c, clients, i, "batch", NULL,
                          "client '%s' batches (batch: max %u), but policy base-cpu runs every request alone, as "
                          "DART's BaseCPU does (remove it; dart and base-gpu batch back-to-back BE clients)",
                          cl->name, cl->batch_max);
    if (batches && cl->batch_max > 1 && (cl->cls != ATOLL_CLASS_BE || cl->arrival.kind != ATOLL_ARRIVAL_CLOSED))
      return client_error(c, clients, i, "batch", NULL,
                          "client '%s' batches (batch: max %u), but under policy '%s' only a back-to-back BE client "
                          "(class be, arrival closed) does (docs/dart.md)",
                          cl->name, cl->batch_max, atoll_policy_name(pk));
  }
  for (uint32_t i = 0; i < c->s->n_clients; i++) {
    const atoll_client *cl = &c->s->clients[i];
    /* Stages run on whole nodes (the GPU node is one processor, sim/dart_run.c; natively the
     * nodes' CU sets, native/runtime/ndart.c): a client's CU binding was accepted and ignored. */
    if (!atoll_cuset_is_empty(&cl->cus))
      return client_error(c, clients, i,
                          clients->items[i]->kind == ATOLL_Y_MAP && atoll_ymap_get(clients->items[i], "share") ? "share"
                                                                                                          : "cus",
                          NULL,
                          "client '%s' is bound to CUs, but policy '%s' runs each stage on a whole node "
                          "(docs/dart.md): remove its share/cus, or choose a policy that partitions the GPU",
                          cl->name, atoll_policy_name(pk));
    if (cl->arrival.blocking)
      return client_error(c, clients, i, "arrival", "blocking",
                          "client '%s' is blocking, which policy '%s' does not model (docs/scenarios.md, arrival "
                          "kinds)",
                          cl->name, atoll_policy_name(pk));
  }
  return 0;
}

/* nodes: DART's processing nodes (docs/scenarios.md, docs/dart.md): `{kind: cpu, cores: N}` (optionally
 * `gflops_per_core`) or `{kind: gpu}` (the scenario's GPU and the one core that feeds it). */
enum { MAX_NODES = 16, MAX_NODE_CORES = 256 };
/* A CPU node's time for a kernel is its FLOPs over gflops_per_core (core/dart.c): a speed near 0 made
 * it infinite (llround of inf). The node's cores only divide it, so one core is the longest. */
enum { MIN_GFLOPS_PER_CORE_MFLOPS = 1 };
#define MIN_GFLOPS_PER_CORE (MIN_GFLOPS_PER_CORE_MFLOPS / 1000.0)

/* Each client's request, its batch's worth, must take at most one year (ATOLL_YREAD_MAX_TIME_NS, the
 * limit of every time) on one core of this speed: the stage times are int64 ns. */
static int check_cpu_time(scen_ctx *c, const atoll_ynode *at, double gflops) {
  for (uint32_t i = 0; i < c->s->n_clients; i++) {
    const atoll_client *cl = &c->s->clients[i];
    const atoll_model *m = &c->s->models[cl->model].model;
    double ns = 0;
    for (uint32_t op = 0; op < m->n_ops; op++)
      if (m->ops[op].kind == ATOLL_OP_KERNEL && !(m->op_cpu_ns && m->op_cpu_ns[op] > 0))
        ns += atoll_dart_op_flops(m, op) / gflops;
    ns *= cl->batch_max > 1 ? cl->batch_max : 1;
    if (ns > ATOLL_YREAD_MAX_TIME_NS)
      return atoll_yread_error(c->r, at, "at %g GFLOPS a core, client '%s' (model '%s') takes %.4g days a request "
                                         "on one core; at most 365 days: raise gflops_per_core",
                               gflops, cl->name, m->name, ns / 86400e9);
  }
  return 0;
}

static int read_node(scen_ctx *c, const atoll_ynode *n, atoll_node *out, uint32_t *gpus, uint32_t *cores) {
  static const char *const keys[] = {"kind", "cores", "gflops_per_core"};
  static const char *const kinds[] = {[ATOLL_NODE_CPU] = "cpu", [ATOLL_NODE_GPU] = "gpu"};
  atoll_yread *r = c->r;
  const atoll_ynode *v[3] = {0};
  int rc = atoll_yread_map(r, n, "node", keys, 3, v);
  if (rc == 0)
    rc = atoll_yread_require(r, n, v[0], "kind");
  uint32_t kind = 0;
  if (rc == 0)
    rc = WITH_KEY(r, "kind", atoll_yread_enum(r, v[0], "node kind", kinds, 2, &kind));
  if (rc)
    return rc;
  out->kind = (atoll_node_kind)kind;
  out->cores = 1;
  out->gflops_per_core = ATOLL_CPU_GFLOPS_PER_CORE;
  if (kind == ATOLL_NODE_GPU) {
    if (v[1])
      return WITH_KEY(r, "cores", atoll_yread_error(r, v[1], "a gpu node has one core (the one that launches its "
                                                              "work); cores is for cpu nodes"));
    /* A GPU node's stages run at the GPU's speed: the CPU cost model is never used there. */
    if (v[2])
      return WITH_KEY(r, "gflops_per_core", atoll_yread_error(r, v[2], "a gpu node runs its stages on the GPU; "
                                                                        "gflops_per_core is for cpu nodes"));
    if (++*gpus > 1)
      return atoll_yread_error(r, n, "the scenario has one GPU: at most one node of kind gpu");
  } else {
    if (!v[1])
      return atoll_yread_require(r, n, v[1], "cores");
    rc = WITH_KEY(r, "cores", atoll_yread_u32(r, v[1], 1, MAX_NODE_CORES, &out->cores));
  }
  if (rc == 0 && v[2])
    rc = WITH_KEY(r, "gflops_per_core", atoll_yread_double(r, v[2], MIN_GFLOPS_PER_CORE, 1e6, false,
                                                           &out->gflops_per_core));
  if (rc == 0 && v[2])
    rc = WITH_KEY(r, "gflops_per_core", check_cpu_time(c, v[2], out->gflops_per_core));
  *cores += out->cores;
  if (rc == 0 && *cores > MAX_NODE_CORES)
    rc = atoll_yread_error(r, n, "the nodes take %u cores in all; at most %d", *cores, MAX_NODE_CORES);
  return rc;
}

static int read_nodes(scen_ctx *c, const atoll_ynode *n) {
  atoll_yread *r = c->r;
  /* The map form asks dart to find the configuration itself, over the GPU and this many cores. */
  if (n && n->kind == ATOLL_Y_MAP) {
    static const char *const keys[] = {"search_cores"};
    const atoll_ynode *v[1] = {0};
    int rc = atoll_yread_map(r, n, "nodes", keys, 1, v);
    if (rc == 0)
      rc = atoll_yread_require(r, n, v[0], "search_cores");
    if (rc == 0)
      rc = WITH_KEY(r, "search_cores", atoll_yread_u32(r, v[0], 2, MAX_NODE_CORES, &c->s->node_search_cores));
    return rc;
  }
  int rc = atoll_yread_seq(r, n, "nodes");
  if (rc == 0 && n->n == 0)
    rc = atoll_yread_error(r, n, "nodes needs at least one node");
  if (rc == 0)
    rc = atoll_yread_count(r, n, "nodes", MAX_NODES);
  if (rc)
    return rc;
  atoll_node *nodes = atoll_arena_calloc(c->a, n->n, sizeof *nodes);
  if (!nodes)
    return atoll_yread_oom(r, n);
  uint32_t gpus = 0, cores = 0;
  for (uint32_t i = 0; i < n->n && rc == 0; i++) {
    atoll_yread_push_index(r, i);
    rc = read_node(c, n->items[i], &nodes[i], &gpus, &cores);
    atoll_yread_pop(r);
  }
  c->s->nodes = nodes;
  c->s->n_nodes = rc == 0 ? n->n : 0;
  return rc;
}

static const char *const scenario_keys[] = {"gpu",       "models", "clients", "policy",      "duration_ms",
                                            "warmup_ms", "seed",   "expect",  "description", "sim", "gpu_count",
                                            "nodes"};
enum { SC_GPU, SC_MODELS, SC_CLIENTS, SC_POLICY, SC_DURATION, SC_WARMUP, SC_SEED, SC_EXPECT, SC_DESC, SC_SIM, SC_GPUS, SC_NODES, SC_N };

static int read_scenario(scen_ctx *c, const atoll_ynode *root) {
  atoll_yread *r = c->r;
  const atoll_ynode *v[SC_N];
  int rc = atoll_yread_map(r, root, "scenario", scenario_keys, SC_N, v);
  static const int required[] = {SC_GPU, SC_MODELS, SC_CLIENTS, SC_POLICY, SC_DURATION};
  for (size_t k = 0; k < sizeof required / sizeof required[0] && rc == 0; k++)
    rc = atoll_yread_require(r, root, v[required[k]], scenario_keys[required[k]]);
  if (rc == 0 && v[SC_DESC])
    rc = WITH_KEY(r, "description", atoll_yread_str(r, v[SC_DESC], &c->s->description));
  if (rc == 0)
    rc = WITH_KEY(r, "gpu", read_gpu(c, v[SC_GPU]));
  if (rc == 0)
    rc = WITH_KEY(r, "models", read_models(c, v[SC_MODELS]));
  if (rc == 0)
    rc = WITH_KEY(r, "clients", read_clients(c, v[SC_CLIENTS]));
  if (rc == 0)
    rc = read_gpu_count(c, v[SC_GPUS], v[SC_CLIENTS]);
  if (rc == 0)
    rc = WITH_KEY(r, "clients", check_memory(c, v[SC_CLIENTS]));
  if (rc == 0)
    rc = WITH_KEY(r, "policy", read_policy(c, v[SC_POLICY]));
  if (rc == 0)
    rc = WITH_KEY(r, "policy", check_bindings(c, v[SC_POLICY]));
  if (rc == 0)
    rc = WITH_KEY(r, "clients", check_own_batches(c, v[SC_CLIENTS]));
  if (rc == 0)
    rc = WITH_KEY(r, "duration_ms", atoll_yread_time_ns(r, v[SC_DURATION], 1e6, false, &c->s->duration_ns));
  /* The CU-time books (busy CU-ns over the window, int64) hold up to duration x CUs: past that they
   * would wrap to a negative busy fraction. 9.2e18 CU-ns is 104 days at 1,024 CUs, 4.9 years at 60. */
  if (rc == 0 && (double)c->s->duration_ns * (double)c->s->gpu.cus > 9.2e18)
    rc = WITH_KEY(r, "duration_ms", atoll_yread_error(r, v[SC_DURATION], "duration_ms x the GPU's %u CUs is past the "
                                                      "simulator's CU-time count: at most %.0f ms on this GPU",
                                                      c->s->gpu.cus, floor(9.2e18 / c->s->gpu.cus / 1e6)));
  if (rc == 0 && v[SC_WARMUP]) {
    rc = WITH_KEY(r, "warmup_ms", atoll_yread_time_ns(r, v[SC_WARMUP], 1e6, true, &c->s->warmup_ns));
    if (rc == 0 && c->s->warmup_ns >= c->s->duration_ns)
      rc = WITH_KEY(r, "warmup_ms", atoll_yread_error(r, v[SC_WARMUP], "warmup_ms must be shorter than duration_ms"));
  }
  c->s->seed = 1;
  if (rc == 0 && v[SC_SEED])
    rc = WITH_KEY(r, "seed", atoll_yread_u64(r, v[SC_SEED], 0, UINT64_MAX, &c->s->seed));
  if (rc == 0 && v[SC_EXPECT])
    rc = WITH_KEY(r, "expect", read_expects(c, v[SC_EXPECT]));
  c->s->engine = ATOLL_ENGINE_DEFAULT;
  if (rc == 0 && v[SC_SIM])
    rc = WITH_KEY(r, "sim", read_sim(c, v[SC_SIM]));
  if (rc == 0 && v[SC_NODES])
    rc = WITH_KEY(r, "nodes", read_nodes(c, v[SC_NODES]));
  /* dart places stages on nodes and base-cpu counts their cores: neither runs without them. */
  atoll_policy_kind pk = c->s->policy.kind;
  if (rc == 0 && !v[SC_NODES] && (pk == ATOLL_POLICY_DART || pk == ATOLL_POLICY_BASE_CPU))
    rc = WITH_KEY(r, "policy", atoll_yread_error(r, v[SC_POLICY], "policy '%s' needs the scenario's nodes: (a list of "
                                                                   "cpu and gpu nodes, or {search_cores: N}; "
                                                                   "docs/scenarios.md)",
                                                  atoll_policy_name(pk)));
  if (rc == 0)
    rc = WITH_KEY(r, "clients", check_node_model_clients(c, v[SC_CLIENTS]));
  return rc;
}

static int load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_set_override *sets,
                       uint32_t n_sets, const atoll_model_memo *memo, atoll_scenario *out, atoll_diag *d);

int atoll_scenario_load_file_memo(atoll_arena *a, const char *path, const atoll_set_override *sets, uint32_t n_sets,
                                  const atoll_model_memo *memo, atoll_scenario *out, atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, path, &src, d);
  return rc ? rc : load_source(a, src, atoll_path_dir(a, path), sets, n_sets, memo, out, d);
}

int atoll_scenario_load_file(atoll_arena *a, const char *path, const atoll_set_override *sets, uint32_t n_sets,
                             atoll_scenario *out, atoll_diag *d) {
  return atoll_scenario_load_file_memo(a, path, sets, n_sets, NULL, out, d);
}

int atoll_scenario_load_source(atoll_arena *a, const atoll_source *src, const char *dir,
                               const atoll_set_override *sets, uint32_t n_sets, atoll_scenario *out, atoll_diag *d) {
  return load_source(a, src, dir, sets, n_sets, NULL, out, d);
}

static int load_source(atoll_arena *a, const atoll_source *src, const char *dir, const atoll_set_override *sets,
                       uint32_t n_sets, const atoll_model_memo *memo, atoll_scenario *out, atoll_diag *d) {
  atoll_ynode *root;
  int rc = atoll_ytree_parse(a, src, 0, &root, d);
  if (rc)
    return rc;
  if (!root || root->kind != ATOLL_Y_MAP) {
    atoll_diag_set(d, src, root ? root->line : 1, root ? root->col : 1, NULL,
                   "a scenario must be a mapping with gpu, models, clients, policy and duration_ms");
    return ATOLL_EPARSE;
  }
  if ((rc = atoll__apply_sets(a, root, sets, n_sets, d)))
    return rc;
  atoll_yread r;
  atoll_yread_init(&r, a, d);
  atoll_scenario s = {.path = atoll_arena_strdup(a, src->name)};
  scen_ctx c = {.r = &r, .a = a, .dir = dir, .s = &s, .memo = memo};
  rc = read_scenario(&c, root);
  if (rc == ATOLL_ENOMEM)
    atoll_diag_set(d, src, 0, 0, NULL, "%s", atoll_arena_failure(a));
  if (rc)
    return rc;
  *out = s;
  return 0;
}
