#include "io/disb_import.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/load.h"
#include "io/strmap.h"
#include "io/yquote.h"

/* Generated client names are "rt_MODEL_N" / "be_MODEL_N": a model name leaves room for the class
 * and a number within a client name's length limit. */
enum { CLIENT_NAME_EXTRA = 14, MAX_MODEL_NAME = ATOLL_MAX_NAME_BYTES - CLIENT_NAME_EXTRA };

typedef struct disb_client {
  const char *model;
  double frequency; /* 0 when the client has a trace */
  const int64_t *trace_ns;
  uint32_t n_trace;
  int rt;
  const atoll_ynode *name_node; /* the client's model name: where errors about its model point */
  uint32_t index;               /* its place in the file's rt or be list, for the error's key path */
} disb_client;


static int read_client(atoll_yread *r, const atoll_ynode *n, int rt, uint32_t index, disb_client *out) {
  static const char *const keys[] = {"name", "frequency", "trace"};
  const atoll_ynode *v[3];
  int rc = atoll_yread_map(r, n, "DISB client", keys, 3, v);
  if (rc == 0)
    rc = atoll_yread_require(r, n, v[0], "name");
  if (rc == 0)
    rc = WITH_KEY(r, "name", atoll_yread_name(r, v[0], &out->model));
  if (rc == 0 && strlen(out->model) > MAX_MODEL_NAME)
    rc = WITH_KEY(r, "name", atoll_yread_error(r, v[0], "a model name longer than %d bytes leaves no room for "
                                                        "the client names made from it",
                                               (int)MAX_MODEL_NAME));
  if (rc)
    return rc;
  out->rt = rt;
  out->name_node = v[0];
  out->index = index;
  if (!v[1] && !v[2])
    return atoll_yread_error(r, n, "a DISB client needs a frequency or a trace");
  if (v[1] && (rc = WITH_KEY(r, "frequency", atoll_yread_double(r, v[1], 0, 1e9, true, &out->frequency))))
    return rc;
  if (v[2]) {
    const atoll_ynode *t = v[2];
    atoll_yread_push_key(r, "trace");
    rc = atoll_yread_seq(r, t, "trace");
    if (rc == 0 && t->n == 0)
      rc = atoll_yread_error(r, t, "an empty trace");
    if (rc == 0)
      rc = atoll_yread_count(r, t, "arrival times", ATOLL_MAX_ARRIVALS);
    int64_t *ns = rc == 0 ? atoll_arena_calloc(r->arena, t->n, sizeof *ns) : NULL;
    if (rc == 0 && !ns)
      rc = ATOLL_ENOMEM;
    for (uint32_t i = 0; rc == 0 && i < t->n; i++) {
      atoll_yread_push_index(r, i);
      rc = atoll_yread_time_ns(r, t->items[i], 1e6, true, &ns[i]);
      if (rc == 0 && i > 0 && ns[i] < ns[i - 1])
        rc = atoll_yread_error(r, t->items[i], "trace times must not decrease");
      atoll_yread_pop(r);
    }
    atoll_yread_pop(r);
    out->trace_ns = ns;
    out->n_trace = t->n;
    out->frequency = 0; /* the trace decides the arrivals */
  }
  return rc;
}

static int read_clients(atoll_yread *r, const atoll_ynode *n, const char *key, int rt, disb_client *all,
                        uint32_t *count) {
  int rc = atoll_yread_seq(r, n, key);
  if (rc == 0 && n->n > ATOLL_MAX_CLIENTS - *count)
    rc = atoll_yread_error(r, n, "more than %d clients (atoll's input limit, see docs/limits.md)",
                           (int)ATOLL_MAX_CLIENTS);
  for (uint32_t i = 0; rc == 0 && i < n->n; i++) {
    atoll_yread_push_index(r, i);
    rc = read_client(r, n->items[i], rt, i, &all[(*count)++]);
    atoll_yread_pop(r);
  }
  return rc;
}

/* Splits an absolute path into its components, in place. strtok_r, not strtok, which keeps its
 * place in a static: only `atoll import` calls this today, from one thread, but io/ is a library
 * whose other parsers run in atoll sweep's worker threads, and this one should be as safe. */
static int split_path(char *p, char **parts, int max) {
  int n = 0;
  char *save = NULL;
  for (char *tok = strtok_r(p, "/", &save); tok && n < max; tok = strtok_r(NULL, "/", &save))
    parts[n++] = tok;
  return n;
}

/* A relative path from folder `from` to folder `to`, both made absolute first: one "../" per
 * component of `from` below the common prefix, then the rest of `to`. */
static const char *relative_dir(atoll_arena *a, const char *from, const char *to) {
  char fa[PATH_MAX], ta[PATH_MAX];
  if (!realpath(from, fa) || !realpath(to, ta))
    return NULL;
  char *fp[128], *tp[128];
  int fn = split_path(fa, fp, 128), tn = split_path(ta, tp, 128);
  int common = 0;
  while (common < fn && common < tn && strcmp(fp[common], tp[common]) == 0)
    common++;
  char out[PATH_MAX * 2] = "";
  size_t len = 0;
  for (int i = common; i < fn && len < sizeof out; i++)
    len += (size_t)snprintf(out + len, sizeof out - len, "%s..", len ? "/" : "");
  for (int i = common; i < tn && len < sizeof out; i++)
    len += (size_t)snprintf(out + len, sizeof out - len, "%s%s", len ? "/" : "", tp[i]);
  return atoll_arena_strdup(a, len ? out : ".");
}

/* An error about client c's model, at its `name` in the file, with the key path to it. */
static int client_error(atoll_yread *r, const disb_client *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int client_error(atoll_yread *r, const disb_client *c, const char *fmt, ...) {
  char msg[sizeof r->diag->msg];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  atoll_yread_push_key(r, c->rt ? "rt" : "be");
  atoll_yread_push_index(r, c->index);
  atoll_yread_push_key(r, "name");
  int rc = atoll_yread_error(r, c->name_node, "%s", msg);
  atoll_yread_pop(r);
  atoll_yread_pop(r);
  atoll_yread_pop(r);
  return rc;
}

static const char *gpu_of_models(atoll_arena *a, const char *models_dir, const disb_client *c, uint32_t n,
                                 const atoll_ynode *where, atoll_yread *r, int *rc) {
  const char *gpu = NULL;
  /* Each model is loaded once, however many clients run it. */
  atoll_strmap loaded;
  atoll_strmap_init(&loaded);
  for (uint32_t i = 0; i < n && *rc == 0; i++) {
    int seen = atoll_strmap_add(&loaded, c[i].model, strlen(c[i].model), i, NULL);
    if (seen < 0) {
      *rc = atoll_yread_oom(r, where);
      break;
    }
    if (seen)
      continue;
    char file[ATOLL_MAX_NAME_BYTES + 8];
    snprintf(file, sizeof file, "%s.yaml", c[i].model);
    const char *path = atoll_path_join(a, models_dir, file);
    atoll_model m;
    atoll_diag inner;
    atoll_diag_clear(&inner);
    if (atoll_model_load_file(a, path, NULL, &m, &inner) != 0) {
      if (inner.line == 0)
        *rc = client_error(r, &c[i], "no usable profile for model '%s': %s: %s", c[i].model, path, inner.msg);
      else {
        *r->diag = inner;
        *rc = ATOLL_EPARSE;
      }
    } else if (gpu && strcmp(gpu, m.gpu) != 0) {
      *rc = client_error(r, &c[i], "models were measured on different GPUs ('%s' and '%s')", gpu, m.gpu);
    } else {
      gpu = m.gpu;
    }
  }
  atoll_strmap_free(&loaded);
  return *rc == 0 ? gpu : NULL;
}

/* Client i's name in the scenario: class and model, numbered only when a pair repeats. */
static void client_name(const disb_client *c, uint32_t n, uint32_t i, char name[ATOLL_MAX_NAME_BYTES + 1]) {
  uint32_t same = 0, before = 0;
  for (uint32_t j = 0; j < n; j++) {
    if (c[j].rt == c[i].rt && strcmp(c[j].model, c[i].model) == 0) {
      same++;
      if (j < i)
        before++;
    }
  }
  if (same > 1)
    snprintf(name, ATOLL_MAX_NAME_BYTES + 1, "%s_%s_%u", c[i].rt ? "rt" : "be", c[i].model, before);
  else
    snprintf(name, ATOLL_MAX_NAME_BYTES + 1, "%s_%s", c[i].rt ? "rt" : "be", c[i].model);
}

/* Two generated names may still meet: models 'a' (twice) and 'a_1' both give rt_a_1. Such a file
 * is refused, naming both models, rather than written as a scenario that does not load. */
static int check_names_unique(atoll_yread *r, const disb_client *c, uint32_t n) {
  char (*names)[ATOLL_MAX_NAME_BYTES + 1] = atoll_arena_alloc(r->arena, (size_t)n * sizeof *names);
  if (!names)
    return atoll_yread_oom(r, c[0].name_node);
  atoll_strmap seen;
  atoll_strmap_init(&seen);
  int rc = 0;
  for (uint32_t i = 0; i < n && rc == 0; i++) {
    client_name(c, n, i, names[i]);
    uint32_t j;
    int added = atoll_strmap_add(&seen, names[i], strlen(names[i]), i, &j);
    if (added == 1)
      rc = client_error(r, &c[i], "its client would be named %s, as a client of model '%s' is: rename one of "
                                  "the models", names[i], c[j].model);
    else if (added != 0)
      rc = atoll_yread_oom(r, c[i].name_node);
  }
  atoll_strmap_free(&seen);
  return rc;
}

/* What the run's length does to the file's traces: a DISB `time` shorter than a trace drops the
 * trace's later arrivals without a word, so each trace client's count is told. */
static void write_notes(FILE *notes, double time_s, double duration_ms, bool overridden, const disb_client *c,
                        uint32_t n) {
  if (!notes)
    return;
  if (overridden)
    fprintf(notes, "note: duration_ms %.17g from --duration-ms (the file's time is %.17g s)\n", duration_ms, time_s);
  else
    fprintf(notes, "note: duration_ms %.17g from the file's time (%.17g s); --duration-ms sets another\n",
            duration_ms, time_s);
  const int64_t end_ns = (int64_t)llround(duration_ms * 1e6);
  for (uint32_t i = 0; i < n; i++) {
    if (!c[i].n_trace)
      continue;
    uint32_t used = 0;
    while (used < c[i].n_trace && c[i].trace_ns[used] < end_ns)
      used++;
    char name[ATOLL_MAX_NAME_BYTES + 1];
    client_name(c, n, i, name);
    double span_s = (double)c[i].trace_ns[c[i].n_trace - 1] / 1e9;
    if (c[i].rt)
      fprintf(notes, "note: %s uses %u of its %u trace arrivals (the trace spans %.3f s)\n", name, used,
              c[i].n_trace, span_s);
    else
      fprintf(notes, "note: %s runs closed loop; its %u trace arrivals are not used\n", name, c[i].n_trace);
  }
}

/* A path plain where YAML reads it back unchanged (letters, digits, '_', '.', '/', '-', not first),
 * else quoted: a folder's name may hold what YAML reads otherwise ("#" starts a comment). */
static void write_scenario(FILE *out, const char *json_path, double duration_ms, const char *gpu, const char *rel,
                           const disb_client *c, uint32_t n) {
  /* The file's base name only: a generated scenario must not depend on where it was made. */
  const char *base = strrchr(json_path, '/');
  fprintf(out, "# DISB workload converted by `atoll import disb` from %s.\n", base ? base + 1 : json_path);
  fprintf(out, "# RT clients keep the file's frequency (uniform) or trace and block, one request in flight, as\n"
               "# DISB's harness sends them; BE clients run closed loop, as DISB runs them (the file's BE\n"
               "# frequency is kept as a comment).\n");
  fprintf(out, "gpu: %s\nmodels:\n", gpu);
  for (uint32_t i = 0; i < n; i++) {
    bool seen = false;
    for (uint32_t j = 0; j < i; j++)
      seen = seen || strcmp(c[j].model, c[i].model) == 0;
    if (!seen) {
      char path[PATH_MAX + ATOLL_MAX_NAME_BYTES + 8];
      snprintf(path, sizeof path, "%s/%s.yaml", rel, c[i].model);
      fprintf(out, "  %s: ", c[i].model);
      atoll_yaml_write_path(out, path);
      fputc('\n', out);
    }
  }
  fprintf(out, "clients:\n");
  for (uint32_t i = 0; i < n; i++) {
    char name[ATOLL_MAX_NAME_BYTES + 1];
    client_name(c, n, i, name);
    fprintf(out, "  - {name: %s, model: %s, class: %s, arrival: ", name, c[i].model, c[i].rt ? "rt" : "be");
    if (!c[i].rt) {
      fprintf(out, "{kind: closed}}");
      if (c[i].frequency > 0)
        fprintf(out, "  # DISB frequency: %.17g Hz", c[i].frequency);
      else
        fprintf(out, "  # DISB trace of %u arrivals", c[i].n_trace);
    } else if (c[i].n_trace) {
      fprintf(out, "{kind: trace, times_ms: [");
      for (uint32_t t = 0; t < c[i].n_trace; t++)
        fprintf(out, "%s%.6f", t ? ", " : "", (double)c[i].trace_ns[t] / 1e6);
      fprintf(out, "], blocking: true}}");
    } else {
      fprintf(out, "{kind: uniform, rate_hz: %.17g, blocking: true}}", c[i].frequency);
    }
    fputc('\n', out);
  }
  fprintf(out, "policy: {name: reef, dkp: true}\nduration_ms: %.17g\nseed: 1\n", duration_ms);
}

int atoll_disb_import(atoll_arena *a, const char *json_path, const char *models_dir, const char *out_dir,
                      const atoll_disb_opts *opts, FILE *out, atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, json_path, &src, d);
  return rc ? rc : atoll_disb_import_source(a, src, models_dir, out_dir, opts, out, d);
}

int atoll_disb_import_source(atoll_arena *a, const atoll_source *src, const char *models_dir, const char *out_dir,
                             const atoll_disb_opts *opts, FILE *out, atoll_diag *d) {
  atoll_ynode *root;
  int rc = atoll_ytree_parse(a, src, 0, &root, d);
  if (rc)
    return rc;
  if (!root) {
    atoll_diag_set(d, src, 1, 1, NULL, "empty file: expected a DISB workload {\"time\": ..., \"rt\": [...], \"be\": [...]}");
    return ATOLL_EPARSE;
  }
  atoll_yread r;
  atoll_yread_init(&r, a, d);
  static const char *const keys[] = {"time", "rt", "be"};
  const atoll_ynode *v[3];
  rc = atoll_yread_map(&r, root, "DISB workload", keys, 3, v);
  for (int k = 0; k < 3 && rc == 0; k++)
    rc = atoll_yread_require(&r, root, v[k], keys[k]);
  double time_s = 0;
  if (rc == 0)
    rc = WITH_KEY(&r, "time", atoll_yread_double(&r, v[0], 0, 1e7, true, &time_s));
  uint32_t cap = (v[1] && v[1]->kind == ATOLL_Y_SEQ ? v[1]->n : 0) + (v[2] && v[2]->kind == ATOLL_Y_SEQ ? v[2]->n : 0);
  disb_client *c = atoll_arena_calloc(a, cap + 1, sizeof *c);
  uint32_t n = 0;
  if (rc == 0 && !c)
    rc = atoll_yread_oom(&r, root);
  if (rc == 0)
    rc = WITH_KEY(&r, "rt", read_clients(&r, v[1], "rt", 1, c, &n));
  if (rc == 0)
    rc = WITH_KEY(&r, "be", read_clients(&r, v[2], "be", 0, c, &n));
  if (rc == 0 && n == 0)
    rc = atoll_yread_error(&r, root, "a DISB workload without clients");
  const char *gpu = rc == 0 ? gpu_of_models(a, models_dir, c, n, root, &r, &rc) : NULL;
  const char *rel = rc == 0 ? relative_dir(a, out_dir, models_dir) : NULL;
  if (rc == 0 && !rel) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "cannot resolve folders '%s' and '%s'", out_dir, models_dir);
    rc = ATOLL_ENOENT;
  }
  bool overridden = opts && opts->duration_ms > 0;
  double duration_ms = overridden ? opts->duration_ms : time_s * 1000.0;
  if (rc == 0 && !(duration_ms > 0)) {
    rc = WITH_KEY(&r, "time", atoll_yread_error(&r, v[0], "time is 0: give a positive time or --duration-ms"));
  } else if (rc == 0 && llround(duration_ms * 1e6) < 1) { /* the scenario would not load */
    if (overridden) {
      atoll_diag_set(d, NULL, 0, 0, NULL, "--duration-ms %g is below the simulator's 1 ns resolution", duration_ms);
      rc = ATOLL_EINVAL;
    } else {
      rc = WITH_KEY(&r, "time", atoll_yread_error(&r, v[0], "time %g s is below the simulator's 1 ns resolution: "
                                                            "give a longer time or --duration-ms", time_s));
    }
  }
  if (rc == 0)
    rc = check_names_unique(&r, c, n);
  if (rc == 0) {
    write_scenario(out, src->name, duration_ms, gpu, rel, c, n);
    write_notes(opts ? opts->notes : NULL, time_s, duration_ms, overridden, c, n);
  }
  return rc;
}
