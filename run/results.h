/* What a run produced, as raw facts: every request's times, preemption records, CU busy time and
 * the run's own cost. The report (report.h) turns these into statistics, checks `expect:` bounds
 * and writes the table, JSON and CSV. One type for every device: the simulator and the native
 * runner fill it, and run/driver.h initialises and frees it (atoll_run_results_init/_free). */
#ifndef ATOLL_RUN_RESULTS_H
#define ATOLL_RUN_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"

/* Why a request failed (atoll_request_record.failed), beside a native device's fault kinds
 * (native/fault.h: 1 a kernel fault, 2 an allocation): the device refused one of its launches. */
enum { ATOLL_RUN_FAILED_LAUNCH = 3 };

/* One request of one client. done_ns < 0: not completed by the end of the run. */
typedef struct atoll_request_record {
  uint64_t id;          /* per-client sequence number, from 0 */
  int64_t arrival_ns;
  int64_t start_ns;     /* its first kernel started on the CUs; -1 if never */
  int64_t done_ns;
  uint8_t failed;       /* why the request failed (0: it did not; above); done_ns is -1 */
  uint32_t batch;       /* requests of the model run that served it (0: one, itself) */
  uint8_t shed;         /* the policy gave up on it; done_ns is -1 */
  /* A native fit's run (atoll fit inss --device cpu): while it ran, a CU worker was kept off its
   * CPU by another process (tools/atoll/inss_disturb.h); the fit leaves its batch out. 0 elsewhere. */
  uint8_t disturbed;
} atoll_request_record;

typedef struct atoll_client_records {
  atoll_request_record *req; /* in arrival order */
  uint32_t n, cap;
  uint32_t dropped;          /* arrivals refused because the client's queue was full */
  uint32_t shed;             /* requests the policy gave up on */
  uint32_t failed;           /* requests that ended failed (a launch the device refused; native runs:
                                a kernel fault, an allocation) */
  char failure[192];         /* the first failure's message */
  /* dart's overrun enforcement (docs/dart.md): demotions to BE and recoveries to RT. */
  uint32_t demotions, recoveries;
  /* dart's admission control of a task arriving at run time (docs/dart.md): why it was refused,
   * naming its bound and deadline; empty when it was not. */
  char refusal[160];
} atoll_client_records;

/* One preemption: an RT request arrived while BE work was on the GPU. */
typedef struct atoll_preemption_record {
  int64_t at_ns;         /* RT request arrival at the scheduler */
  int64_t latency_ns;    /* to its first kernel starting on the CUs */
  int64_t hq_reset_ns, dq_evict_ns, cu_kill_ns; /* breakdown */
  uint32_t restored_kernels;
  uint32_t evicted_kernels; /* DQ commands lazily evicted */
  int64_t wasted_gpu_ns; /* re-executed GPU time caused by this preemption */
  int64_t restore_ns;
  int64_t redo_gpu_ns;   /* of wasted_gpu_ns: completed ops the restore runs again (driver.h's redo_ns) */
  /* Native runs whose back-end timestamps the steps (backend.h preempt_times): the critical path,
   * flag write, DQ drain, kill, RT dispatch (run/preempt_path.h), adding up to latency_ns, which
   * then ends at the RT kernel's prologue as the device saw it; and the device's marks themselves,
   * from at_ns (0: not seen). All 0 without them (the simulator, back-ends without timestamps). */
  int64_t path_ns[4];
  int64_t dev_flag_ns, dev_drain_ns, dev_kill_ns, dev_rt_start_ns;
} atoll_preemption_record;

/* One RT kernel that ran in a padded launch (REEF §5): the launch's time, from its first block to
 * the end of its last part, and the RT kernel's time alone on the same GPU. */
typedef struct atoll_pad_sample {
  int64_t launch_ns, alone_ns;
} atoll_pad_sample;

/* One operator group (abacus, docs/abacus.md): its models, when it was issued and ended, and the
 * latency the policy's predictor gave it. */
typedef struct atoll_group_record {
  uint32_t n_models;
  int64_t start_ns, end_ns, predicted_ns;
} atoll_group_record;
/* A client's spatial share (GPU%) and batch size from t_ns on (gslice, docs/gslice.md). */
typedef struct atoll_share_record {
  int64_t t_ns;
  uint32_t client, pct, batch;
} atoll_share_record;

/* One re-provisioning step of a client's share (atoll_partition_step, core/sched.h). */
typedef struct atoll_partition_record {
  int64_t start_ns, end_ns;
  uint32_t client, step, pct;
} atoll_partition_record;

typedef struct atoll_run_results {
  const atoll_scenario *scenario;
  const char *mode;            /* "sim" or "native" */
  int64_t *standalone_ns;      /* per model: the model alone on the same device */
  atoll_client_records *clients; /* per scenario client */
  atoll_preemption_record *preemptions;
  uint32_t n_preemptions, cap_preemptions;
  /* CU-time integrals over the measured window [warmup, duration): sum over CUs of the time at
   * least one block was resident, split by the class of the resident work. */
  int64_t cu_busy_ns, cu_busy_rt_ns, cu_busy_be_ns;
  int64_t window_ns;           /* duration - warmup */
  uint32_t cus;
  uint64_t events;             /* device events processed */
  uint64_t rt_beside_be;       /* RT block placements while BE blocks were resident (sim only) */
  /* Padding, over the window: CU-time with padded BE blocks resident (part of cu_busy_be_ns), RT
   * kernels completed, and one sample per RT kernel that ran padded. */
  int64_t cu_busy_be_padded_ns;
  uint64_t rt_kernels;
  atoll_pad_sample *pad_samples;
  uint32_t n_pad_samples;
  double wall_s;               /* wall-clock time of the run */
  /* Native runs with --verify: completed requests whose output was compared bit for bit with the
   * uninterrupted reference, and how many differed. */
  bool verified;
  uint32_t verify_requests, verify_mismatches;
  /* Several GPUs (gpu_count > 1): each GPU's cu_busy_ns (the fields above are GPU 0's); NULL with
   * one GPU. */
  uint32_t n_gpus;
  int64_t *gpu_cu_busy_ns;
  /* Operator groups that ended in the window (abacus only; none for other policies). */
  atoll_group_record *groups;
  uint32_t n_groups, cap_groups;
  /* Shares over the whole run, in time order, and the re-provisioning steps (gslice only). */
  atoll_share_record *shares;
  uint32_t n_shares, cap_shares;
  atoll_partition_record *partitions;
  uint32_t n_partitions, cap_partitions;
  /* Per client, the GPU it ran on where the policy placed it (atoll_policy_place: inss), else NULL
   * (the scenario's clients[].gpu). */
  uint32_t *client_gpu;
} atoll_run_results;

#endif
