/* gpu_backend.cpp — the CUDA and HIP back-ends of the native runtime, one source for both vendors
 * (native/cuda and native/hip compile it with their gpu_vendor.h). How it drives the GPU:
 *
 *   - A queue is a GPU stream (non-blocking, so it never waits for the legacy default stream) with
 *     the runtime's priority mapped onto the vendor's stream priorities. Launches of a queue run in
 *     order; the runtime bounds how many are in flight (REEF's DQ capacity; on CUDA, REEF §4.6's
 *     closed loop of N outstanding kernels per stream), and this back-end only reports each
 *     launch's completion: an event is recorded after every launch and a completion thread per
 *     queue waits for the events in order and calls cfg->on_complete.
 *   - Kernel launches all run the entry kernel of gpu_entry.h (preemptor prologue, then the kernel
 *     library's block body), plain launches with one block range and padded launches with the RT
 *     range followed by the BE parts (gpu_launch.h).
 *   - The preempt flag of each queue is a word of coherent device memory that the prologue reads.
 *     The host writes it with a 4-byte copy from pinned memory on a CONTROL stream of the highest
 *     priority, then waits for that copy. A copy runs on a DMA engine, so it does not queue behind
 *     the queues' kernels or wait for a free compute slot (a flag-writing kernel would, on a GPU
 *     full of BE blocks), and the flag is in device memory, where every block's prologue reads it
 *     from the L2 cache instead of across PCIe. The same mechanism writes the kill words.
 *   - The execution index and the per-launch status words live in pinned host memory mapped into
 *     the device: the device writes them (posted PCIe writes), the host reads them without a copy.
 *   - CU reset: stock drivers have none. reset_cus sets the kill word of every launch in flight,
 *     and running blocks abandon their kernel at their next in-kernel preemption point
 *     (AK_PREEMPT_POINT); launches in flight that had not started stop at their first point, or in
 *     the prologue when their queue's flag is set. A patched driver's reset plugs in through
 *     gpu_reset_hook.h and is called after the kill words are set.
 *   - Preemption timestamps (backend.h preempt_times, gpu_clock.h): blocks write the device clock
 *     into each queue's mapped timestamp words when the flag evicts them, when a kill stops them,
 *     and when the first RT kernel passes its prologue; the host clears the words before writing
 *     the flag of a new preemption and maps the device clock onto its own with the fit made at
 *     open by the clock probe. The flag's own time is the host's, when the control stream's write
 *     completed: the device has the flag by then.
 *   - Copies and memsets are launches of the entry kernel with a built-in body, not DMA commands:
 *     they pass the same prologue, so the flag evicts a queued copy as it evicts a queued kernel
 *     (the CPU back-end's semantics). Host data goes through a pinned, mapped staging ring per
 *     queue (gpu_staging.h): H2D data is copied into it at submit, D2H data out of it at
 *     completion, so submit never waits for the device.
 *
 *   - Several devices (gpu_count): one instance per device, each on its own ordinal (gpu_device.h)
 *     with its own streams, events and memory. The runtime's current device is per host thread, and
 *     the runtime's threads call any instance, so every entry point and the completion threads
 *     select the instance's device first (use_device).
 *
 * Policy lives in the runtime and the core: nothing here decides what to launch, preempt or pad. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_vendor.h" /* first: the kernel library's header includes the vendor runtime in GPU builds */

#include "atoll/error.h"
#include "native/backend.h"
#include "native/gpu/gpu_clock.h"
#include "native/gpu/gpu_device.h"
#include "native/gpu/gpu_kernels.h"
#include "native/gpu/gpu_reset_hook.h"
#include "native/gpu/gpu_staging.h"

#define GPU_MAX_QUEUES 64
/* Launches in flight per queue: REEF's DQ capacity is 4, a stock runtime's hundreds, and the native
 * runtime's default "stock" depth 1024. */
#define GPU_INFLIGHT_MAX 1024
#define GPU_STAGING_DEFAULT_MB 8
#define GPU_STATUS_WORDS_PER_SLOT (GPU_MAX_RANGES * GPU_ST_WORDS)

typedef struct gpu_inflight {
  gpuEvent_t done;  /* recorded after the launch; created once per slot */
  gpuEvent_t begin; /* recorded before it: with `done`, the launch's time on the device (cu_busy) */
  bool is_kernel;
  bool rt;          /* atoll_nlaunch.rt: the CU-time goes to the RT share */
  uint32_t blocks;  /* blocks of the launch: the CUs it covers is at most this */
  bool killed; /* reset_cus killed this launch and set its kill word (cleared before reuse) */
  uint64_t seq; /* the launch's sequence number (its decision word's key) */
  uint32_t n_tags;
  uint64_t tags[GPU_MAX_RANGES]; /* range i's completion tag (the launch's tag for range 0) */
  size_t stage_off, stage_span;  /* staging held by a copy (span 0: none) */
  void *d2h_dst;                 /* D2H copies: the runtime's destination, filled on completion */
  size_t d2h_bytes;
} gpu_inflight;

typedef struct gpu_backend gpu_backend;

struct atoll_nqueue {
  gpu_backend *be;
  gpuStream_t stream;
  bool bound; /* a partition's stream: padded launches are refused (backend.h) */
  int vendor_prio; /* its stream's priority, for the stream a re-partition makes (gpu_rebind_queue) */
  pthread_t completer;
  bool completer_started;

  pthread_mutex_t mu; /* the ring, the staging ring, the kill shadow */
  pthread_cond_t work, room;
  gpu_inflight ring[GPU_INFLIGHT_MAX];
  uint32_t head, count;
  bool stop;

  gpu_staging stage;
  uint8_t *stage_host; /* pinned and mapped */
  uint8_t *stage_dev;  /* the device's view of stage_host */

  uint64_t next_seq;

  /* Coherent device memory. Flag and kill words are written by the host through the control
   * stream; decision words by the prologue (read back by reset_cus). */
  uint32_t *flag_dev;
  uint32_t *kill_dev;     /* GPU_INFLIGHT_MAX words, one per ring slot */
  uint64_t *tile_dev;     /* GPU_INFLIGHT_MAX words, one per ring slot (persistent launches) */
  uint64_t *decision_dev; /* GPU_INFLIGHT_MAX words, one per ring slot */
  /* Pinned host memory: copy sources and destinations for the above, and the words the device
   * writes directly. */
  uint32_t *flag_src;
  uint32_t *kill_src;       /* shadow of kill_dev */
  uint64_t *decision_host;  /* reset_cus reads decision_dev into it */
  uint8_t *mapped;          /* one allocation holding exec_tag, exec_seen, status */
  uint64_t *exec_tag;       /* host view */
  uint32_t *exec_seen;      /* host view */
  uint32_t *status;         /* host view: GPU_STATUS_WORDS_PER_SLOT words per ring slot */
  volatile uint64_t *times; /* host view: GPU_T_WORDS timestamp words (gpu_clock.h) */
  uint8_t *mapped_dev;      /* the device's view of `mapped` */
};

struct gpu_backend {
  atoll_nbackend_cfg cfg;
  int ordinal;
  gpuDeviceProp prop;
  int prio_least, prio_greatest;
  uint32_t occupancy;
  size_t staging_bytes;
  gpu_reset_hook hook;
  gpu_partitions parts; /* bound queues' partitions (gpu_vendor.h); under mu */

  gpuStream_t ctl; /* highest priority: flag and kill-word writes, synchronous copies */
  pthread_mutex_t ctl_mu;

  pthread_mutex_t mu; /* the queue list */
  atoll_nqueue *queues[GPU_MAX_QUEUES];
  uint32_t n_queues;

  /* CU-time of the kernels completed so far, ns (cu_busy): all, RT, BE. Under busy_mu. */
  pthread_mutex_t busy_mu;
  int64_t busy_ns[3];

  /* The preemption record (backend.h preempt_times), under mu: armed by the first set_flag(true)
   * after the last take, when (armed_ns, host clock) every queue's timestamp words were cleared. */
  gpu_clock_map clock;
  bool clock_ok; /* the probe gave a fit; without one the record holds the flag's time alone */
  bool pt_armed;
  int64_t pt_armed_ns, pt_flag_ns;
  uint32_t flags_on; /* queues whose flag is set (under mu) */
};

/* Offsets inside a queue's mapped allocation. */
#define GPU_MAPPED_EXEC_TAG 0
#define GPU_MAPPED_EXEC_SEEN 8
#define GPU_MAPPED_TIMES 16 /* GPU_T_WORDS x 8 bytes, below the status words */
#define GPU_MAPPED_STATUS 64
#define GPU_MAPPED_BYTES (GPU_MAPPED_STATUS + (size_t)GPU_INFLIGHT_MAX * GPU_STATUS_WORDS_PER_SLOT * sizeof(uint32_t))
/* Bytes of a queue's control words: decisions, then the flag, then the kill words. */
#define GPU_CTL_WORDS_END (sizeof(uint64_t) * GPU_INFLIGHT_MAX + sizeof(uint32_t) * (1 + GPU_INFLIGHT_MAX))
/* Then, 8-byte aligned, the persistent launches' tile counters (gpu_clock.h gpu_tile_claim). */
#define GPU_CTL_TILES ((GPU_CTL_WORDS_END + 7) / 8 * 8)
#define GPU_CTL_BYTES (GPU_CTL_TILES + sizeof(uint64_t) * GPU_INFLIGHT_MAX)

/* "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version
 * (cudaErrorInsufficientDriver)": the call, the runtime's text, and its error name when the text
 * is not just the name. */
static void describe(char *buf, size_t len, const char *call, gpuError_t e) {
  const char *text = gpuGetErrorString(e), *name = gpuGetErrorName(e);
  if (strcmp(text, name) == 0)
    snprintf(buf, len, "%s%s: %s", GPU_API_PREFIX, call, text);
  else
    snprintf(buf, len, "%s%s: %s (%s)", GPU_API_PREFIX, call, text, name);
}

static int fail(char *err, size_t err_len, const char *call, gpuError_t e, int code) {
  if (err && err_len) {
    char what[384];
    describe(what, sizeof what, call, e);
    snprintf(err, err_len, "%s: %s", GPU_RUNTIME_NAME, what);
  }
  return code;
}

/* Runtime errors after open have no message channel in the back-end interface: they go to
 * stderr, and the call returns ATOLL_EIO. */
static int report(const char *call, gpuError_t e) {
  char what[384];
  describe(what, sizeof what, call, e);
  fprintf(stderr, "atoll: %s back-end: %s\n", GPU_VENDOR_NAME, what);
  return ATOLL_EIO;
}

/* Writes `bytes` from pinned `src` to device `dst` through the control stream and waits for it. */
/* Makes the instance's GPU the calling thread's current device. The thread's last selection is
 * remembered, so the usual call (a thread working for one instance) costs a comparison; only this
 * file selects devices, so the memory is never stale. */
static thread_local int thread_ordinal = -1;

static gpuError_t use_device(const gpu_backend *be) {
  if (thread_ordinal == be->ordinal)
    return gpuSuccess;
  const gpuError_t e = gpuSetDevice(be->ordinal);
  thread_ordinal = e == gpuSuccess ? be->ordinal : -1;
  return e;
}

static int ctl_write(gpu_backend *be, void *dst, const void *src, size_t bytes) {
  pthread_mutex_lock(&be->ctl_mu);
  gpuError_t e = use_device(be);
  if (e == gpuSuccess)
    e = gpuMemcpyAsync(dst, src, bytes, gpuMemcpyHostToDevice, be->ctl);
  if (e == gpuSuccess)
    e = gpuStreamSynchronize(be->ctl);
  pthread_mutex_unlock(&be->ctl_mu);
  return e == gpuSuccess ? 0 : report("MemcpyAsync (control stream)", e);
}

/* Stores `value` into the pinned word `src` and writes it to `dst`, under the control lock so that
 * two writers of one word cannot overtake each other. */
static int ctl_write_word(gpu_backend *be, uint32_t *dst, uint32_t *src, uint32_t value) {
  pthread_mutex_lock(&be->ctl_mu);
  *src = value;
  gpuError_t e = use_device(be);
  if (e == gpuSuccess)
    e = gpuMemcpyAsync(dst, src, sizeof *src, gpuMemcpyHostToDevice, be->ctl);
  if (e == gpuSuccess)
    e = gpuStreamSynchronize(be->ctl);
  pthread_mutex_unlock(&be->ctl_mu);
  return e == gpuSuccess ? 0 : report("MemcpyAsync (control stream)", e);
}

static size_t staging_bytes_from_env(void) {
  const char *s = getenv("ATOLL_GPU_STAGING_MB");
  char *end = NULL;
  errno = 0;
  unsigned long mb = s && *s ? strtoul(s, &end, 10) : 0;
  if (!s || !*s || errno || *end || mb == 0 || mb > 4096)
    mb = GPU_STAGING_DEFAULT_MB;
  return (size_t)mb << 20;
}

static int ordinal_from_env(void) {
  const char *s = getenv("ATOLL_GPU_DEVICE");
  char *end = NULL;
  long v = s && *s ? strtol(s, &end, 10) : 0;
  return (s && *s && (*end || v < 0 || v > 1023)) ? -1 : (int)v;
}

/* ---- device ---------------------------------------------------------------------------------- */

static void gpu_close(void *p);
static void clock_fit(gpu_backend *be);

static int gpu_open(const atoll_nbackend_cfg *cfg, void **out, char *err, size_t err_len) {
  *out = NULL;
  int count = 0;
  gpuError_t e = gpuGetDeviceCount(&count);
  if (e != gpuSuccess)
    return fail(err, err_len, "GetDeviceCount", e, ATOLL_ENODEV);
  if (count <= 0) {
    snprintf(err, err_len, "%s: no GPU device", GPU_RUNTIME_NAME);
    return ATOLL_ENODEV;
  }
  const int base = ordinal_from_env();
  if (base < 0 || base >= count) {
    snprintf(err, err_len, "ATOLL_GPU_DEVICE: not a device number below %d", count);
    return ATOLL_EINVAL;
  }
  const int ordinal = gpu_device_ordinal(base, cfg->device, cfg->n_devices, count);
  if (ordinal < 0) {
    snprintf(err, err_len, "%s: device %u of %u needs GPU %u from ATOLL_GPU_DEVICE=%d, but %d are present",
             GPU_RUNTIME_NAME, cfg->device, cfg->n_devices, (unsigned)base + cfg->device, base, count);
    return ATOLL_ENODEV;
  }
  gpu_backend *be = (gpu_backend *)calloc(1, sizeof *be);
  if (!be) {
    snprintf(err, err_len, "out of memory");
    return ATOLL_ENOMEM;
  }
  be->cfg = *cfg;
  be->ordinal = ordinal;
  be->staging_bytes = staging_bytes_from_env();
  pthread_mutex_init(&be->ctl_mu, NULL);
  pthread_mutex_init(&be->mu, NULL);
  pthread_mutex_init(&be->busy_mu, NULL);
  int rc = 0;
  if ((e = use_device(be)) != gpuSuccess)
    rc = fail(err, err_len, "SetDevice", e, ATOLL_ENODEV);
  else if ((e = gpuGetDeviceProperties(&be->prop, ordinal)) != gpuSuccess)
    rc = fail(err, err_len, "GetDeviceProperties", e, ATOLL_ENODEV);
  else if ((e = gpuDeviceGetStreamPriorityRange(&be->prio_least, &be->prio_greatest)) != gpuSuccess)
    rc = fail(err, err_len, "DeviceGetStreamPriorityRange", e, ATOLL_ENODEV);
  else if ((e = gpuStreamCreateWithPriority(&be->ctl, gpuStreamNonBlocking, be->prio_greatest)) != gpuSuccess)
    rc = fail(err, err_len, "StreamCreateWithPriority", e, ATOLL_ENODEV);
  if (rc) {
    gpu_close(be);
    return rc;
  }
  if (cfg->cus != 0 && cfg->cus != (uint32_t)be->prop.multiProcessorCount) {
    snprintf(err, err_len, "%s back-end: cannot restrict %s to %u of its %d CUs", GPU_VENDOR_NAME, be->prop.name,
             cfg->cus, be->prop.multiProcessorCount);
    gpu_close(be);
    return ATOLL_ENOTSUP;
  }
  int occ = 0;
  if ((e = atoll__gpu_entry_occupancy(32, &occ)) != gpuSuccess) {
    rc = fail(err, err_len, "OccupancyMaxActiveBlocksPerMultiprocessor", e, ATOLL_ENODEV);
    gpu_close(be);
    return rc;
  }
  int hw = gpu_max_blocks_per_cu(&be->prop);
  be->occupancy = (uint32_t)(hw > 0 && hw < occ ? hw : occ);
  if (atoll__gpu_reset_hook_load(&be->hook, err, err_len) != 0) {
    gpu_close(be);
    return ATOLL_EINVAL;
  }
  if (be->hook.fn)
    fprintf(stderr, "atoll: %s back-end: CU reset through the patched-driver hook %s\n", GPU_VENDOR_NAME,
            be->hook.spec);
  else
    fprintf(stderr,
            "atoll: %s back-end: the driver has no CU reset; preemption falls back to lazy eviction "
            "and in-kernel preemption points (set %s to plug in a patched driver's reset)\n",
            GPU_VENDOR_NAME, ATOLL_GPU_CU_RESET_ENV);
  clock_fit(be);
  *out = be;
  return 0;
}

static void queue_destroy(atoll_nqueue *q);

static void gpu_close(void *p) {
  gpu_backend *be = (gpu_backend *)p;
  if (!be)
    return;
  (void)use_device(be);
  for (uint32_t i = 0; i < be->n_queues; i++)
    queue_destroy(be->queues[i]);
  if (be->ctl)
    (void)gpuStreamDestroy(be->ctl);
  gpu_partitions_release(&be->parts); /* after the streams in them */
  atoll__gpu_reset_hook_unload(&be->hook);
  pthread_mutex_destroy(&be->ctl_mu);
  pthread_mutex_destroy(&be->mu);
  pthread_mutex_destroy(&be->busy_mu);
  free(be);
}

static int gpu_info(void *p, atoll_nbackend_info *out) {
  gpu_backend *be = (gpu_backend *)p;
  memset(out, 0, sizeof *out);
  char arch[64];
  gpu_arch_name(&be->prop, arch, sizeof arch);
  snprintf(out->name, sizeof out->name, "%.40s (%.20s)", be->prop.name, arch);
  out->cus = (uint32_t)be->prop.multiProcessorCount;
  out->max_occupancy = be->occupancy;
  out->can_reset_cus = be->hook.fn != NULL;
  out->can_pad = true;
  return 0;
}

/* ---- memory ---------------------------------------------------------------------------------- */

static int gpu_alloc(void *p, size_t bytes, void **dptr) {
  *dptr = NULL;
  gpuError_t e = use_device((gpu_backend *)p);
  if (e != gpuSuccess)
    return report("SetDevice", e);
  e = gpuMalloc(dptr, bytes ? bytes : 1);
  if (e == gpuSuccess)
    return 0;
  (void)gpuGetLastError(); /* an allocation failure is not sticky: clear it */
  return ATOLL_ENOMEM;
}

static void gpu_free(void *p, void *dptr) {
  if (dptr && use_device((gpu_backend *)p) == gpuSuccess)
    (void)gpuFree(dptr);
}

static int sync_copy(gpu_backend *be, void *dst, const void *src, size_t bytes, bool to_device) {
  pthread_mutex_lock(&be->ctl_mu);
  gpuError_t e = use_device(be);
  if (e == gpuSuccess)
    e = gpuMemcpyAsync(dst, src, bytes, to_device ? gpuMemcpyHostToDevice : gpuMemcpyDeviceToHost, be->ctl);
  if (e == gpuSuccess)
    e = gpuStreamSynchronize(be->ctl);
  pthread_mutex_unlock(&be->ctl_mu);
  return e == gpuSuccess ? 0 : report(to_device ? "MemcpyAsync (to device)" : "MemcpyAsync (from device)", e);
}

static int gpu_copy_to_device(void *p, void *dst, const void *src, size_t bytes) {
  return sync_copy((gpu_backend *)p, dst, src, bytes, true);
}

static int gpu_copy_from_device(void *p, void *dst, const void *src, size_t bytes) {
  return sync_copy((gpu_backend *)p, dst, src, bytes, false);
}

/* ---- queues ---------------------------------------------------------------------------------- */

static void *completer_main(void *arg);

/* atoll priorities: 0 normal, higher served first. Vendor priorities: lower numbers served first,
 * from `least` (the default) down to `greatest`. */
static int vendor_priority(const gpu_backend *be, uint32_t priority) {
  return gpu_vendor_priority(be->prio_least, be->prio_greatest, priority, be->cfg.tuning.top_priority);
}

static int queue_alloc(gpu_backend *be, atoll_nqueue *q, uint32_t priority, const atoll_cuset *cus, char *err,
                       size_t err_len) {
  gpuError_t e;
  void *ptr = NULL;
  if (cus) {
    /* A partition (docs/partitions.md): HIP's CU mask or CUDA's green context (gpu_vendor.h). */
    char why[200] = "";
    pthread_mutex_lock(&be->mu); /* the partition table is the back-end's */
    e = gpu_stream_create_on_cus(&be->parts, be->ordinal, &be->prop, cus, vendor_priority(be, priority), &q->stream,
                                 why, sizeof why);
    pthread_mutex_unlock(&be->mu);
    if (e != gpuSuccess) {
      snprintf(err, err_len, "%s back-end: cannot bind a queue to CUs: %s", GPU_VENDOR_NAME, why);
      return ATOLL_ENOTSUP;
    }
  } else if ((e = gpuStreamCreateWithPriority(&q->stream, gpuStreamNonBlocking, vendor_priority(be, priority))) !=
             gpuSuccess) {
    return report("StreamCreateWithPriority", e);
  }
  /* One block of control words: decisions first (8-byte aligned), then the flag and kill words. */
  if ((e = gpuMallocCoherent(&ptr, GPU_CTL_BYTES)) != gpuSuccess)
    return report(GPU_COHERENT_ALLOC_NAME, e);
  q->decision_dev = (uint64_t *)ptr;
  q->flag_dev = (uint32_t *)(q->decision_dev + GPU_INFLIGHT_MAX);
  q->kill_dev = q->flag_dev + 1;
  q->tile_dev = (uint64_t *)((uint8_t *)ptr + GPU_CTL_TILES);
  if ((e = gpuHostAllocMapped(&ptr, GPU_CTL_BYTES)) != gpuSuccess)
    return report(GPU_HOST_ALLOC_NAME, e);
  q->decision_host = (uint64_t *)ptr;
  q->flag_src = (uint32_t *)(q->decision_host + GPU_INFLIGHT_MAX);
  q->kill_src = q->flag_src + 1;
  memset(q->decision_host, 0, GPU_CTL_BYTES);
  if ((e = gpuHostAllocMapped(&ptr, GPU_MAPPED_BYTES)) != gpuSuccess)
    return report(GPU_HOST_ALLOC_NAME, e);
  q->mapped = (uint8_t *)ptr;
  memset(q->mapped, 0, GPU_MAPPED_BYTES);
  q->exec_tag = (uint64_t *)(q->mapped + GPU_MAPPED_EXEC_TAG);
  q->exec_seen = (uint32_t *)(q->mapped + GPU_MAPPED_EXEC_SEEN);
  q->status = (uint32_t *)(q->mapped + GPU_MAPPED_STATUS);
  q->times = (volatile uint64_t *)(q->mapped + GPU_MAPPED_TIMES);
  if ((e = gpuHostGetDevicePointer(&ptr, q->mapped)) != gpuSuccess)
    return report("HostGetDevicePointer", e);
  q->mapped_dev = (uint8_t *)ptr;
  if ((e = gpuHostAllocMapped(&ptr, be->staging_bytes)) != gpuSuccess)
    return report(GPU_HOST_ALLOC_NAME, e);
  q->stage_host = (uint8_t *)ptr;
  if ((e = gpuHostGetDevicePointer(&ptr, q->stage_host)) != gpuSuccess)
    return report("HostGetDevicePointer", e);
  q->stage_dev = (uint8_t *)ptr;
  gpu_staging_init(&q->stage, be->staging_bytes);
  /* Timing events (not gpuEventDisableTiming): the pair around each launch gives its device time. */
  for (uint32_t i = 0; i < GPU_INFLIGHT_MAX; i++)
    if ((e = gpuEventCreateWithFlags(&q->ring[i].done, gpuEventDefault)) != gpuSuccess ||
        (e = gpuEventCreateWithFlags(&q->ring[i].begin, gpuEventDefault)) != gpuSuccess)
      return report("EventCreateWithFlags", e);
  /* The flag, every kill word and every decision word start clear (sequence numbers start at 1). */
  q->next_seq = 1;
  return ctl_write(be, q->decision_dev, q->decision_host, GPU_CTL_BYTES);
}

static int create_queue_on(gpu_backend *be, uint32_t priority, const atoll_cuset *cus, atoll_nqueue **out, char *err,
                           size_t err_len) {
  *out = NULL;
  atoll_nqueue *q = (atoll_nqueue *)calloc(1, sizeof *q);
  if (!q)
    return ATOLL_ENOMEM;
  q->be = be;
  pthread_mutex_init(&q->mu, NULL);
  pthread_cond_init(&q->work, NULL);
  pthread_cond_init(&q->room, NULL);
  q->bound = cus != NULL;
  q->vendor_prio = vendor_priority(be, priority);
  const gpuError_t dev = use_device(be);
  int rc = dev == gpuSuccess ? queue_alloc(be, q, priority, cus, err, err_len) : report("SetDevice", dev);
  if (rc == 0) {
    if (pthread_create(&q->completer, NULL, completer_main, q) != 0)
      rc = ATOLL_ENOMEM;
    else
      q->completer_started = true;
  }
  pthread_mutex_lock(&be->mu);
  if (rc == 0 && be->n_queues == GPU_MAX_QUEUES)
    rc = ATOLL_EFULL;
  if (rc == 0)
    be->queues[be->n_queues++] = q;
  pthread_mutex_unlock(&be->mu);
  if (rc) {
    queue_destroy(q);
    return rc;
  }
  *out = q;
  return 0;
}

static int gpu_create_queue(void *p, uint32_t priority, atoll_nqueue **out) {
  char err[256];
  return create_queue_on((gpu_backend *)p, priority, NULL, out, err, sizeof err);
}

/* A CU set a queue is bound or moved to: non-empty and inside the device. Checked before any
 * stream is made, so a bad set is refused the same way whether the queue is new or moving. */
static int check_cuset(const gpu_backend *be, const atoll_cuset *cus, char *err, size_t err_len) {
  uint32_t end = gpu_cuset_end(cus);
  if (end == 0 || end > (uint32_t)be->prop.multiProcessorCount) {
    snprintf(err, err_len, "%s back-end: a CU set must name CUs of the device's %d", GPU_VENDOR_NAME,
             be->prop.multiProcessorCount);
    return ATOLL_EINVAL;
  }
  return 0;
}

static int gpu_create_bound_queue(void *p, uint32_t priority, const atoll_cuset *cus, atoll_nqueue **out, char *err,
                                  size_t err_len) {
  gpu_backend *be = (gpu_backend *)p;
  int rc = check_cuset(be, cus, err, err_len);
  if (rc)
    return rc;
  return create_queue_on(be, priority, cus, out, err, err_len);
}

/* A re-provisioned share (backend.h rebind_queue, docs/gslice.md "Native"): the shadow is a
 * stream on the new CUs (CUDA: in a green context of the set's SM count, gpu_vendor.h; HIP: CU
 * masked), made while the old stream still serves; the switch swaps it in under the queue's mutex
 * once nothing is in flight, and the old stream is destroyed. The ring's events, the control words
 * and the staging belong to the queue, not the stream, so they carry over. */
static int gpu_rebind_queue(void *p, atoll_nqueue *q, const atoll_cuset *cus, char *err, size_t err_len) {
  gpu_backend *be = (gpu_backend *)p;
  int rc = check_cuset(be, cus, err, err_len);
  if (rc)
    return rc;
  pthread_mutex_lock(&q->mu);
  const bool busy = q->count != 0;
  pthread_mutex_unlock(&q->mu);
  if (busy) {
    snprintf(err, err_len, "%s back-end: a queue moves to other CUs only with nothing in flight", GPU_VENDOR_NAME);
    return ATOLL_EINVAL;
  }
  gpuError_t e = use_device(be);
  if (e != gpuSuccess)
    return report("SetDevice", e);
  char why[200] = "";
  gpuStream_t shadow;
  pthread_mutex_lock(&be->mu); /* the partition table is the back-end's */
  e = gpu_stream_move_to_cus(&be->parts, be->ordinal, &be->prop, cus, q->vendor_prio, &shadow, why, sizeof why);
  pthread_mutex_unlock(&be->mu);
  if (e != gpuSuccess) {
    snprintf(err, err_len, "%s back-end: cannot move a queue to other CUs: %s", GPU_VENDOR_NAME, why);
    return ATOLL_ENOTSUP;
  }
  pthread_mutex_lock(&q->mu);
  gpuStream_t old = q->stream;
  q->stream = shadow;
  q->bound = true;
  pthread_mutex_unlock(&q->mu);
  (void)gpuStreamDestroy(old);
  return 0;
}

/* Stops the completion thread once every launch in flight has completed, then frees the queue. */
static void queue_destroy(atoll_nqueue *q) {
  if (q->completer_started) {
    pthread_mutex_lock(&q->mu);
    q->stop = true;
    pthread_cond_signal(&q->work);
    pthread_mutex_unlock(&q->mu);
    pthread_join(q->completer, NULL);
  }
  for (uint32_t i = 0; i < GPU_INFLIGHT_MAX; i++) {
    if (q->ring[i].done)
      (void)gpuEventDestroy(q->ring[i].done);
    if (q->ring[i].begin)
      (void)gpuEventDestroy(q->ring[i].begin);
  }
  if (q->stream)
    (void)gpuStreamDestroy(q->stream);
  if (q->decision_dev)
    (void)gpuFree(q->decision_dev);
  if (q->decision_host)
    (void)gpuFreeHost(q->decision_host);
  if (q->mapped)
    (void)gpuFreeHost(q->mapped);
  if (q->stage_host)
    (void)gpuFreeHost(q->stage_host);
  pthread_mutex_destroy(&q->mu);
  pthread_cond_destroy(&q->work);
  pthread_cond_destroy(&q->room);
  free(q);
}

/* ---- launches -------------------------------------------------------------------------------- */

/* The descriptor fields every launch of slot `slot` shares: tag, sequence number, control words. */
static void desc_init(atoll_nqueue *q, uint32_t slot, gpu_inflight *e, uint64_t tag, gpu_launch_desc *d) {
  memset(d, 0, sizeof *d);
  d->tag = tag;
  d->seq = e->seq = q->next_seq++;
  d->flag = q->flag_dev;
  d->kill = q->kill_dev + slot;
  d->decision = q->decision_dev + slot;
  d->exec_tag = (volatile uint64_t *)(q->mapped_dev + GPU_MAPPED_EXEC_TAG);
  d->exec_seen = (volatile uint32_t *)(q->mapped_dev + GPU_MAPPED_EXEC_SEEN);
  d->status = (volatile uint32_t *)(q->mapped_dev + GPU_MAPPED_STATUS) + (size_t)slot * GPU_STATUS_WORDS_PER_SLOT;
  d->times = (volatile uint64_t *)(q->mapped_dev + GPU_MAPPED_TIMES);
  d->tile = q->tile_dev + slot;
}

static int launch_desc(atoll_nqueue *q, const gpu_launch_desc *d) {
  uint32_t threads = 0;
  uint32_t blocks = gpu_launch_shape(d, &threads);
  if (blocks == 0)
    return ATOLL_EINVAL;
  if (d->flags & GPU_LF_PERSISTENT) /* blocks that take the tiles in turn (gpu_entry.h) */
    blocks = gpu_persistent_grid(blocks, (uint32_t)q->be->prop.multiProcessorCount, q->be->occupancy);
  gpuError_t err = atoll__gpu_launch(d, blocks, threads, q->stream);
  return err == gpuSuccess ? 0 : report("LaunchKernel", err);
}

static int submit_kernel(atoll_nqueue *q, uint32_t slot, const atoll_nlaunch *l, gpu_inflight *e) {
  const uint32_t n_parts = l->kind == ATOLL_NL_PADDED ? l->n_parts : 0;
  if (n_parts > ATOLL_NPAD_MAX || l->k.kernel == 0 || gpu_is_builtin(l->k.kernel))
    return ATOLL_EINVAL;
  gpu_launch_desc d;
  desc_init(q, slot, e, l->tag, &d);
  d.n_ranges = 1 + n_parts;
  gpu_range_from(&d.r[0], &l->k);
  e->tags[0] = l->tag;
  for (uint32_t i = 0; i < n_parts; i++) {
    if (gpu_is_builtin(l->parts[i].kernel))
      return ATOLL_EINVAL;
    gpu_range_from(&d.r[1 + i], &l->parts[i]);
    e->tags[1 + i] = l->parts[i].tag;
  }
  e->n_tags = d.n_ranges;
  e->is_kernel = true;
  e->rt = l->rt != 0;
  d.flags = gpu_launch_flags(e->rt, &q->be->cfg.tuning);
  if (n_parts > 0)
    d.flags &= ~GPU_LF_PERSISTENT; /* a padded launch's ranges keep their own blocks */
  for (uint32_t i = 0; i < d.n_ranges; i++)
    e->blocks += d.r[i].block_n;
  return launch_desc(q, &d);
}

/* Reserves staging for a copy, waiting for older copies of the queue to complete when the ring is
 * full (the only case in which submit waits). Called with q->mu held. */
static int reserve_staging(atoll_nqueue *q, size_t bytes, gpu_inflight *e) {
  int rc;
  while ((rc = gpu_staging_alloc(&q->stage, bytes, &e->stage_off, &e->stage_span)) == ATOLL_EFULL)
    pthread_cond_wait(&q->room, &q->mu);
  return rc;
}

/* Copies and memsets: one range of the built-in body (gpu_launch.h), 16 bytes per thread and
 * round, on up to 8 blocks per CU. Host data goes through the queue's mapped staging buffer. */
static int submit_copy(atoll_nqueue *q, uint32_t slot, const atoll_nlaunch *l, gpu_inflight *e) {
  gpu_launch_desc d;
  desc_init(q, slot, e, l->tag, &d);
  d.n_ranges = 1;
  e->n_tags = 1;
  e->tags[0] = l->tag;
  gpu_range *r = &d.r[0];
  r->kernel = l->kind == ATOLL_NL_MEMSET ? GPU_K_MEMSET : GPU_K_COPY;
  r->args.p[0] = l->dst;
  r->args.i[0] = (int32_t)(uint32_t)l->bytes;
  r->args.i[1] = (int32_t)(uint32_t)((uint64_t)l->bytes >> 32);
  r->args.i[2] = l->value;
  if (l->kind != ATOLL_NL_MEMSET) {
    int rc = reserve_staging(q, l->bytes, e);
    if (rc)
      return rc;
    if (l->kind == ATOLL_NL_COPY_H2D) {
      memcpy(q->stage_host + e->stage_off, l->src, l->bytes);
      r->args.p[1] = q->stage_dev + e->stage_off;
    } else {
      e->d2h_dst = l->dst;
      e->d2h_bytes = l->bytes;
      r->args.p[0] = q->stage_dev + e->stage_off;
      r->args.p[1] = (void *)l->src;
    }
  }
  const uint64_t per_block = (uint64_t)GPU_COPY_THREADS * 16;
  uint64_t blocks = ((uint64_t)l->bytes + per_block - 1) / per_block;
  const uint64_t most = 8 * (uint64_t)q->be->prop.multiProcessorCount;
  blocks = blocks < 1 ? 1 : blocks > most ? most : blocks;
  r->grid = r->block_n = (uint32_t)blocks;
  r->threads = GPU_COPY_THREADS;
  return launch_desc(q, &d);
}

static int gpu_submit(void *p, atoll_nqueue *q, const atoll_nlaunch *l) {
  (void)p;
  if (l->kind == ATOLL_NL_PADDED && q->bound)
    return ATOLL_ENOTSUP; /* padding places parts over the whole device (backend.h) */
  const gpuError_t dev = use_device(q->be);
  if (dev != gpuSuccess)
    return report("SetDevice", dev);
  pthread_mutex_lock(&q->mu);
  if (q->count == GPU_INFLIGHT_MAX) {
    pthread_mutex_unlock(&q->mu);
    return ATOLL_EFULL;
  }
  const uint32_t slot = (q->head + q->count) % GPU_INFLIGHT_MAX;
  gpu_inflight *e = &q->ring[slot];
  gpuEvent_t done = e->done, begin = e->begin;
  memset(e, 0, sizeof *e);
  e->done = done;
  e->begin = begin;
  int rc;
  gpuError_t berr = gpuEventRecord(e->begin, q->stream);
  if (berr != gpuSuccess) {
    pthread_mutex_unlock(&q->mu);
    return report("EventRecord", berr);
  }
  switch (l->kind) {
  case ATOLL_NL_KERNEL:
  case ATOLL_NL_PADDED:
    rc = submit_kernel(q, slot, l, e);
    break;
  case ATOLL_NL_COPY_H2D:
  case ATOLL_NL_COPY_D2H:
  case ATOLL_NL_MEMSET:
    rc = submit_copy(q, slot, l, e);
    break;
  default:
    rc = ATOLL_EINVAL;
  }
  if (rc == 0) {
    gpuError_t err = gpuEventRecord(e->done, q->stream);
    if (err != gpuSuccess)
      rc = report("EventRecord", err);
  }
  if (rc == 0) {
    q->count++;
    pthread_cond_signal(&q->work);
  } else if (e->stage_span) {
    gpu_staging_undo_newest(&q->stage, e->stage_span); /* the failed copy's staging */
  }
  pthread_mutex_unlock(&q->mu);
  return rc;
}

/* ---- completion ------------------------------------------------------------------------------ */

/* Waits for each launch of the queue in order, reads its outcome, and reports it. The outcome is
 * read and D2H data is copied out of staging before the slot is released; callbacks run with no
 * lock held, so the runtime may submit from them. */
static void *completer_main(void *arg) {
  atoll_nqueue *q = (atoll_nqueue *)arg;
  const gpuError_t dev = use_device(q->be);
  if (dev != gpuSuccess)
    report("SetDevice", dev); /* its events then fail to synchronise, and their launches fault */
  pthread_mutex_lock(&q->mu);
  for (;;) {
    while (q->count == 0 && !q->stop)
      pthread_cond_wait(&q->work, &q->mu);
    if (q->count == 0)
      break;
    const uint32_t slot = q->head;
    gpu_inflight *e = &q->ring[slot];
    pthread_mutex_unlock(&q->mu);

    const gpuError_t err = gpuEventSynchronize(e->done);
    if (err != gpuSuccess)
      report("EventSynchronize", err);
    uint32_t *words = q->status + (size_t)slot * GPU_STATUS_WORDS_PER_SLOT;
    /* D2H data leaves staging only when the copy ran: after an eviction the staging holds an older
     * copy's bytes. Before the slot is released and the completion reported; a copy is never
     * killed, so its outcome does not depend on reset_cus's marks. */
    if (e->d2h_dst && gpu_launch_outcome(err != gpuSuccess, 0, words) == ATOLL_ND_OK)
      memcpy(e->d2h_dst, q->stage_host + e->stage_off, e->d2h_bytes);
    /* CU busy, from the device's own clock: the events around the kernel give its time on the
     * device; its CU-time is that times the CUs its blocks cover (at most all of them). */
    float ms = 0;
    if (e->is_kernel && err == gpuSuccess && gpuEventElapsedTime(&ms, e->begin, e->done) == gpuSuccess && ms > 0) {
      const uint32_t cus = (uint32_t)q->be->prop.multiProcessorCount;
      const int64_t cu_ns = (int64_t)((double)ms * 1e6) * (int64_t)(e->blocks < cus ? e->blocks : cus);
      pthread_mutex_lock(&q->be->busy_mu);
      q->be->busy_ns[0] += cu_ns;
      q->be->busy_ns[e->rt ? 1 : 2] += cu_ns;
      pthread_mutex_unlock(&q->be->busy_mu);
    }

    pthread_mutex_lock(&q->mu); /* reset_cus marks launches killed under it */
    atoll_ndone_status st[GPU_MAX_RANGES];
    uint64_t tags[GPU_MAX_RANGES];
    const uint32_t n_tags = e->n_tags;
    /* Every launch, copies included, reads its status words: a copy the flag evicted used to be
     * reported OK with stale staging copied to its destination (docs/native-gpu.md, "restarted at
     * op 18: output differs"). */
    for (uint32_t i = 0; i < n_tags; i++) {
      tags[i] = e->tags[i];
      st[i] = gpu_launch_outcome(err != gpuSuccess, e->killed, words + (size_t)i * GPU_ST_WORDS);
    }
    memset(words, 0, sizeof(uint32_t) * GPU_STATUS_WORDS_PER_SLOT);
    if (e->killed)
      ctl_write_word(q->be, q->kill_dev + slot, q->kill_src + slot, 0);
    if (e->stage_span) {
      gpu_staging_release(&q->stage, e->stage_span);
      pthread_cond_broadcast(&q->room);
    }
    q->head = (q->head + 1) % GPU_INFLIGHT_MAX;
    q->count--;
    pthread_mutex_unlock(&q->mu);

    /* Padded launches: the BE parts first, then the launch itself (backend.h). */
    if (q->be->cfg.on_complete) {
      for (uint32_t i = 1; i < n_tags; i++)
        q->be->cfg.on_complete(q->be->cfg.ctx, tags[i], st[i]);
      q->be->cfg.on_complete(q->be->cfg.ctx, tags[0], st[0]);
    }
    pthread_mutex_lock(&q->mu);
  }
  pthread_mutex_unlock(&q->mu);
  return NULL;
}

/* ---- preemption mechanism -------------------------------------------------------------------- */

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int gpu_set_flag(void *p, atoll_nqueue *q, bool on) {
  gpu_backend *be = (gpu_backend *)p;
  if (on && !*q->flag_src) {
    /* A new preemption's record: clear every queue's timestamp words before the flag can evict. A
     * flag raised while no other is up starts a new preemption, and re-arms a record never taken. */
    pthread_mutex_lock(&be->mu);
    if (!be->pt_armed || be->flags_on == 0) {
      for (uint32_t i = 0; i < be->n_queues; i++)
        for (int w = 0; w < GPU_T_WORDS; w++)
          be->queues[i]->times[w] = 0;
      __atomic_thread_fence(__ATOMIC_SEQ_CST);
      be->pt_armed = true;
      be->pt_armed_ns = mono_ns();
      be->pt_flag_ns = 0;
    }
    be->flags_on++;
    pthread_mutex_unlock(&be->mu);
  } else if (!on && *q->flag_src) {
    pthread_mutex_lock(&be->mu);
    be->flags_on--;
    pthread_mutex_unlock(&be->mu);
  }
  const int rc = ctl_write_word(be, q->flag_dev, q->flag_src, on ? 1u : 0u);
  if (on && rc == 0) {
    const int64_t t = mono_ns(); /* the control stream's copy completed: the flag is on the device */
    pthread_mutex_lock(&be->mu);
    if (be->pt_armed && be->pt_flag_ns == 0)
      be->pt_flag_ns = t;
    pthread_mutex_unlock(&be->mu);
  }
  return rc;
}

static int gpu_preempt_times(void *p, atoll_npreempt_times *out) {
  gpu_backend *be = (gpu_backend *)p;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&be->mu);
  if (be->pt_armed) {
    out->flag_ns = be->pt_flag_ns;
    for (uint32_t i = 0; be->clock_ok && i < be->n_queues; i++)
      gpu_times_fold(out, be->queues[i]->times, &be->clock, be->pt_armed_ns);
  }
  be->pt_armed = false;
  pthread_mutex_unlock(&be->mu);
  return 0;
}

/* The clock map (gpu_clock.h): the probe kernel writes the device clock into mapped memory; the
 * host reads it between two readings of its own clock, keeping the narrowest window, twice, 5 ms
 * apart. Without a fit (the probe did not start) clock_ok stays false and the record holds the
 * flag's time alone: the critical path then needs device marks it does not have (none is made). */
static void clock_fit(gpu_backend *be) {
  void *ptr = NULL;
  if (gpuHostAllocMapped(&ptr, 64) != gpuSuccess)
    return;
  volatile uint64_t *word = (volatile uint64_t *)ptr;
  volatile uint32_t *stop = (volatile uint32_t *)((uint8_t *)ptr + 8);
  *word = 0;
  *stop = 0;
  void *dev = NULL;
  uint64_t d[2] = {0, 0};
  int64_t h[2] = {0, 0};
  if (gpuHostGetDevicePointer(&dev, ptr) == gpuSuccess &&
      atoll__gpu_clock_probe((volatile uint64_t *)dev, (const volatile uint32_t *)((uint8_t *)dev + 8), be->ctl) ==
          gpuSuccess) {
    const int64_t give_up = mono_ns() + 2000000000;
    while (*word == 0 && mono_ns() < give_up)
      ;
    for (int k = 0; k < 2 && *word != 0; k++) {
      if (k == 1)
        for (const int64_t until = mono_ns() + 5000000; mono_ns() < until;)
          ;
      int64_t best = INT64_MAX;
      for (int i = 0; i < 200; i++) {
        const int64_t h0 = mono_ns();
        const uint64_t v = *word;
        const int64_t h1 = mono_ns();
        if (h1 - h0 < best)
          best = h1 - h0, d[k] = v, h[k] = h0 + (h1 - h0) / 2;
      }
    }
    *stop = 1;
    (void)gpuStreamSynchronize(be->ctl);
  }
  if (d[0] && d[1]) {
    be->clock = gpu_clock_fit(d[0], h[0], d[1], h[1]);
    be->clock_ok = true;
  }
  (void)gpuFreeHost(ptr);
}

static int gpu_exec_index(void *p, atoll_nqueue *q, uint64_t *tag) {
  (void)p;
  if (!__atomic_load_n(q->exec_seen, __ATOMIC_ACQUIRE))
    return ATOLL_ENOENT;
  *tag = __atomic_load_n(q->exec_tag, __ATOMIC_ACQUIRE);
  return 0;
}

/* Kills the launches of one queue that have started (their decision word says RUN): sets their
 * kill words, so running blocks stop at their next preemption point and blocks not yet started
 * never start. Launches still undecided are left to the flag. Called with q->mu held. */
static int kill_started(gpu_backend *be, atoll_nqueue *q) {
  pthread_mutex_lock(&be->ctl_mu);
  gpuError_t e = use_device(be);
  if (e == gpuSuccess)
    e = gpuMemcpyAsync(q->decision_host, q->decision_dev, sizeof(uint64_t) * GPU_INFLIGHT_MAX,
                                gpuMemcpyDeviceToHost, be->ctl);
  if (e == gpuSuccess)
    e = gpuStreamSynchronize(be->ctl);
  pthread_mutex_unlock(&be->ctl_mu);
  if (e != gpuSuccess)
    return report("MemcpyAsync (decision words)", e);
  uint32_t n_killed = 0;
  for (uint32_t k = 0; k < q->count; k++) {
    const uint32_t slot = (q->head + k) % GPU_INFLIGHT_MAX;
    gpu_inflight *f = &q->ring[slot];
    if (f->is_kernel && !f->killed && gpu_launch_started(q->decision_host[slot], f->seq)) {
      f->killed = true;
      q->kill_src[slot] = 1;
      n_killed++;
    }
  }
  return n_killed ? ctl_write(be, q->kill_dev, q->kill_src, sizeof(uint32_t) * GPU_INFLIGHT_MAX) : 0;
}

/* reset_cus without a CU reset in the driver: kill the started launches of every queue through
 * their kill words; with a patched driver's reset plugged in, call it afterwards. */
static int gpu_reset_cus(void *p) {
  gpu_backend *be = (gpu_backend *)p;
  int rc = 0;
  pthread_mutex_lock(&be->mu);
  for (uint32_t qi = 0; qi < be->n_queues && rc == 0; qi++) {
    atoll_nqueue *q = be->queues[qi];
    pthread_mutex_lock(&q->mu);
    if (q->count > 0)
      rc = kill_started(be, q);
    pthread_mutex_unlock(&q->mu);
  }
  pthread_mutex_unlock(&be->mu);
  if (rc == 0 && be->hook.fn && be->hook.fn(be->ordinal) != 0) {
    fprintf(stderr, "atoll: %s back-end: the CU reset hook %s failed\n", GPU_VENDOR_NAME, be->hook.spec);
    rc = ATOLL_EIO;
  }
  return rc;
}

/* CU-time integrals (backend.h cu_busy) from the device's timing events, per completed kernel:
 * overlapping kernels of different queues each count their own CUs, so the sum may exceed the
 * device's CU count times the wall time when they share CUs (the report divides by it). */
static int gpu_cu_busy(void *p, int64_t *busy_ns, int64_t *rt_ns, int64_t *be_ns) {
  gpu_backend *be = (gpu_backend *)p;
  pthread_mutex_lock(&be->busy_mu);
  *busy_ns = be->busy_ns[0];
  *rt_ns = be->busy_ns[1];
  *be_ns = be->busy_ns[2];
  pthread_mutex_unlock(&be->busy_mu);
  return 0;
}

/* ---- module ---------------------------------------------------------------------------------- */

static const atoll_nbackend_ops gpu_ops = {
    GPU_VENDOR_NAME,
    gpu_open,
    gpu_close,
    gpu_info,
    gpu_alloc,
    gpu_free,
    gpu_copy_to_device,
    gpu_copy_from_device,
    gpu_create_queue,
    gpu_submit,
    gpu_set_flag,
    gpu_exec_index,
    gpu_reset_cus,
    gpu_cu_busy,
    gpu_create_bound_queue,
    gpu_preempt_times,
    gpu_rebind_queue,
};

extern "C" __attribute__((visibility("default"))) const atoll_nbackend_ops *atoll_nbackend_module(void) {
  return &gpu_ops;
}
