/* preempt_path.h — a preemption's critical path from the device's own timestamps (native runs,
 * docs/native-gpu.md "Where a preemption's time goes").
 *
 * After the RT request's arrival the scheduler resets the host queues and writes the preempt flag;
 * on the device the flagged launches then leave their prologues (the DQ drains) while the running
 * blocks stop at their preemption points (the kill), and the RT kernel's first block passes its
 * prologue. Drain and kill overlap; the path waits on the one that ends first from the flag on,
 * then on the other, then on the RT kernel's dispatch. So the four shares are consecutive, never
 * negative, and add up to the latency, from the arrival to the RT prologue. */
#ifndef ATOLL_RUN_PREEMPT_PATH_H
#define ATOLL_RUN_PREEMPT_PATH_H

#include <stdbool.h>
#include <stdint.h>

enum { ATOLL_PATH_FLAG, ATOLL_PATH_DRAIN, ATOLL_PATH_KILL, ATOLL_PATH_DISPATCH, ATOLL_PATH_STEPS };

/* The shares of the path, in ns, from times on one clock (0: the step was not seen): `at` the
 * arrival, then the flag written, the last flagged launch evicted, the last killed block stopped,
 * the RT kernel's first prologue. False (out zeroed) without a flag and an RT start after `at`, or
 * with an RT start before the flag (marks of another preemption). A drain or kill not seen, or
 * seen after the RT start, adds nothing to the path. */
bool atoll_preempt_path(int64_t at, int64_t flag, int64_t drain, int64_t kill, int64_t rt_start,
                        int64_t out[ATOLL_PATH_STEPS]);

/* "flag write", "DQ drain", "kill", "RT dispatch". */
const char *atoll_preempt_path_name(int step);

#endif
