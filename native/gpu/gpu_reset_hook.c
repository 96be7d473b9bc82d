/* gpu_reset_hook.c — loading the patched-driver CU reset named by ATOLL_GPU_CU_RESET
 * (gpu_reset_hook.h). No GPU API here: the hook is whatever the patched driver's user library
 * exports. */
#include "native/gpu/gpu_reset_hook.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int atoll__gpu_reset_hook_load(gpu_reset_hook *hook, char *err, size_t err_len) {
  memset(hook, 0, sizeof *hook);
  const char *spec = getenv(ATOLL_GPU_CU_RESET_ENV);
  if (!spec || !*spec)
    return 0;
  if (strlen(spec) >= sizeof hook->spec) {
    snprintf(err, err_len, "%s: value longer than %zu characters", ATOLL_GPU_CU_RESET_ENV, sizeof hook->spec - 1);
    return -1;
  }
  strcpy(hook->spec, spec);
  char path[sizeof hook->spec];
  strcpy(path, spec);
  char *colon = strrchr(path, ':');
  if (!colon || colon == path || colon[1] == '\0') {
    snprintf(err, err_len, "%s='%s': expected /path/to/library.so:symbol", ATOLL_GPU_CU_RESET_ENV, spec);
    return -1;
  }
  *colon = '\0';
  const char *symbol = colon + 1;
  hook->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!hook->lib) {
    snprintf(err, err_len, "%s: %s", ATOLL_GPU_CU_RESET_ENV, dlerror());
    return -1;
  }
  void *sym = dlsym(hook->lib, symbol);
  if (!sym) {
    snprintf(err, err_len, "%s: no symbol '%s' in %s", ATOLL_GPU_CU_RESET_ENV, symbol, path);
    dlclose(hook->lib);
    hook->lib = NULL;
    return -1;
  }
  /* POSIX guarantees a data pointer from dlsym converts to a function pointer. */
  memcpy(&hook->fn, &sym, sizeof hook->fn);
  return 0;
}

void atoll__gpu_reset_hook_unload(gpu_reset_hook *hook) {
  if (hook->lib)
    dlclose(hook->lib);
  hook->lib = NULL;
  hook->fn = NULL;
}
