/* gpu_device.h — which GPU an instance of the GPU back-end drives (docs/native-gpu.md, "Several
 * devices").
 *
 * With gpu_count N the native runner opens one back-end instance per device
 * (atoll_nbackend_cfg.device of n_devices); instance d drives the GPU of ordinal base + d, base being
 * ATOLL_GPU_DEVICE (default 0), so a run takes N consecutive GPUs of the machine from base. The
 * vendor runtime's current device is per host thread, so every entry point of an instance selects
 * its ordinal before it calls the runtime (gpu_backend.cpp, use_device).
 *
 * Valid C11 and C++: the CPU unit tests (tests/gpu/) check the same code the module runs. */
#ifndef ATOLL_GPU_DEVICE_H
#define ATOLL_GPU_DEVICE_H

#include <stdint.h>

/* The ordinal instance `device` of n_devices drives (n_devices 0 or 1: the only one, at base), or -1
 * when base is not a device number, device is not below n_devices, or the ordinal is not below
 * count (the GPUs present). */
static inline int gpu_device_ordinal(int base, uint32_t device, uint32_t n_devices, int count) {
  if (base < 0 || (n_devices > 1 && device >= n_devices))
    return -1;
  const int64_t ordinal = (int64_t)base + (n_devices > 1 ? device : 0);
  return ordinal < count ? (int)ordinal : -1;
}

/* A queue's vendor stream priority from the runtime's (0 normal, higher served first). Vendor
 * priorities count down from `least` (the default) to `greatest`. Each runtime step is one vendor
 * level, clamped at the greatest; with `top` (backend.h atoll_npreempt_tuning.top_priority) every
 * priority above 0 is the greatest at once, so the RT queue under reef's priority option gets the
 * highest stream priority the device has. */
static inline int gpu_vendor_priority(int least, int greatest, uint32_t priority, int top) {
  if (priority > 0 && top)
    return greatest;
  const int64_t v = (int64_t)least - (int64_t)(priority > 64 ? 64 : priority);
  return v < greatest ? greatest : (int)v;
}

#endif
