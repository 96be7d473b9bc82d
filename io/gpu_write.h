/* Writing a GPU preset in the format io/gpu_load.c reads (docs/gpus.md).
 *
 * `atoll native --profile` writes the device it measured this way. Times are written in
 * microseconds with up to three decimals (atoll_format_us), exact for whole nanoseconds, so the
 * fields written load back unchanged; gpu_write_checked.h checks that before a preset is kept. */
#ifndef ATOLL_IO_GPU_WRITE_H
#define ATOLL_IO_GPU_WRITE_H

#include <stdio.h>

#include "atoll/gpu.h"

/* The costs atoll_gpu_write_yaml writes, in the order of atoll_gpu_costs: notes[i] is the comment
 * of cost i. host_launch_ns, the optional launch-bound cost, is not among them. */
#define ATOLL_GPU_WRITTEN_COSTS 13

/* Writes g's name, vendor, CU resources, queue and copy-engine counts and its costs to out,
 * header_comment (may be NULL) first as "# ..." lines and notes[i] (notes and any entry may be
 * NULL) after cost i. The optional keys (memory, co-running, partitions, hardware queues,
 * host_launch_us) are not written: a loader gives them its defaults. Returns 0, or ATOLL_EIO when
 * the stream reports an error. */
int atoll_gpu_write_yaml(FILE *out, const atoll_gpu *g, const char *header_comment, const char *const *notes);

#endif
