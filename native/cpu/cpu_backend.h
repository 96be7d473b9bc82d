/* cpu_backend.h — the CPU back-end (native/backend.h over pthreads), always available.
 *
 * How it stands in for a GPU: each CU is a group of worker threads, one per occupancy slot (a
 * resident block); a command-processor (CP) thread takes the head of every hardware queue once the
 * queue's previous launch has completed and dispatches it; free slots then take its blocks, each
 * through the block wrapper (preemptor prologue, then the kernel library's ak_run_block). Copies
 * and memsets are done by the CP thread itself, as a copy engine would. A CU reset really kills:
 * every slot's kill word is set and the kernels' preemption points (AK_PREEMPT_POINT, a relaxed
 * load per loop step) abandon the block; reset_cus returns once the killed blocks have left.
 * docs/native.md measures what that costs. */
#ifndef ATOLL_NATIVE_CPU_BACKEND_H
#define ATOLL_NATIVE_CPU_BACKEND_H

#include "backend.h"

enum { ATOLL_NCPU_MAX_CUS = 64, ATOLL_NCPU_DEFAULT_SLOTS = 1 };

const atoll_nbackend_ops *atoll_ncpu_backend(void);

/* Runs one block (the default is the kernel library's ak_run_block). Tests may substitute their
 * own, before opening the back-end, to make blocks of a chosen behaviour. */
typedef int (*atoll_ncpu_block_fn)(uint32_t kernel, const ak_args *a, const ak_ctx *c);
void atoll_ncpu_set_block_fn(atoll_ncpu_block_fn fn);

#endif
