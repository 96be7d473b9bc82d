/* gpu_reset_hook.h — where a patched driver's CU reset plugs into the GPU back-end.
 *
 * Stock CUDA and ROCm drivers cannot kill the blocks running on the compute units while keeping
 * device memory (REEF patched AMD's KFD driver for it, and on NVIDIA rewrote the GPU trap handler).
 * Without a reset the back-end falls back to lazy eviction plus the kernel library's in-kernel
 * preemption points: reset_cus sets the kill word of every launch in flight and each running block
 * abandons its kernel at its next AK_PREEMPT_POINT, instead of at once.
 *
 * A patched driver's reset is plugged in, off by default, with the environment variable
 *     ATOLL_GPU_CU_RESET=/path/to/libreset.so:symbol
 * naming a shared object and a function of type atoll_gpu_cu_reset_fn in it. The back-end loads
 * it when it opens the device, reports can_reset_cus = true, and calls it from reset_cus after the
 * kill words are set (the kill words then stop only blocks the reset missed). docs/native-gpu.md
 * describes the contract. */
#ifndef ATOLL_GPU_RESET_HOOK_H
#define ATOLL_GPU_RESET_HOOK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATOLL_GPU_CU_RESET_ENV "ATOLL_GPU_CU_RESET"

/* Kills every block resident on the compute units of device `ordinal` (the runtime's device
 * number), keeping device memory, and returns once no killed block runs any more: 0, or non-zero
 * on failure. Called from one thread at a time. */
typedef int (*atoll_gpu_cu_reset_fn)(int ordinal);

typedef struct gpu_reset_hook {
  atoll_gpu_cu_reset_fn fn; /* NULL: no hook (the default) */
  void *lib;                /* dlopen handle */
  char spec[256];           /* the environment value, for messages */
} gpu_reset_hook;

/* Loads the hook the environment names. Returns 0 with hook->fn NULL when the variable is unset
 * or empty, 0 with hook->fn set when it loaded, or -1 with a message in err when it is set but
 * cannot be loaded (a malformed value, a missing library or symbol): asking for a reset and not
 * getting it must not pass silently. */
int atoll__gpu_reset_hook_load(gpu_reset_hook *hook, char *err, size_t err_len);
void atoll__gpu_reset_hook_unload(gpu_reset_hook *hook);

#ifdef __cplusplus
}
#endif

#endif
