/* atoll native --profile: measure the device and the scenario's native models, and write the
 * device preset (DIR/gpus/NAME.yaml) and one profile per native model (DIR/models/MODEL.yaml), in
 * the formats the simulator loads (docs/gpus.md, docs/models.md). docs/hil.md shows the loop. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "atoll/error.h"
#include "io/gpu_write.h"
#include "io/gpu_write_checked.h"
#include "io/model_write_checked.h"
#include "io/out_file.h"
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

static void header(char *buf, size_t size, const char *what, const atoll_native_opts *o, const char *scenario,
                   uint32_t repeats, uint32_t awake) {
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
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --pin");
  /* The conditions the times were taken under, so that the line measures again as this did: the
   * timed runs per op, the keep-awake loops beside them, and the nice value the device's threads
   * ran at (--nice, or inherited; this thread opened the device, and its threads inherit it). */
  if (repeats != ATOLL_PROFILE_REPEATS && k > 0 && (size_t)k < sizeof cmd)
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --repeats %u", repeats);
  if (awake && k > 0 && (size_t)k < sizeof cmd)
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " --keep-awake %u", awake);
  errno = 0;
  int nice = getpriority(PRIO_PROCESS, 0);
  if (errno == 0 && nice != 0 && k > 0 && (size_t)k < sizeof cmd)
    snprintf(cmd + k, sizeof cmd - (size_t)k, " --nice %d", nice);
  snprintf(buf, size,
           "%s\n"
           "Written by: %s\n"
           "Measured on %s (%ld CPUs online), %s. Regenerate on the machine the simulation should predict.",
           what, cmd, host, sysconf(_SC_NPROCESSORS_ONLN), when);
}

/* Where `dir` cannot take the profiles, said on stderr before anything is measured (a run found
 * it only after measuring, with the preset already written): a path component that is not a
 * folder, a folder it cannot create in or write to, or a target that is a folder. Returns 0, or
 * ATOLL_EXIT_BAD_INPUT after the message. */
static int check_dir(const char *dir, const char *device, const atoll_nmodel *const *models, uint32_t n) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf) {
    fprintf(stderr, "atoll native --profile: -o %s: the path is too long\n", dir);
    return ATOLL_EXIT_BAD_INPUT;
  }
  /* The deepest folder that exists must be writable when something is to be made in it. */
  struct stat st;
  char *p = buf + strlen(buf);
  while (p > buf && p[-1] == '/' && p - 1 > buf) /* "d/" is "d" */
    *--p = '\0';
  for (char *q = buf + 1;; q++) {
    if (*q != '/' && *q != '\0')
      continue;
    char c = *q;
    *q = '\0';
    int found = stat(buf, &st);
    if (found == 0 && !S_ISDIR(st.st_mode)) {
      fprintf(stderr, "atoll native --profile: -o %s: %s is not a folder\n", dir, buf);
      return ATOLL_EXIT_BAD_INPUT;
    }
    if (found != 0) {
      char parent[PATH_MAX];
      const char *slash = strrchr(buf, '/');
      snprintf(parent, sizeof parent, "%.*s", slash ? (int)(slash == buf ? 1 : slash - buf) : 1, slash ? buf : ".");
      if (errno != ENOENT || access(parent, W_OK | X_OK) != 0) {
        fprintf(stderr, "atoll native --profile: -o %s: cannot create %s: %s\n", dir, buf,
                strerror(errno == ENOENT ? EACCES : errno));
        return ATOLL_EXIT_BAD_INPUT;
      }
      return 0; /* what is below is made when written */
    }
    *q = c;
    if (c == '\0')
      break;
  }
  static const char *const subs[] = {"gpus", "models"};
  for (int k = 0; k < 2; k++) {
    char sub[PATH_MAX + 16];
    snprintf(sub, sizeof sub, "%s/%s", buf, subs[k]);
    int found = stat(sub, &st);
    const char *bad = found == 0 && !S_ISDIR(st.st_mode) ? "is not a folder"
                      : found == 0 && access(sub, W_OK | X_OK) != 0 ? strerror(errno)
                      : found != 0 && access(buf, W_OK | X_OK) != 0 ? strerror(errno)
                                                                    : NULL;
    if (bad) {
      fprintf(stderr, "atoll native --profile: -o %s: %s %s\n", dir, found == 0 ? sub : buf, bad);
      return ATOLL_EXIT_BAD_INPUT;
    }
    for (uint32_t m = 0; m < (k ? n : 1); m++) {
      char file[PATH_MAX + 300];
      snprintf(file, sizeof file, "%s/%s.yaml", sub, k ? models[m]->name : device);
      if (stat(file, &st) == 0 && S_ISDIR(st.st_mode)) {
        fprintf(stderr, "atoll native --profile: -o %s: %s is a folder\n", dir, file);
        return ATOLL_EXIT_BAD_INPUT;
      }
    }
  }
  return 0;
}

/* One file of the profile, written to a temporary name and renamed once every file was written
 * (io/out_file.h): a failure leaves the older profile whole, rather than a new preset beside old
 * models. */
typedef struct profile_file {
  atoll_out_file out;
  char path[PATH_MAX];
  bool open;
} profile_file;

/* Writes f: the model m's profile, or the device g's preset when m is NULL, each only once its
 * text reads back as what was measured (model_write_checked.h, gpu_write_checked.h; models_dir and
 * g are what the profile loads with), not yet committed. Returns 0; otherwise says why on stderr. */
static int save_checked(profile_file *f, const atoll_gpu *g, const atoll_model *m, const char *head,
                        const char *models_dir) {
  atoll_diag d;
  atoll_diag_clear(&d);
  if (atoll_out_file_open(&f->out, f->path) != 0) {
    perror(f->path);
    return ATOLL_EIO;
  }
  f->open = true;
  int rc = m ? atoll_model_write_checked(f->out.f, m, head, models_dir, g, &d)
             : atoll_gpu_write_checked(f->out.f, g, head, cost_notes, &d);
  if (rc == 0 && (fflush(f->out.f) != 0 || ferror(f->out.f)))
    rc = ATOLL_EIO;
  if (rc == 0)
    return 0;
  if (d.set)
    atoll_diag_print(&d, stderr);
  else
    perror(f->path);
  return rc;
}

/* Commits every open file when ok, else removes their temporary files. Returns 0 when all were
 * committed. */
static int finish(profile_file *files, uint32_t n, bool ok) {
  int rc = ok ? 0 : ATOLL_EIO;
  for (uint32_t k = 0; k < n; k++) {
    if (!files[k].open)
      continue;
    errno = 0;
    if (atoll_out_file_close(&files[k].out, ok) != 0 && ok) {
      fprintf(stderr, "atoll native --profile: %s: %s\n", files[k].path, strerror(errno ? errno : EIO));
      rc = ATOLL_EIO;
    }
    files[k].open = false;
  }
  return rc;
}

int atoll__native_profile(const atoll_scenario *s, const atoll_native_opts *o, const char *dir, uint32_t repeats,
                          uint32_t awake, FILE *out) {
  char err[256] = "", head[1024];
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
  const char *name = o->device ? o->device : "cpu";
  if (check_dir(dir, name, uniq, n) != 0)
    return ATOLL_EXIT_BAD_INPUT;
  /* files[0]: the preset; files[1 + k]: model uniq[k]. */
  profile_file *files = calloc(n + 1, sizeof *files);
  atoll_model *models = calloc(n ? n : 1, sizeof *models);
  if (!files || !models) {
    free(files);
    free(models);
    return atoll__native_fail("native --profile", ATOLL_ENOMEM, NULL);
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_gpu g;
  atoll_native_costs_note note;
  int rc = atoll_native_measure_device(o, name, uniq, n, &a, &g, &note, err, sizeof err);
  for (uint32_t k = 0; rc == 0 && k < n; k++)
    rc = atoll_native_measure_model(o, uniq[k], &g, repeats, &a, &models[k], err, sizeof err);
  int code = rc ? atoll__native_fail("native --profile", rc, err) : ATOLL_EXIT_OK;
  char models_dir[PATH_MAX];
  snprintf(models_dir, sizeof models_dir, "%s/models", dir);
  char gpus_dir[PATH_MAX];
  snprintf(gpus_dir, sizeof gpus_dir, "%s/gpus", dir);
  for (int k = 0; k < 2 && code == 0; k++)
    if (mkdir_p(k ? models_dir : gpus_dir) != 0) {
      perror(k ? models_dir : gpus_dir);
      code = ATOLL_EXIT_BAD_INPUT;
    }
  for (uint32_t k = 0; code == 0 && k <= n; k++) {
    if (snprintf(files[k].path, sizeof files[k].path, "%s/%s.yaml", k ? models_dir : gpus_dir,
                 k ? uniq[k - 1]->name : g.name) >= (int)sizeof files[k].path) {
      fprintf(stderr, "atoll native --profile: %s: the path is too long\n", dir);
      code = ATOLL_EXIT_BAD_INPUT;
      break;
    }
    char what[200];
    if (k == 0)
      snprintf(what, sizeof what, "A native device measured by atoll (docs/hil.md, docs/native.md).");
    else
      snprintf(what, sizeof what, "Native model '%s' measured on device %s (docs/hil.md).", uniq[k - 1]->name,
               g.name);
    header(head, sizeof head, what, o, s->path, repeats, awake);
    if (save_checked(&files[k], &g, k ? &models[k - 1] : NULL, head, models_dir) != 0)
      code = ATOLL_EXIT_BAD_INPUT;
  }
  if (finish(files, n + 1, code == 0) != 0 && code == 0)
    code = ATOLL_EXIT_BAD_INPUT;
  if (code == 0) {
    fprintf(out, "device %s: %u CUs x %u slots; launch %.1f us, dispatch %.1f us, transmit %.1f us, kill %.1f us "
                 "(median of %u kernels, max %.1f us), eviction %.2f us/launch\n  wrote %s\n",
            g.name, g.cus, g.max_blocks_per_cu, g.costs.launch_sync_ns / 1e3, g.costs.cp_dispatch_ns / 1e3,
            g.costs.hq_transmit_ns / 1e3, g.costs.cu_reset_ns / 1e3, note.kill_kernels, note.kill_max_ns / 1e3,
            g.costs.evicted_kernel_ns / 1e3, files[0].path);
    for (uint32_t k = 0; k < n; k++)
      fprintf(out, "model %s: %u ops, alone %.3f ms\n  wrote %s\n", uniq[k]->name, models[k].n_ops,
              models[k].measured_latency_ns / 1e6, files[k + 1].path);
  }
  free(files);
  free(models);
  atoll_arena_free(&a);
  return code;
}
