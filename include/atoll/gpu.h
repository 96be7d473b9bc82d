/* A GPU description: resources and the costs the simulator charges.
 *
 * Presets live in scenarios/gpus/NAME.yaml; each number there names its source. Costs are integer
 * nanoseconds; fractions are parts per million so that a run is exact integer arithmetic. */
#ifndef ATOLL_GPU_H
#define ATOLL_GPU_H

#include <stdbool.h>
#include <stdint.h>

typedef struct atoll_gpu_costs {
  int64_t hq_transmit_ns;        /* host queue -> device queue, per command */
  int64_t cp_dispatch_ns;        /* CP fetch + dispatch of one kernel from a DQ head */
  int64_t stream_switch_ns;      /* CP moving to another stream's DQ */
  int64_t launch_sync_ns;        /* host launch + sync around an isolated (profiled) kernel */
  int64_t cu_reset_ns;           /* killing all running blocks */
  int64_t hq_reset_per_cmd_ns;   /* synchronous HQ reset, per dropped command */
  int64_t hq_reset_async_ns;     /* HQ reset with asynchronous reclamation (GC thread) */
  int64_t evicted_kernel_ns;     /* fetch + dispatch of a lazily evicted kernel (exits at once) */
  int64_t dq_reset_ns;           /* fixed CP cost of draining one flagged stream's DQ */
  int64_t kernel_select_ns;      /* DKP kernel selection per RT kernel */
  int64_t copy_latency_ns;       /* fixed cost of one memcpy/memset */
  uint64_t copy_bytes_per_us;    /* copy engine bandwidth */
  uint32_t dkp_overhead_ppm;     /* slowdown of a padded kernel's own work, parts per million */
  /* Optional: the host's cost per kernel launch when a framework launches eagerly (PyTorch without
   * CUDA graphs); 0 when the preset gives none. A scenario's `sim: {launch: launch-bound}` charges
   * it in place of hq_transmit_ns (docs/gpus.md, "Latency modes"). */
  int64_t host_launch_ns;
} atoll_gpu_costs;

/* GSLICE (SoCC '20, §3.2.4, Fig. 15b): a restarted instance takes 2-15 s to load (VGG-19 about
 * 12 s, ResNet-50 about 5 s in Fig. 16); the switch to the shadow idles the GPU 50-60 us of
 * coordination, under 100 us in all. */
#define ATOLL_PARTITION_LOAD_NS_DEFAULT (5000LL * 1000 * 1000)
#define ATOLL_PARTITION_SWITCH_NS_DEFAULT (60LL * 1000)

typedef struct atoll_gpu {
  const char *name;
  const char *vendor;            /* "amd" or "nvidia" */
  uint32_t cus;                  /* compute units (AMD) or SMs (NVIDIA) */
  uint32_t max_blocks_per_cu;
  uint32_t max_threads_per_cu;
  uint32_t registers_per_cu;     /* 32-bit registers */
  uint32_t shared_bytes_per_cu;
  uint32_t dq_capacity;          /* stock runtime's device-queue depth */
  uint32_t copy_engines;
  atoll_gpu_costs costs;
  double memory_mb;              /* device memory (preset key memory_mb); 0: unknown, nothing is checked */
  /* Re-provisioning a spatial share at run time (gslice's shadow instance, docs/gslice.md): the
   * shadow's load time, and the idle of the switch to it. Optional preset keys
   * costs.partition_load_ms and costs.partition_switch_us, defaults GSLICE's figures
   * (ATOLL_PARTITION_*_DEFAULT). Here at the end, so the fields before keep their layout (the WP
   * proofs of core/dkp.c read this struct). */
  int64_t partition_load_ns;
  int64_t partition_switch_ns;
  /* Device-memory bandwidth shared by every CU (preset key memory_gb_s; GB/s = bytes per ns), for
   * the memory interference of co-running kernels (docs/simulator.md, "Memory interference"). 0:
   * unknown, no interference is modelled. Last, for the same reason as the partition costs. */
  double memory_bytes_per_ns;
  /* Optional preset key costs.partition_init_ms (> 0; 0: not given): a framework's start-up of an
   * instance before its weights arrive. With it, a model whose profile gives a footprint but no
   * instance_load_ms loads in init + weights / copy_bytes_per_us (atoll_gslice_load_ns). */
  int64_t partition_init_ns;
  /* Optional preset key corun_overlap_ppm (0 when not given): the part of another kernel's resident
   * CU demand that a starting block does not meet, because kernels of different streams on one CU
   * overlap their use of it (docs/simulator.md, "Co-running contention"). 0 charges it in full. Fitted
   * per preset to end-to-end co-running figures (tools/corun-fit.py). Last, as the fields above. */
  uint32_t corun_overlap_ppm;
  /* Optional preset key hw_queues (0 when not given: every stream has a hardware queue of its own):
   * the hardware queues (AQL rings) the runtime opens per process. Streams past that many share a
   * ring with an earlier stream and run in order with it (docs/simulator.md, "Hardware queues").
   * Last, as the fields above. */
  uint32_t hw_queues;
} atoll_gpu;

bool atoll_gpu_is_valid(const atoll_gpu *g);

#endif
