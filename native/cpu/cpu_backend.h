/* cpu_backend.h — the CPU back-end (native/backend.h over pthreads), always available.
 *
 * How it stands in for a GPU: each CU is a group of worker threads, one per occupancy slot (a
 * resident block); a command-processor (CP) thread takes the head of every hardware queue once the
 * queue's previous launch has completed and dispatches it; free slots then take its blocks, each
 * through the block wrapper (preemptor prologue, then the kernel library's ak_run_block). Copies
 * and memsets are done by the CP thread itself, as a copy engine would. A CU reset really kills:
 * every slot's kill word is set and the kernels' preemption points (AK_PREEMPT_POINT, a relaxed
 * load per loop step) abandon the block; reset_cus returns once the killed blocks have left.
 * docs/native.md measures what that costs. With cfg->class_workers each CU has its slots twice: RT
 * worker threads for priority > 0 queues and BE worker threads for the others, at OS priorities
 * that let an RT block preempt a running BE block (dart's node workers, docs/dart.md). */
#ifndef ATOLL_NATIVE_CPU_BACKEND_H
#define ATOLL_NATIVE_CPU_BACKEND_H

#include "native/backend.h"

enum { ATOLL_NCPU_MAX_CUS = 64, ATOLL_NCPU_DEFAULT_SLOTS = 1 };

/* Class workers (atoll_nbackend_cfg.class_workers), as DART's: a CU's RT workers run SCHED_FIFO at
 * this priority and its BE workers at the normal priority, so the kernel preempts a BE block the
 * moment an RT worker has one to run. Where the process may not use SCHED_FIFO (no CAP_SYS_NICE,
 * RLIMIT_RTPRIO 0) the RT workers stay SCHED_OTHER and the BE workers lower themselves to nice
 * ATOLL_NCPU_BE_NICE instead: under CFS a nice-19 thread weighs 15 against nice 0's 1024, so a
 * runnable RT worker gets ~98.5 % of a CPU it shares with a BE worker and preempts it at wake-up or
 * within a tick -- not at once, and other processes at nice 0 then outweigh the BE workers too. */
enum { ATOLL_NCPU_RT_FIFO_PRIO = 1, ATOLL_NCPU_BE_NICE = 19 };
/* With SCHED_FIFO RT workers the command processor ("atoll-cp"), which dispatches every launch and
 * copies, and the GPU-like mode's report thread run SCHED_FIFO at this priority, above the RT
 * workers (their work per launch is short; a copy, as a GPU's, is not preempted); under the
 * fallback they stay at the normal priority, above the BE workers' nice. */
enum { ATOLL_NCPU_HOST_FIFO_PRIO = 2 };

const atoll_nbackend_ops *atoll_ncpu_backend(void);

/* The GPU-like mode ("cpu-gpu"): the same CUs, behaving where the runtime can see it as the GPU
 * back-ends (native/gpu) do, so that CI meets the GPU's behaviour without a GPU:
 *   - no start callbacks (cfg->on_start is never called: a GPU cannot observe a start);
 *   - completions are reported by a report thread some microseconds after the device finished a
 *     launch, so several launches of a queue are in flight, finished or not, as on a GPU stream;
 *   - H2D and D2H copies go through a per-queue staging ring, asynchronously: D2H data reaches its
 *     destination just before the completion is reported;
 *   - reset_cus also reaches launches the device finished but has not reported (they complete
 *     KILLED: the host cannot tell them from running ones) and launches dispatched with no block
 *     run yet (KILLED, or EVICTED when the flag is set by then, the GPU prologue's order);
 *   - softmax and gelu use another expf/tanhf (ak.h: ak_alt_expf), which rounds differently from
 *     the CPU build as a GPU's libm does.
 * docs/native-gpu.md lists what each mode means for a kill. */
const atoll_nbackend_ops *atoll_ncpu_gpu_like_backend(void);

/* The CPUs this process may run on (its affinity mask; the online CPUs where that cannot be read;
 * at least 1): the default number of CUs is one fewer. */
uint32_t atoll_ncpu_online_cpus(void);

/* GPU-like mode: the lag between the device finishing a launch and its report (default 20 us;
 * <= 0 restores it). Tests lengthen it, before opening the back-end, to hold launches finished but
 * unreported. */
void atoll_ncpu_set_report_lag_ns(int64_t ns);

/* Class workers: whether RT workers ask for SCHED_FIFO at all (default true). Tests turn it off,
 * before opening the back-end, to run the nice fallback where the process could use SCHED_FIFO. */
void atoll_ncpu_set_rt_fifo(bool try_fifo);

/* The CU of the worker thread that calls it, or UINT32_MAX outside the back-end's workers. Tests
 * read it from a substituted block function (atoll_ncpu_set_block_fn) to see where blocks ran. */
uint32_t atoll_ncpu_worker_cu(void);
/* The back-end tag of the launch (or padded part) whose block the calling worker runs: the runtime
 * puts the stream's index in its top 16 bits (native/runtime/nrt_internal.h), so a test can tell
 * which stream's blocks ran on which CU. Valid inside a block function. */
uint64_t atoll_ncpu_worker_tag(void);
/* GPU-like mode: the vendor stream priority the GPU back-ends would give the queue of the block the
 * calling worker runs -- their own mapping (native/gpu/gpu_device.h gpu_vendor_priority, with
 * atoll_npreempt_tuning.top_priority) over the range CUDA reports on the H100 and H200, least 0 to
 * greatest -5 -- so that CI sees which priority a queue would get on a GPU (dart's RT stream on a
 * GPU node: the greatest). The CPU back-end itself orders queues by priority > 0 or not, as
 * before. 0 in the CPU mode. Valid inside a block function. */
enum { ATOLL_NCPU_GPU_LIKE_PRIO_LEAST = 0, ATOLL_NCPU_GPU_LIKE_PRIO_GREATEST = -5 };
int atoll_ncpu_worker_vendor_priority(void);

/* Runs one block (the default is the kernel library's ak_run_block). Tests may substitute their
 * own, before opening the back-end, to make blocks of a chosen behaviour. */
typedef int (*atoll_ncpu_block_fn)(uint32_t kernel, const ak_args *a, const ak_ctx *c);
void atoll_ncpu_set_block_fn(atoll_ncpu_block_fn fn);

#endif
