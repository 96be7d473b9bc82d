/* atoll native --profile: measure the device and the scenario's native models, and write the
 * device preset (DIR/gpus/NAME.yaml) and one profile per native model (DIR/models/MODEL.yaml), in
 * the formats the simulator loads (docs/gpus.md, docs/models.md). docs/hil.md shows the loop. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "atoll/error.h"
#include "io/gpu_write.h"
#include "io/gpu_write_checked.h"
#include "io/model_write_checked.h"
#include "tools/atoll/native_cli.h"
#include "native/runtime/nprofile.h"

static int mkdir_p(const char *path) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) { /* not a cut folder made instead */
    errno = ENAMETOOLONG;
    return -1;
  }
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/')
      continue;
    *p = 0;
    if (mkdir(buf, 0777) != 0 && errno != EEXIST)
      return -1;
    *p = '/';
  }
  return mkdir(buf, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Where each preset cost comes from, in the order of atoll_gpu_costs (nprofile.c measures). */
static const char *const cost_notes[ATOLL_GPU_WRITTEN_COSTS] = {
    "measured: launch through the runtime (HQ, DQ bound, transmit) to completion, less launch_sync",
    "measured: per kernel, empty kernels back to back on one queue",
    "the CPU CP serves queues independently: no switch cost",
    "measured: one empty kernel, submit to completion (median)",
    "measured: reset_cus with each model kernel running (median; waits for the next preemption point)",
    "measured: synchronous reset of 10000 queued commands, per command",
    "measured: the same reset handing the commands to the GC thread",
    "measured: per launch, flagged launches retired back to back",
    "no fixed cost: the flag is a word the prologue reads",
    "measured: one padding selection (core/dkp.c), two BE candidates",
    "measured: a 64-byte copy, submit to completion",
    "measured: a 4 MiB copy less the 64-byte one",
    "a padded launch is its block ranges: no proxy kernel"};

static void header(char *buf, size_t size, const char *what, const atoll_native_opts *o, const char *scenario) {
  struct utsname u;
  char host[200] = "?", cmd[400];
  if (uname(&u) == 0)
    snprintf(host, sizeof host, "%s %s %s", u.nodename, u.sysname, u.machine);
  time_t now = time(NULL);
  char when[64];
  strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
  int k = snprintf(cmd, sizeof cmd, "atoll native --profile %s --device %s", scenario ? scenario : "-",
                   o->device ? o->device : "cpu");
  if (o->cus && k > 0 && (size_t)k < sizeof cmd)
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --cus %u", o->cus);
  if (o->slots_per_cu && k > 0 && (size_t)k < sizeof cmd)
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --slots %u", o->slots_per_cu);
  if (o->pin_threads && k > 0 && (size_t)k < sizeof cmd)
    snprintf(cmd + k, sizeof cmd - (size_t)k, " --pin");
  snprintf(buf, size,
           "%s\n"
           "Written by: %s\n"
           "Measured on %s (%ld CPUs online), %s. Regenerate on the machine the simulation should predict.",
           what, cmd, host, sysconf(_SC_NPROCESSORS_ONLN), when);
}

/* Writes path: the model m's profile, or the device g's preset when m is NULL, each only once its
 * text reads back as what was measured (model_write_checked.h, gpu_write_checked.h; models_dir and
 * g are what the profile loads with). Returns 0; otherwise says why on stderr and leaves no file. */
static int save_checked(const char *path, const atoll_gpu *g, const atoll_model *m, const char *head,
                        const char *models_dir) {
  atoll_diag d;
  atoll_diag_clear(&d);
  FILE *f = fopen(path, "w");
  int rc = !f ? ATOLL_EIO
         : m  ? atoll_model_write_checked(f, m, head, models_dir, g, &d)
              : atoll_gpu_write_checked(f, g, head, cost_notes, &d);
  if (f && fclose(f) != 0 && rc == 0)
    rc = ATOLL_EIO;
  if (rc == 0)
    return 0;
  if (d.set)
    atoll_diag_print(&d, stderr);
  else
    perror(path);
  if (f)
    remove(path);
  return rc;
}

int atoll__native_profile(const atoll_scenario *s, const atoll_native_opts *o, const char *dir, uint32_t repeats,
                          FILE *out) {
  atoll_arena a;
  atoll_arena_init(&a);
  char err[256] = "", path[PATH_MAX], head[1024];
  /* Each native model once, in scenario order. */
  const atoll_nmodel *uniq[64];
  uint32_t n = 0;
  for (uint32_t m = 0; m < s->n_models && n < 64; m++) {
    uint32_t k = 0;
    while (k < n && uniq[k] != o->nmodels[m])
      k++;
    if (k == n)
      uniq[n++] = o->nmodels[m];
  }
  atoll_gpu g;
  atoll_native_costs_note note;
  const char *name = o->device ? o->device : "cpu";
  int rc = atoll_native_measure_device(o, name, uniq, n, &a, &g, &note, err, sizeof err);
  if (rc) {
    atoll_arena_free(&a);
    return atoll__native_fail("native --profile", rc, err);
  }
  snprintf(path, sizeof path, "%s/gpus", dir);
  if (mkdir_p(path) != 0) {
    perror(path);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (snprintf(path, sizeof path, "%s/gpus/%s.yaml", dir, g.name) >= (int)sizeof path) {
    fprintf(stderr, "atoll native --profile: %s: the path is too long\n", dir);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  header(head, sizeof head, "A native device measured by atoll (docs/hil.md, docs/native.md).", o, s->path);
  if (save_checked(path, &g, NULL, head, NULL) != 0) {
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  fprintf(out, "device %s: %u CUs x %u slots; launch %.1f us, dispatch %.1f us, transmit %.1f us, kill %.1f us "
               "(median of %u kernels, max %.1f us), eviction %.2f us/launch\n  wrote %s\n",
          g.name, g.cus, g.max_blocks_per_cu, g.costs.launch_sync_ns / 1e3, g.costs.cp_dispatch_ns / 1e3,
          g.costs.hq_transmit_ns / 1e3, g.costs.cu_reset_ns / 1e3, note.kill_kernels, note.kill_max_ns / 1e3,
          g.costs.evicted_kernel_ns / 1e3, path);
  char models_dir[sizeof path];
  snprintf(models_dir, sizeof models_dir, "%s/models", dir);
  if (mkdir_p(models_dir) != 0) {
    perror(models_dir);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  for (uint32_t k = 0; k < n; k++) {
    atoll_model m;
    rc = atoll_native_measure_model(o, uniq[k], &g, repeats, &a, &m, err, sizeof err);
    if (rc) {
      atoll_arena_free(&a);
      return atoll__native_fail("native --profile", rc, err);
    }
    if (snprintf(path, sizeof path, "%s/models/%s.yaml", dir, uniq[k]->name) >= (int)sizeof path) {
      fprintf(stderr, "atoll native --profile: %s: the path is too long\n", dir);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    char what[200];
    snprintf(what, sizeof what, "Native model '%s' measured on device %s (docs/hil.md).", uniq[k]->name, g.name);
    header(head, sizeof head, what, o, s->path);
    if (save_checked(path, &g, &m, head, models_dir) != 0) {
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    fprintf(out, "model %s: %u ops, alone %.3f ms\n  wrote %s\n", uniq[k]->name, m.n_ops,
            m.measured_latency_ns / 1e6, path);
  }
  atoll_arena_free(&a);
  return ATOLL_EXIT_OK;
}
