/* Back-end lookup by name (native/backend.h): the CPU back-end is linked in; the GPU back-ends are
 * shared objects loaded on demand, so the atoll binary starts, and runs everything else, on a
 * machine without CUDA or ROCm libraries. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "native/backend.h"
#include "native/cpu/cpu_backend.h"

typedef const atoll_nbackend_ops *(*module_fn)(void);

/* The directory of the running executable ("" when unknown). */
static void exe_dir(char *out, size_t size) {
  out[0] = 0;
  ssize_t n = readlink("/proc/self/exe", out, size - 1);
  if (n <= 0)
    return;
  out[n] = 0;
  char *slash = strrchr(out, '/');
  if (slash)
    *slash = 0;
  else
    out[0] = 0;
}

/* Tries one candidate path; on success *ops is set and the handle stays open for the process's
 * life (back-ends are never unloaded: their threads and callbacks may outlive any one run). */
static int try_load(const char *path, const atoll_nbackend_ops **ops, char *err, size_t err_len) {
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    snprintf(err, err_len, "%.400s", why ? why : path);
    return ATOLL_ENODEV;
  }
  module_fn fn;
  *(void **)&fn = dlsym(h, ATOLL_NBACKEND_MODULE_SYMBOL);
  const atoll_nbackend_ops *o = fn ? fn() : NULL;
  if (!o) {
    snprintf(err, err_len, "%.400s: no %s entry point", path, ATOLL_NBACKEND_MODULE_SYMBOL);
    dlclose(h);
    return ATOLL_ENODEV;
  }
  *ops = o;
  return 0;
}

int atoll_nbackend_lookup(const char *name, const atoll_nbackend_ops **ops, char *err, size_t err_len) {
  if (!name || !ops)
    return ATOLL_EINVAL;
  if (strcmp(name, "cpu") == 0) {
    *ops = atoll_ncpu_backend();
    return 0;
  }
  if (strcmp(name, "cpu-gpu") == 0) {
    *ops = atoll_ncpu_gpu_like_backend();
    return 0;
  }
  if (strcmp(name, "cuda") != 0 && strcmp(name, "hip") != 0) {
    snprintf(err, err_len, "unknown device '%s' (known: cpu, cpu-gpu, cuda, hip)", name);
    return ATOLL_ENOENT;
  }
  char file[64], dir[PATH_MAX], path[PATH_MAX + 80];
  snprintf(file, sizeof file, "libatoll_backend_%s.so", name);
  exe_dir(dir, sizeof dir);
  const char *env = getenv("ATOLL_BACKEND_PATH");
  /* Next to the executable, then ../lib from it (an installed tree), then $ATOLL_BACKEND_PATH. */
  const char *cands[3] = {dir[0] ? "." : NULL, dir[0] ? "../lib" : NULL, env};
  char first_err[512] = "";
  for (int i = 0; i < 3; i++) {
    if (!cands[i])
      continue;
    if (i < 2)
      snprintf(path, sizeof path, "%s/%s/%s", dir, cands[i], file);
    else
      snprintf(path, sizeof path, "%s/%s", cands[i], file);
    if (access(path, F_OK) != 0)
      continue;
    if (try_load(path, ops, first_err, sizeof first_err) == 0)
      return 0;
    snprintf(err, err_len, "%.500s", first_err);
    return ATOLL_ENODEV; /* the module exists but does not load: its own error says why */
  }
  snprintf(err, err_len,
           "the %s back-end module (%s) was not found next to the executable, in ../lib or in "
           "$ATOLL_BACKEND_PATH; build with -DATOLL_%s=ON",
           name, file, strcmp(name, "cuda") == 0 ? "CUDA" : "HIP");
  return ATOLL_ENODEV;
}
