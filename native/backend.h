/* backend.h — what a native back-end (CPU threads, CUDA, HIP) provides to the native runtime.
 *
 * The runtime (native/runtime/) holds everything REEF changed inside the vendor runtime and is shared by
 * all back-ends: per-stream host queues and their transmit threads, the device-queue capacity
 * (in-flight bound), the GC thread that reclaims evicted commands, the preempt flags and execution
 * indices, the scheduler thread running the core's policy. A back-end is thin: memory, copies,
 * hardware queues that execute launches in order, the preempt flag and execution index in device
 * memory, and — where the hardware allows — a CU reset. It knows nothing of policy.
 *
 * Kernel launches name a kernel of the kernel library (native/kernels) by id with its argument
 * slots; every launched block first runs the preemptor prologue in the back-end's block wrapper:
 * if the queue's preempt flag is set the block exits at once (lazy eviction), otherwise it records
 * the launch's tag as the queue's execution index, then runs the kernel body.
 *
 * Completion is reported by the back-end calling cfg->on_complete from one of its threads (never
 * from inside a call the runtime made while holding its locks).
 *
 * Semantics every back-end keeps (the core and the simulated device count on them):
 *   - The prologue's decision is per LAUNCH: the first block to run it reads the flag and decides
 *     for the whole launch (a per-launch word, e.g. set by compare-and-swap on a GPU). A launch is
 *     therefore evicted whole (every block exits, status EVICTED) or runs whole; a launch that
 *     started is never cut short by a flag set later, only by a CU reset. The wait policy relies
 *     on this: it lets a started kernel finish and counts its work.
 *   - reset_cus kills every launch with blocks resident on the CUs: their running blocks stop at
 *     their next preemption point, their blocks not yet started never start, and the launch
 *     completes with status KILLED (even if, by chance, every block had ended). Launches still
 *     queued are not touched (the flag evicts them). It returns once the killed blocks have
 *     stopped where the back-end can tell (CPU), else as soon as the reset is issued. By launch
 *     state (docs/native-gpu.md, "What a kill means"): queued: untouched; dispatched with no block
 *     run: untouched, or KILLED/EVICTED (the flag first) where the back-end's kill reaches it;
 *     running: KILLED; finished but not yet reported: KILLED where the back-end cannot tell it from
 *     running (GPUs), so several launches of a queue may complete KILLED; reported: OK. Copies
 *     and memsets are never killed (OK or EVICTED).
 *   - Completions of one queue are reported in submission order; a padded launch reports each BE
 *     part (with the part's tag) before the launch itself.
 *
 * Additions since the first version of this contract (all optional, all appended): cfg->on_start,
 * atoll_nlaunch.rt, the cu_busy op, cfg->fault_kernel_p / fault_seed (fault injection), and the
 * create_bound_queue op (spatial partitions, docs/partitions.md), batched kernel ranges
 * (atoll_nkernel_range.batch, ptr_stride), cfg->class_workers, the preempt_times op (the device's
 * own timestamps of a preemption's steps) and cfg->tuning (the preemption-latency options,
 * docs/native-gpu.md). */
#ifndef ATOLL_NATIVE_BACKEND_H
#define ATOLL_NATIVE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atoll/cuset.h"
#include "native/kernels/ak.h"

#define ATOLL_NPAD_MAX 8 /* BE parts in one padded launch */

typedef enum atoll_nlaunch_kind {
  ATOLL_NL_KERNEL,
  ATOLL_NL_PADDED, /* one RT kernel + BE block ranges as one launch (REEF §5) */
  ATOLL_NL_COPY_H2D,
  ATOLL_NL_COPY_D2H,
  ATOLL_NL_MEMSET
} atoll_nlaunch_kind;

/* A block range of one library kernel. */
typedef struct atoll_nkernel_range {
  uint32_t kernel;    /* kernel-library id */
  ak_args args;
  uint32_t grid;      /* the kernel's full grid (blocks) */
  uint32_t threads;   /* threads per block */
  uint32_t block_lo, block_n; /* the blocks to run: [block_lo, block_lo + block_n) */
  uint32_t occupancy; /* resident blocks per CU */
  uint32_t cus;       /* padded launches: CUs given to this part (0 = any) */
  uint64_t tag;       /* the runtime's tag for this range (echoed on completion) */
  /* A batched launch (docs/native.md, "Batching"): the kernel runs `batch` instances (0 and 1:
   * one), each on its own tensors. Its blocks are numbered over the instances, [0, batch * grid):
   * block b runs block b mod grid of instance b / grid, whose pointer slot s is args.p[s] advanced
   * by instance * ptr_stride[s] bytes (0: the instances share it, e.g. weights). block_lo and
   * block_n count in that numbering. */
  uint32_t batch;
  uint64_t ptr_stride[AK_MAX_PTRS];
} atoll_nkernel_range;

typedef struct atoll_nlaunch {
  atoll_nlaunch_kind kind;
  uint64_t tag;       /* recorded as execution index by the prologue; echoed on completion */
  atoll_nkernel_range k;                   /* KERNEL, and the RT part of PADDED */
  atoll_nkernel_range parts[ATOLL_NPAD_MAX]; /* PADDED: the BE parts */
  uint32_t n_parts;
  /* Copies and memset. Host pointers are the runtime's; device pointers come from alloc. An H2D
   * source must stay unchanged until the copy completes (the CPU back-end reads it when the copy
   * runs; the GPU back-ends and cpu-gpu stage it at submit); a D2H destination holds the data when
   * the copy's completion is reported, not before, and is not written when the copy is evicted. */
  void *dst;
  const void *src;
  size_t bytes;
  int value;
  uint8_t rt; /* real-time work (for the CU-time split of cu_busy and for traces) */
} atoll_nlaunch;

typedef enum atoll_ndone_status {
  ATOLL_ND_OK,      /* ran to completion */
  ATOLL_ND_EVICTED, /* its blocks exited in the prologue (flag set) */
  ATOLL_ND_KILLED,  /* a CU reset abandoned at least one block */
  ATOLL_ND_FAULT    /* the kernel faulted (fault injection, device error) */
} atoll_ndone_status;

/* Preemption-latency options (docs/native-gpu.md, "Preemption latency options"), all off by
 * default. The back-end passes them to every block (ak_ctx): */
typedef struct atoll_npreempt_tuning {
  /* Extra preemption points inside a tile of the long kernels (gemm's K panel, conv's channel
   * loop): a killed block leaves after a fraction of a tile instead of a whole one. */
  uint8_t dense_points;
  /* The loops that poll the kill word every so many steps (spin, the element-wise kernels' row
   * loops) poll it 2^kill_poll_shift times as often (0: as written; at most 8). */
  uint8_t kill_poll_shift;
  /* A queue of priority above 0 (the RT queue under a reset policy's priority option; dart's RT
   * streams, which the native runner always gives it) gets the vendor's greatest stream priority
   * rather than one level above the default (GPU back-ends; the CPU back-end orders queues by
   * priority alone, so it changes nothing there, but its GPU-like mode reports the priority a GPU
   * back-end would give: atoll_ncpu_worker_vendor_priority). */
  uint8_t top_priority;
  /* BE kernels run as persistent blocks (GPU back-ends): at most as many blocks as fit on the
   * device at once, each taking the kernel's blocks ("tiles") one after another and yielding at a
   * tile boundary once the launch is killed, so a kill waits for one tile rather than for blocks
   * the hardware dispatches later. The CPU back-end's workers already take blocks one at a time
   * and stop taking them at a kill, so it changes nothing there. */
  uint8_t persistent_be;
} atoll_npreempt_tuning;

/* A preemption's steps as the device saw them, on CLOCK_MONOTONIC (a GPU back-end converts its
 * device clock, docs/native-gpu.md); 0 where the step was not seen. The first set_flag(true) after
 * the last preempt_times call arms the record (clearing it) and gives flag_ns; until the next call
 * the back-end keeps the latest launch the flag evicted (its prologue exit, drain_ns), the latest
 * block a kill stopped (kill_ns) and the first RT kernel launch's first block past its prologue
 * (rt_start_ns). */
typedef struct atoll_npreempt_times {
  int64_t flag_ns, drain_ns, kill_ns, rt_start_ns;
} atoll_npreempt_times;

typedef struct atoll_nbackend_cfg {
  uint32_t cus;             /* 0: the device's own count */
  uint32_t slots_per_cu;    /* CPU back-end: max resident blocks per worker; 0: default */
  bool pin_threads;         /* CPU back-end: pin CU workers to cores */
  /* Completion: one call per launch (per part for padded launches' BE parts, with the part tag). */
  void (*on_complete)(void *ctx, uint64_t tag, atoll_ndone_status status);
  void *ctx;
  /* Optional: a launch's first block passed the prologue (it recorded the execution index); tag as
   * for on_complete, the launch's own tag for a padded launch. Called at most once per launch,
   * before its on_complete, under the same rules. A back-end that cannot observe it never calls it
   * and the runtime takes the completion as the start. */
  void (*on_start)(void *ctx, uint64_t tag);
  /* Optional fault injection (fault.h): the probability that a KERNEL launch completes with
   * ATOLL_ND_FAULT instead of running, decided per launch from its tag and fault_seed. 0: none; a
   * back-end that cannot inject ignores it. */
  double fault_kernel_p;
  uint64_t fault_seed;
  /* Several devices in one run (gpu_count, one back-end instance each): this instance is device
   * `device` of n_devices (0 and 0: the only one). The CPU back-end splits its default CUs between
   * the devices, each on CPUs of its own. */
  uint32_t device, n_devices;
  /* CPU back-end: every CU's workers come in two classes (dart's RT and BE workers, docs/dart.md):
   * RT workers take only blocks of priority > 0 queues and run at a higher OS priority (SCHED_FIFO
   * where permitted), BE workers only blocks of priority-0 queues, at nice ATOLL_NCPU_BE_NICE; the
   * OS then preempts a running BE block for an RT one at once. false: one class (as before).
   * Other back-ends ignore it. */
  bool class_workers;
  atoll_npreempt_tuning tuning;
} atoll_nbackend_cfg;

typedef struct atoll_nbackend_info {
  char name[64];      /* device name */
  uint32_t cus;
  uint32_t max_occupancy;
  /* true when reset_cus is a hardware CU reset (CPU back-end, a patched GPU driver's hook); false on
   * stock GPU drivers, where reset_cus kills through the kill words at in-kernel preemption points
   * and queued launches leave by lazy eviction. The runtime uses reset_cus either way. */
  bool can_reset_cus;
  bool can_pad;       /* padded launches supported */
} atoll_nbackend_info;

typedef struct atoll_nqueue atoll_nqueue; /* a hardware queue (CPU: the CP's per-stream ring) */

typedef struct atoll_nbackend_ops {
  const char *name; /* "cpu", "cuda", "hip" */
  /* Returns ATOLL_ENODEV (exit 4) with a message in err when no device or driver is present. */
  int (*open)(const atoll_nbackend_cfg *cfg, void **be, char *err, size_t err_len);
  void (*close)(void *be);
  int (*info)(void *be, atoll_nbackend_info *out);

  int (*alloc)(void *be, size_t bytes, void **dptr);
  void (*free)(void *be, void *dptr);
  /* Synchronous copies outside any queue (set-up, verification read-back). */
  int (*copy_to_device)(void *be, void *dst, const void *src, size_t bytes);
  int (*copy_from_device)(void *be, void *dst, const void *src, size_t bytes);

  int (*create_queue)(void *be, uint32_t priority, atoll_nqueue **q);
  /* Appends to the queue; launches of one queue run in order. Never blocks on the device: the
   * runtime bounds in-flight launches per queue (the DQ capacity) itself. */
  int (*submit)(void *be, atoll_nqueue *q, const atoll_nlaunch *l);
  /* The queue's preempt flag in device memory, written without queueing behind its launches. */
  int (*set_flag)(void *be, atoll_nqueue *q, bool on);
  /* The execution index the prologue recorded (ATOLL_ENOENT when none yet). */
  int (*exec_index)(void *be, atoll_nqueue *q, uint64_t *tag);
  /* Kill every running block now: a CU reset or, without one (can_reset_cus false), the kill words
   * at preemption points. NULL only when the back-end cannot kill at all. */
  int (*reset_cus)(void *be);
  /* Optional: CU-time integrals since open, in ns: the sum over CUs of the time at least one block
   * was resident, and the same restricted to RT and to BE blocks (atoll_nlaunch.rt). */
  int (*cu_busy)(void *be, int64_t *busy_ns, int64_t *rt_ns, int64_t *be_ns);
  /* Optional: create_queue for a queue whose blocks run only on the CUs of `cus` (non-empty, inside
   * the device's CUs; docs/partitions.md): the CPU back-end's workers of those CUs, HIP's CU-masked
   * stream, CUDA's green context. A padded launch on such a queue is refused (ATOLL_ENOTSUP).
   * ATOLL_ENOTSUP with a message in err where the device or driver cannot bind; NULL: never. */
  int (*create_bound_queue)(void *be, uint32_t priority, const atoll_cuset *cus, atoll_nqueue **q, char *err,
                            size_t err_len);
  /* Optional: the current preemption's device-side times (atoll_npreempt_times), then disarms the
   * record. Any thread. NULL: the back-end has no device timestamps. */
  int (*preempt_times)(void *be, atoll_npreempt_times *out);
  /* Optional: moves a queue with nothing in flight to the CUs of `cus` (a re-provisioned share,
   * docs/gslice.md "Native"): the back-end prepares the new binding beside the old one (the
   * shadow: the CPU back-end's worker set, CUDA's green context and its stream, HIP's CU-masked
   * stream), then switches the queue to it; its flag and execution index stay. The runtime calls it
   * only once the queue has drained (ATOLL_EINVAL if not, or for a set outside the device);
   * ATOLL_ENOTSUP with a message in err where the driver refuses; the queue then keeps its CUs. NULL:
   * the back-end cannot re-partition, and shares stay where they start. */
  int (*rebind_queue)(void *be, atoll_nqueue *q, const atoll_cuset *cus, char *err, size_t err_len);
} atoll_nbackend_ops;

/* Back-end lookup (native/runtime/backend_registry.c): "cpu" is linked in; "cuda" and "hip" are
 * loadable modules, so atoll starts on machines without CUDA or ROCm libraries. A module is the
 * shared object libatoll_backend_<name>.so, searched next to the executable, then in ../lib, then
 * in $ATOLL_BACKEND_PATH; it exports one symbol:
 *     const atoll_nbackend_ops *atoll_nbackend_module(void);
 * A missing module or a failing dlopen is ATOLL_ENODEV with the loader's text in err. */
#define ATOLL_NBACKEND_MODULE_SYMBOL "atoll_nbackend_module"
int atoll_nbackend_lookup(const char *name, const atoll_nbackend_ops **ops, char *err, size_t err_len);

#endif
