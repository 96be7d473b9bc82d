/* The scheduler core: requests become tasks, tasks wait in queues, queues own device streams, and
 * a policy decides what to launch when. Everything is driven by events (arrival, command start
 * and completion, timer) and issues commands through the device interface, so the same core runs
 * on the simulated device and on native ones.
 *
 * Queue layout (REEF §3): one RT queue shared by every RT client and one BE queue per BE client,
 * each with its own stream; a policy may instead give every client its own queue. A task
 * is one request: the ops of its model, launched in order on its queue's stream.
 *
 * The state lives in one caller-provided block (atoll_core_size / atoll_core_init) and refers to
 * its parts by index, so it is a plain value that can be copied and compared; the pointers in the
 * header (scenario, device, observer, the block's parts) are configuration, not state. */
#ifndef ATOLL_CORE_SCHED_H
#define ATOLL_CORE_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "atoll/device.h"
#include "atoll/scenario.h"
#include "core/ds/ring.h"

enum atoll_mode { ATOLL_MODE_NORMAL = 0, ATOLL_MODE_REALTIME = 1 };

/* Ops of one BE task that may have padded blocks in flight at once (n_done .. pad_op). */
enum { ATOLL_PAD_SPAN = 8 };

/* What the core tells its runner (metrics, traces, closed-loop clients). Any entry may be NULL. */
typedef struct atoll_core_observer {
  void (*request_started)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  void (*request_done)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  /* Outcomes other than done (docs/report.md): dropped, the arrival was refused (the client's
   * queue was full); shed, the policy gave up on the request; failed, the device refused a launch. */
  void (*request_dropped)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  void (*request_shed)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  void (*request_failed)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  void (*mode_changed)(void *ctx, uint32_t mode, int64_t now);
  /* An RT arrival switched to real-time mode; n_preempted BE streams had work on the GPU (0: no
   * preemption was needed). */
  void (*preemption)(void *ctx, uint32_t n_preempted, int64_t now);
  /* A BE task was preempted: `interrupted` is the op that was running (-1: none was), it restarts
   * at op `restart`; it had completed done_before ops and handed launched_before to the device. */
  void (*task_preempted)(void *ctx, uint32_t client, uint64_t req, int32_t interrupted, uint32_t restart,
                         uint32_t done_before, uint32_t launched_before, int64_t now);
  /* The first relaunched kernel of a preempted task started. */
  void (*task_restored)(void *ctx, uint32_t client, uint64_t req, int64_t now);
  /* Request req completed in a model run that served `batch` requests (told before request_done,
   * only for runs of more than one request). */
  void (*request_batch)(void *ctx, uint32_t client, uint64_t req, uint32_t batch, int64_t now);
  /* An operator group (abacus, docs/abacus.md) of n_models models ended: launched at start_ns,
   * predicted to take predicted_ns, its last kernel ended at now. */
  void (*group_done)(void *ctx, uint32_t n_models, int64_t predicted_ns, int64_t start_ns, int64_t now);
  /* dart's overrun enforcement (docs/dart.md) acted on a client: what is ATOLL_ENFORCE_*. */
  void (*enforcement)(void *ctx, uint32_t client, uint32_t what, int64_t now);
  /* A client's spatial share (GPU%) or batch size took a new value (gslice, docs/gslice.md). */
  void (*share_changed)(void *ctx, uint32_t client, uint32_t pct, uint32_t batch, int64_t now);
  /* A re-provisioning step of a client's share (atoll_partition_step), from start_ns to end_ns:
   * the shadow instance loading pct %, the switch's idle, or a change refused for memory. */
  void (*partition_step)(void *ctx, uint32_t client, uint32_t step, uint32_t pct, int64_t start_ns, int64_t end_ns);
} atoll_core_observer;

/* What overrun enforcement did (atoll_core_observer.enforcement). */
enum { ATOLL_ENFORCE_DEMOTION = 0, ATOLL_ENFORCE_RECOVERY = 1, ATOLL_ENFORCE_ALERT = 2 };

/* The steps of a share's re-provisioning (atoll_core_observer.partition_step). */
typedef enum atoll_partition_step {
  ATOLL_PARTITION_SHADOW_LOAD = 0, /* a shadow instance loads the model on the new share */
  ATOLL_PARTITION_SWITCH = 1,      /* the switch to the shadow: the client's queue idles */
  ATOLL_PARTITION_REFUSED = 2      /* the GPU's memory cannot hold the shadow beside the instances */
} atoll_partition_step;

typedef struct atoll_core_limits {
  uint32_t pending_per_client; /* requests a client may have waiting (queued, not yet running); more
                                  are dropped. 0: 1024 */
  /* dart's stage pipeline over nodes (core/dart.h; NULL: dart runs as one node's worker). */
  const struct atoll_dart_pipeline *dart;
} atoll_core_limits;

typedef struct atoll_task {
  uint64_t req;          /* the client's request id */
  int64_t arrival_ns;
  int64_t deadline_ns;   /* absolute; INT64_MAX when the client has none */
  uint32_t client;
  uint32_t queue;
  uint32_t next_launch;  /* next op index to hand to the device */
  uint32_t n_done;       /* ops completed */
  uint8_t in_use;
  uint8_t started;       /* its first command has started on the CUs */
  uint8_t epoch;         /* bumped at each preemption: completions of older commands are stale */
  uint8_t paused;        /* preempted, waiting for normal mode to be relaunched */
  uint8_t restored;      /* relaunched after a preemption, its first kernel not yet started */
  /* Padding (REEF §5). Padded launches run one after another on the RT stream, so a BE task may
   * have blocks of several consecutive ops in flight at once, each op's behind the one before:
   * pad_op / pad_next is where the next padded blocks come from (an op, its first block not yet
   * handed out), pad_reserved counts handed-out blocks still running, pad_done the blocks of op
   * n_done that have run, and pad_ver[op % ATOLL_PAD_SPAN] the version chosen for an op with
   * padded blocks (-1: none), for the ops from n_done to pad_op. */
  uint32_t pad_op, pad_next, pad_reserved, pad_done;
  int16_t pad_ver[ATOLL_PAD_SPAN];
  /* Batching (docs/simulator.md, "Batching"): a task may lead a batch, one model run for `batch`
   * requests of its client (1: itself alone). The others ride with it: in use, in no queue, never
   * launched, they end with it. batch_next chains the batch in arrival order from the leader
   * (-1: the end). */
  uint32_t batch;
  int32_t batch_next;
} atoll_task;

typedef struct atoll_queue {
  uint8_t rt;
  uint32_t stream;
  int32_t active;               /* the task launched on the stream, or -1 */
  struct atoll_ring pending;    /* task indices waiting, in arrival order */
} atoll_queue;

typedef struct atoll_core {
  /* Configuration. */
  const atoll_scenario *s;
  atoll_device dev;
  const atoll_core_observer *obs;
  void *obs_ctx;
  /* State. */
  atoll_policy_kind policy;
  uint32_t mode;
  uint32_t n_queues, n_tasks, n_clients;
  atoll_queue *queues;
  uint32_t *client_queue;        /* client -> queue */
  int64_t *client_deadline_ns;   /* relative deadline per client (0: none) */
  uint32_t *client_waiting;      /* per client: its requests queued and not yet active */
  uint32_t pending_per_client;
  atoll_task *tasks;
  struct atoll_ring free_tasks;
  atoll_cmd *scratch;            /* launch buffer: the largest model's op count */
  uint32_t scratch_cap;
  uint32_t rr_next;              /* round-robin cursor over BE queues */
  void *pstate;                  /* the policy's state area (its ops' state_size bytes) */
  /* The fixed-size batcher (atoll_client.batch_max): per client, the leader of the batch being
   * formed and its last member (-1: none). A formed batch's leader is queued like any task. */
  int32_t *client_forming, *client_forming_tail;
  /* Configuration: dart's stage pipeline (atoll_core_limits.dart), or NULL. */
  const struct atoll_dart_pipeline *dart;
} atoll_core;

/* Bytes of storage atoll_core_init needs for this scenario. */
size_t atoll_core_size(const atoll_scenario *s, const atoll_core_limits *lim);
/* deadlines_ns: per client relative deadline (0: none), resolved by the runner (a uniform
 * client's default is its period). Creates the policy's streams on the device. */
int atoll_core_init(atoll_core *c, void *storage, size_t size, const atoll_scenario *s, atoll_device dev,
                    const atoll_core_observer *obs, void *obs_ctx, const atoll_core_limits *lim,
                    const int64_t *deadlines_ns);
bool atoll_core_is_valid(const atoll_core *c);
/* Copies src's state into dst, whose storage (of atoll_core_size bytes) the caller provides; the
 * copy shares src's configuration (scenario, device, observer). */
int atoll_core_copy(atoll_core *dst, void *dst_storage, size_t size, const atoll_core *src);
/* A hash of the state's logical contents (not of addresses): equal states hash equal, whatever
 * storage they live in. */
uint64_t atoll_core_hash(const atoll_core *c);
/* Whether the policy serves this client at all (rt-only ignores BE clients). */
bool atoll_core_client_active(const atoll_core *c, uint32_t client);

/* The set of activations task `task` runs on (0 unless dart's pipeline holds several requests of its
 * client at once: then its entry there, below atoll_dart_pipe_depth). */
uint32_t atoll_core_task_set(const atoll_core *c, uint32_t task);

/* Events. */
void atoll_core_on_arrival(atoll_core *c, uint32_t client, uint64_t req, int64_t now);
void atoll_core_on_cmd_started(atoll_core *c, uint32_t stream, uint64_t tag, int64_t now);
void atoll_core_on_cmd_done(atoll_core *c, uint32_t stream, uint64_t tag, int64_t now);
/* Blocks of BE command `tag` ran to the end inside a padded launch on `stream`. */
void atoll_core_on_blocks_done(atoll_core *c, uint32_t stream, uint64_t tag, uint32_t blocks, int64_t now);
void atoll_core_on_timer(atoll_core *c, uint64_t cookie, int64_t now);

/* Timer cookies with this bit set are the core's own (the batcher's timeouts); policies use the
 * others. */
#define ATOLL_CORE_COOKIE (1ull << 63)

/* Tags: the task index (24 bits), the task's preemption epoch (8 bits) and the op index. */
static inline uint64_t atoll_tag_make(uint32_t task, uint32_t op, uint8_t epoch) {
  return ((uint64_t)(task & 0xFFFFFF) << 40) | ((uint64_t)epoch << 32) | op;
}
static inline uint32_t atoll_tag_task(uint64_t tag) { return (uint32_t)(tag >> 40); }
static inline uint8_t atoll_tag_epoch(uint64_t tag) { return (uint8_t)(tag >> 32); }
static inline uint32_t atoll_tag_op(uint64_t tag) { return (uint32_t)tag; }

/* The version padding chose for op `op` of task t (-1: none; 0: the op's own shape). */
static inline int32_t atoll_task_pad_version(const atoll_task *t, uint32_t op) { return t->pad_ver[op % ATOLL_PAD_SPAN]; }

#endif
