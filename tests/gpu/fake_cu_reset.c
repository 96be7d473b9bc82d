/* A stand-in for a patched driver's user library: the shape of function ATOLL_GPU_CU_RESET names
 * (native/gpu/gpu_reset_hook.h). It succeeds for device 3 only, so a test can tell that the hook
 * was called with the device number. */
int fake_cu_reset(int ordinal);
int fake_cu_reset(int ordinal) { return ordinal == 3 ? 0 : 7; }
