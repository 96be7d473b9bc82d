/* The simulated GPU (see simdev.h for the model). */
#include "sim/simdev.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "sim/cu_model.h"
#include "sim/shape_memo.h"
#include "sim/snapbuf.h"
#include "sim/state_hash.h"

enum { MAX_HIDDEN = 64, MAX_PARTS = 16 };

typedef struct entry {
  atoll_cmd cmd;
  int64_t ready_ns; /* when it reached the DQ (valid for the first dq_count entries) */
  uint32_t epoch;   /* the stream's launch epoch when it was launched */
  int32_t pad;      /* a padded launch: index of its pad record, -1 otherwise */
} entry;

/* A padded launch in flight: its BE parts, how many still run, whether its RT part is done. */
typedef struct pad_rec {
  atoll_pad_part parts[MAX_PARTS];
  uint32_t n, remaining, rt_cus;
  uint8_t rt_done, live;
} pad_rec;

typedef struct stream {
  uint32_t priority, dq_cap;
  entry *q; /* HQ and DQ as one deque: the first dq_count entries are in the DQ */
  uint32_t head, count, cap, dq_count;
  int64_t transmit_free_ns;
  uint8_t busy;          /* its head is being dispatched or executing */
  int64_t wake_ns;       /* a scheduled wake-up for a head not yet in the DQ, INT64_MAX none */
  /* Preemption flag as epochs: commands launched before the flag was set (epoch < kill_epoch)
   * exit in their prologue when dispatched; commands launched after it run. */
  uint32_t launch_epoch, kill_epoch;
  uint8_t evicting;      /* its head is being fetched and dispatched only to exit (lazy eviction) */
  uint32_t prepaid;      /* evictions whose CP time is reserved on the CP timeline */
  /* The running kernel's own timing when it differs from its op's (block range, version,
   * padding), the CUs it may use [cu_lo, cu_hi), and padding bookkeeping. */
  atoll_kernel_timing kt_local;
  uint16_t cu_lo, cu_hi;
  uint16_t home_lo, home_hi; /* the range of CUs the stream is bound to (its whole GPU when unbound) */
  atoll_cuset home;          /* the CUs it is bound to; empty when unbound */
  uint8_t home_gaps;         /* the bound CUs are several runs: its kernels keep to `home` */
  uint8_t own_channel;       /* an MPS client: a hardware channel of its own (atoll_stream_cfg) */
  uint32_t ring;             /* its hardware queue (ring_of); streams on one ring run in order together */
  /* The streams of its ring, lowest index first: the first, and the next after this one (-1 none),
   * so that the ring's rules visit its streams only, not every stream of the device. */
  int32_t ring_first, ring_next;
  int32_t pad;           /* owner of a padded launch: its pad record; -1 otherwise */
  uint8_t hidden;        /* a BE part of a padded launch, run on a device-internal stream */
  uint32_t owner;        /* hidden: the stream of the padded launch */
  uint64_t part_tag;     /* hidden: the BE command it runs blocks of */
  uint32_t part_blocks;
  uint32_t to_reserve;   /* evictions to reserve once the running head leaves the stream */
  uint8_t reset_owed;    /* flagged with nothing yet in its DQ: its first eviction pays dq_reset_ns */
  uint64_t left;         /* commands that have left the stream (completed, evicted or killed) */
  uint64_t drain_at;     /* a pending stream synchronize is met when `left` reaches it; 0 none */
  /* The executing kernel (the head), when busy and dispatched. */
  const atoll_kernel_timing *kt;
  uint8_t started, rt;
  int64_t start_ns, dispatch_ns;
  uint64_t exec_tag;      /* tag of the last command whose kernel started */
  uint8_t has_exec_tag;
  char name[48];
} stream;

struct atoll_simdev {
  const atoll_scenario *s;
  const atoll_gpu *g;
  atoll_evq *evq;
  atoll_trace *trace;
  const atoll_simdev_hooks *hooks; /* NULL: nobody observes */
  atoll_core *core;
  atoll_kernel_timing **timing; /* per model, per op */
  const atoll_gpu *tg;          /* the GPU the timing is fitted on (atoll_simdev_cfg.timing_gpu) */

  stream *streams;
  uint32_t n_streams, cap_streams;

  /* CP: the stream whose kernel was dispatched last, -1 none */
  int32_t cp_last;

  /* The CUs (cu_model.h): where dispatched kernels' blocks run. */
  atoll_cu_model *cu;
  int64_t win0, win1; /* the statistics window */

  /* Copy engines */
  int64_t *engine_free_ns;

  uint64_t *timers;
  uint32_t n_timers, cap_timers;

  /* Preemption mechanisms: the host thread's timeline (HQ resets delay later transmits), the
   * CP's eviction work (evicted kernels are fetched and dispatched one after another, and other
   * dispatches wait behind them), and the marks of the current preemption for its breakdown. */
  int64_t host_free_ns, cp_evict_free_ns;
  atoll_simdev_marks marks;
  /* A pending stream synchronize (notify_drained): streams still to drain, and the cookie. */
  uint32_t drain_waiting;
  uint64_t drain_cookie;
  int64_t killed_ns;  /* GPU time of killed kernels: their run time until the kill */
  uint32_t killed_kernels;
  /* Padding figures (REEF Figs. 24 and 27), over the window: CUs holding padded BE blocks and
   * their CU-time, RT kernels completed, and for each padded one its overhead (the padded launch's
   * time less the RT kernel's time alone, cached per op in alone_ns; 0 = not yet computed). */
  uint64_t rt_kernels;
  atoll_pad_sample *pad_samples;
  uint32_t n_pad_samples, cap_pad_samples;
  int64_t **alone_ns;
  pad_rec *pads;
  uint32_t n_pads, cap_pads;
  int32_t hidden_free[MAX_HIDDEN];
  uint32_t n_hidden_free, n_core_streams;
  /* per model, per op: every version's timing, from the op's first versioned dispatch (timing_for) */
  atoll_kernel_timing ***version_timing;
};

/* --- helpers --- */

static int64_t now_of(const atoll_simdev *d) { return d->evq->now; }

static void schedule(atoll_simdev *d, int64_t at, atoll_ev_class cls, uint64_t payload) {
  int rc = atoll_evq_push(d->evq, at, cls, payload);
  assert(rc == 0 && "event queue allocation failed");
  (void)rc;
}

/* Slot of the stream's i-th command counted from slot 0 (i wraps with the uint32_t head): the deque's
 * capacity is a power of two (dev_launch doubles it from 64, restore rounds it up), so a mask does
 * what % did, without the division at every look at a stream's head. */
static inline uint32_t slot(const stream *st, uint32_t i) {
  assert((st->cap & (st->cap - 1)) == 0 && "a stream's deque capacity is a power of two");
  return i & (st->cap - 1);
}

static entry *head_of(stream *st) { return &st->q[slot(st, st->head)]; }

/* Moves commands from the HQ into the DQ while it has room, one transmit step each. */
static void transmit(atoll_simdev *d, stream *st) {
  int64_t now = now_of(d);
  while (st->dq_count < st->dq_cap && st->dq_count < st->count) {
    entry *e = &st->q[slot(st, st->head + st->dq_count)];
    int64_t from = st->transmit_free_ns > now ? st->transmit_free_ns : now;
    if (d->host_free_ns > from)
      from = d->host_free_ns; /* the host thread is still busy with an HQ reset */
    e->ready_ns = from + d->g->costs.hq_transmit_ns;
    st->transmit_free_ns = e->ready_ns;
    st->dq_count++;
  }
  ATOLL_SIMDEV_HOOK(d->hooks, queue_depth, (uint32_t)(st - d->streams), st->name, st->count - st->dq_count,
                    st->dq_count, now);
}

/* --- command processor ---
 * Every stream is a hardware queue of its own, so streams dispatch in parallel. A kernel pays
 * cp_dispatch_ns, plus stream_switch_ns when the kernel dispatched before it came from another
 * stream (REEF Fig. 11: the delay between streams that postpones RT kernels). A stream takes its
 * DQ head only after its previous command completed: kernels of a stream run in order. */

/* Streams bound to disjoint CU sets are partitions, each with a command-processor pipe of its own
 * (docs/partitions.md, "Command processor"): dispatch alternating between them is not a stream
 * switch. Unbound streams span the GPU, so they overlap every stream. */
static bool homes_overlap(const atoll_simdev *d, const stream *a, const stream *b) {
  if (a->own_channel && b->own_channel)
    return false;
  /* One range over every CU (an unbound stream, or one bound to all of them) meets every stream:
   * the common case, told from the range without the set's words. */
  if ((a->home_lo == 0 && a->home_hi == d->g->cus && !a->home_gaps) ||
      (b->home_lo == 0 && b->home_hi == d->g->cus && !b->home_gaps))
    return true;
  if (atoll_cuset_is_empty(&a->home) || atoll_cuset_is_empty(&b->home))
    return true;
  return atoll_cuset_intersects(&a->home, &b->home);
}

static bool head_evicted(const stream *st) {
  return st->dq_count > 0 && st->q[slot(st, st->head)].epoch < st->kill_epoch;
}

/* Hardware queues (docs/simulator.md, "Hardware queues"): with a preset's hw_queues, the runtime
 * opens that many rings and a stream past them shares one: the least used ring, the earliest opened
 * among equals (ROCclr's pick: the first of the pool with the fewest streams), so streams go round
 * the rings and stream i shares ring i mod hw_queues. Streams the serving process opened before its
 * clients' only turn the round, not who shares with whom. A ring runs its packets in order (every
 * kernel packet carries the barrier bit), whichever stream they came from. */
enum { OWN_RING = 1u << 31 }; /* flags a ring no other stream joins */
static uint32_t ring_of(const atoll_gpu *g, uint32_t sidx) { return g->hw_queues ? sidx % g->hw_queues : sidx; }

/* Without a pool (or with no more streams than it has rings) every ring holds one stream, so its
 * links (ring_first, ring_next) name that stream alone and the rules below change nothing. */

/* Whether stream sidx's ready head must wait on its ring: another stream of the ring has a command
 * dispatched or running, or a head that reached the ring first (ties: the stream opened first). */
static bool ring_blocked(atoll_simdev *d, uint32_t sidx) {
  if (sidx >= d->n_core_streams)
    return false;
  stream *st = &d->streams[sidx];
  if (st->ring_first == (int32_t)sidx && st->ring_next < 0)
    return false; /* alone on its ring */
  int64_t ready = head_of(st)->ready_ns;
  for (int32_t t = st->ring_first; t >= 0; t = d->streams[t].ring_next) {
    stream *o = &d->streams[t];
    if (t == (int32_t)sidx)
      continue;
    if (o->busy)
      return true;
    if (o->dq_count > 0) {
      int64_t r = head_of(o)->ready_ns;
      if (r < ready || (r == ready && t < (int32_t)sidx))
        return true;
    }
  }
  return false;
}

static void stream_kick(atoll_simdev *d, uint32_t sidx);

/* Stream sidx's head left: the streams it shares a ring with may take theirs. */
static void kick_ring(atoll_simdev *d, uint32_t sidx) {
  if (sidx >= d->n_core_streams)
    return;
  for (int32_t t = d->streams[sidx].ring_first; t >= 0; t = d->streams[t].ring_next)
    if (t != (int32_t)sidx)
      stream_kick(d, (uint32_t)t);
}

static void stream_kick(atoll_simdev *d, uint32_t sidx) {
  stream *st = &d->streams[sidx];
  if (st->busy || st->dq_count == 0)
    return;
  int64_t now = now_of(d), ready = head_of(st)->ready_ns;
  if (ready > now) {
    if (ready < st->wake_ns) {
      st->wake_ns = ready;
      schedule(d, ready, ATOLL_EV_DISPATCH, atoll_simev(ATOLL_SIMEV_CP_WAKE, 0, sidx));
    }
    return;
  }
  if (ring_blocked(d, sidx))
    return; /* kick_ring takes it up when the ring's head leaves */
  st->busy = 1;
  st->dispatch_ns = now;
  /* The CP works through evictions one after another, and dispatches wait behind them. */
  int64_t start = d->cp_evict_free_ns > now ? d->cp_evict_free_ns : now;
  if (head_evicted(st)) {
    /* Lazy eviction: the kernel is still fetched and dispatched, and exits in its prologue. Its CP
     * time may already be reserved (it was waiting in the DQ when the flag was set). */
    st->evicting = 1;
    int64_t done = now;
    if (st->prepaid > 0) {
      st->prepaid--;
    } else {
      /* A command that reached the DQ after the flag (it was still on the host then) is fetched as
       * it arrives; a stream whose DQ was empty at the flag pays its DQ reset with the first. */
      d->cp_evict_free_ns = start + d->g->costs.evicted_kernel_ns + (st->reset_owed ? d->g->costs.dq_reset_ns : 0);
      st->reset_owed = 0;
      d->marks.evicted++;
      done = d->cp_evict_free_ns;
      ATOLL_SIMDEV_HOOK(d->hooks, preempt_step, ATOLL_STEP_DQ_EVICT, sidx, st->name, 1, start, done);
      if (done > d->marks.evict_done_ns)
        d->marks.evict_done_ns = done;
    }
    schedule(d, done, ATOLL_EV_DISPATCH, atoll_simev(ATOLL_SIMEV_EVICT_DONE, 0, sidx));
    return;
  }
  /* Switching streams costs only while the stream served last still has a kernel in flight: the
   * delay comes from multiplexing concurrent queues, not from a queue that was emptied. */
  int64_t cost = d->g->costs.cp_dispatch_ns;
  if (d->cp_last >= 0 && d->cp_last != (int32_t)sidx) {
    const stream *last = &d->streams[d->cp_last];
    if (last->busy && !last->evicting && homes_overlap(d, last, st))
      cost += d->g->costs.stream_switch_ns;
  }
  schedule(d, start + cost, ATOLL_EV_DISPATCH, atoll_simev(ATOLL_SIMEV_CP_DONE, 0, sidx));
}

/* Reserves the CP time of draining stream st's DQ of `n` flagged commands: a fixed dq_reset_ns,
 * then each command fetched and dispatched one after another, from now (or after work already
 * reserved); every later dispatch waits. */
static void reserve_evictions(atoll_simdev *d, stream *st, uint32_t n) {
  if (n == 0)
    return;
  int64_t now = now_of(d), from = d->cp_evict_free_ns > now ? d->cp_evict_free_ns : now;
  d->cp_evict_free_ns = from + d->g->costs.dq_reset_ns + (int64_t)n * d->g->costs.evicted_kernel_ns;
  ATOLL_SIMDEV_HOOK(d->hooks, preempt_step, ATOLL_STEP_DQ_EVICT, (uint32_t)(st - d->streams), st->name, n, from,
                    d->cp_evict_free_ns);
  d->marks.evicted += n;
  if (d->cp_evict_free_ns > d->marks.evict_done_ns)
    d->marks.evict_done_ns = d->cp_evict_free_ns;
  st->prepaid += n;
  st->reset_owed = 0;
}

/* The running head left the stream (killed or completed): the CP can now reach the flagged
 * commands queued behind it. */
static void release_waiting_evictions(atoll_simdev *d, stream *st) {
  uint32_t n = st->to_reserve;
  st->to_reserve = 0;
  reserve_evictions(d, st, n);
}

static int dev_set_timer(void *ctx, int64_t at, uint64_t cookie);

/* n commands left stream st (completed, evicted, killed or dropped from the HQ): a pending device
 * synchronize whose last stream this drains is due now. */
static void note_left_n(atoll_simdev *d, stream *st, uint32_t n) {
  st->left += n;
  if (st->drain_at == 0 || st->left < st->drain_at)
    return;
  st->drain_at = 0;
  if (--d->drain_waiting == 0) {
    int rc = dev_set_timer(d, now_of(d), d->drain_cookie);
    assert(rc == 0 && "timer allocation failed");
    (void)rc;
  }
}

/* The stream's head leaves the DQ without a completion (evicted or killed). */
static void drop_head(atoll_simdev *d, uint32_t sidx) {
  stream *st = &d->streams[sidx];
  release_waiting_evictions(d, st);
  st->busy = 0;
  st->evicting = 0;
  st->kt = NULL;
  st->head++;
  st->count--;
  st->dq_count--;
  note_left_n(d, st, 1);
  transmit(d, st);
  stream_kick(d, sidx);
  kick_ring(d, sidx);
}

/* --- the CUs' reports --- */

static void cu_started(void *ctx, uint32_t sidx, int64_t now) {
  atoll_simdev *d = ctx;
  stream *st = &d->streams[sidx];
  st->started = 1;
  st->start_ns = now;
  if (st->hidden)
    return;
  entry *e = head_of(st);
  st->exec_tag = e->cmd.tag;
  st->has_exec_tag = 1;
  if (d->core)
    atoll_core_on_cmd_started(d->core, sidx, e->cmd.tag, now);
}

static const char *cu_name(void *ctx, uint32_t sidx) { return ((atoll_simdev *)ctx)->streams[sidx].name; }

/* Hands stream sidx's dispatched kernel to the CUs (placed at the next atoll_cu_place). */
static void cu_submit(atoll_simdev *d, uint32_t sidx) {
  stream *st = &d->streams[sidx];
  atoll_cu_job j = {.kt = *st->kt, .cu_lo = st->cu_lo, .cu_hi = st->cu_hi, .rt = st->rt, .padding = st->hidden,
                    .high = st->priority > 0, .only = st->home_gaps ? &st->home : NULL};
  atoll_cu_add(d->cu, sidx, &j);
}

/* --- completion --- */

static __attribute__((noinline)) void trace_kernel_span(atoll_simdev *d, uint32_t sidx, stream *st, const entry *e,
                                                       int64_t now) {
  const atoll_op *op = &d->s->models[e->cmd.model].model.ops[e->cmd.op];
  char args[160];
  snprintf(args, sizeof args, "\"model\":\"%s\",\"op\":%u,\"blocks\":%u,\"wait_us\":%.3f",
           d->s->models[e->cmd.model].name, e->cmd.op, st->kt ? st->kt->blocks : 0,
           (double)(st->start_ns - st->dispatch_ns) / 1e3);
  const char *name = op->kind == ATOLL_OP_KERNEL ? op->name : atoll_op_kind_name(op->kind);
  atoll_trace_span(d->trace, ATOLL_TRACK_STREAM, sidx, name, e->cmd.rt ? "rt" : "be", st->start_ns,
                   now - st->start_ns, args);
}

/* The guard inline, the drawing apart: a run without a trace asks once per kernel. */
static inline void trace_kernel(atoll_simdev *d, uint32_t sidx, stream *st, const entry *e, int64_t now) {
  if (d->trace)
    trace_kernel_span(d, sidx, st, e, now);
}

/* An RT kernel that started in the window completed: counted, and when it ran padded its
 * overhead against its time alone is recorded. */
static void note_rt_kernel(atoll_simdev *d, const stream *st, const entry *e, int64_t now) {
  if (!e->cmd.rt || !st->kt || st->kt->is_copy || st->start_ns < d->win0 || now > d->win1)
    return;
  d->rt_kernels++;
  if (st->pad < 0)
    return;
  int64_t *alone = &d->alone_ns[e->cmd.model][e->cmd.op];
  if (*alone == 0)
    *alone = atoll_kernel_alone_ns(d->g, d->timing[e->cmd.model] + e->cmd.op);
  if (d->n_pad_samples == d->cap_pad_samples) {
    uint32_t cap = d->cap_pad_samples ? d->cap_pad_samples * 2 : 256;
    atoll_pad_sample *ns = realloc(d->pad_samples, cap * sizeof *ns);
    if (!ns)
      return; /* a figure, not the run: a sample lost to memory is not worth failing it */
    d->pad_samples = ns, d->cap_pad_samples = cap;
  }
  d->pad_samples[d->n_pad_samples++] = (atoll_pad_sample){.launch_ns = now - st->start_ns, .alone_ns = *alone};
}

static void command_done(atoll_simdev *d, uint32_t sidx, int64_t now) {
  stream *st = &d->streams[sidx];
  const entry *e = head_of(st); /* read before the head moves on; its slot is reused by a later launch */
  uint64_t tag = e->cmd.tag;
  release_waiting_evictions(d, st);
  trace_kernel(d, sidx, st, e, now);
  note_rt_kernel(d, st, e, now);
  if (st->pad >= 0)
    d->pads[st->pad].live = 0;
  st->pad = -1;
  st->cu_lo = st->home_lo, st->cu_hi = st->home_hi;
  st->busy = 0;
  st->kt = NULL;
  st->head++;
  st->count--;
  st->dq_count--;
  note_left_n(d, st, 1);
  transmit(d, st);
  if (d->core)
    atoll_core_on_cmd_done(d->core, sidx, tag, now);
  stream_kick(d, sidx);
  kick_ring(d, sidx);
}

/* A BE part of a padded launch finished: the core hears of its blocks, the internal stream is
 * released, and the launch completes once its RT part and every part are done. */
static void part_done(atoll_simdev *d, uint32_t sidx, int64_t now) {
  stream *st = &d->streams[sidx];
  uint32_t owner = st->owner;
  uint64_t tag = st->part_tag;
  uint32_t blocks = st->part_blocks;
  st->busy = 0;
  st->kt = NULL;
  d->hidden_free[d->n_hidden_free++] = (int32_t)sidx;
  pad_rec *rec = &d->pads[d->streams[owner].pad];
  for (uint32_t i = 0; d->hooks && i < rec->n; i++)
    if (rec->parts[i].cmd.tag == tag)
      ATOLL_SIMDEV_HOOK(d->hooks, pad_part, owner, d->streams[owner].name, (int32_t)i, &rec->parts[i].cmd, blocks,
                        st->cu_lo, st->cu_hi, st->start_ns, now);
  if (d->core)
    atoll_core_on_blocks_done(d->core, owner, tag, blocks, now);
  if (--rec->remaining == 0 && rec->rt_done)
    command_done(d, owner, now);
}

/* Every block of a stream's running kernel has ended. */
static void kernel_done(void *ctx, uint32_t sidx, int64_t now) {
  atoll_simdev *d = ctx;
  stream *st = &d->streams[sidx];
  if (st->hidden) {
    part_done(d, sidx, now);
    return;
  }
  if (st->pad >= 0) {
    pad_rec *rec = &d->pads[st->pad];
    rec->rt_done = 1;
    ATOLL_SIMDEV_HOOK(d->hooks, pad_part, sidx, st->name, -1, &head_of(st)->cmd, st->kt->blocks, 0, rec->rt_cus,
                      st->start_ns, now);
    if (rec->remaining > 0)
      return; /* Rule 1 makes this rare: a BE part still runs */
  }
  command_done(d, sidx, now);
}

/* The bytes one block of a kernel op moves: its profile's bytes_per_block or, with sim.memory:
 * tensors, an estimate: every tensor it reads or writes once, over its grid (weights and inputs are
 * read from memory once and shared through the cache, so this is the least it can move). */
static uint64_t op_bytes_per_block(const atoll_scenario *s, const atoll_model *md, uint32_t op_index) {
  const atoll_op *op = &md->ops[op_index];
  uint64_t given = atoll_op_bytes_per_block(md, op_index);
  if (given || s->memory_estimate != ATOLL_MEMORY_TENSORS || op->kind != ATOLL_OP_KERNEL)
    return given;
  uint64_t bytes = 0, blocks = atoll_dim3_count(op->shape.grid);
  for (uint32_t i = 0; i < op->n_reads; i++)
    bytes += md->tensors[op->reads[i]].bytes;
  for (uint32_t i = 0; i < op->n_writes; i++)
    bytes += md->tensors[op->writes[i]].bytes;
  for (uint32_t i = 0; i < op->n_readwrites; i++)
    bytes += 2 * md->tensors[op->readwrites[i]].bytes; /* read, then written */
  return blocks ? (bytes + blocks - 1) / blocks : 0;
}

/* Version v (from 1) of op's kernel, as timing_for runs it before a batch or block range. */
static void prepare_version(const atoll_simdev *d, uint32_t model, uint32_t op_index, uint32_t v,
                            atoll_kernel_timing *out) {
  const atoll_model *md = &d->s->models[model].model;
  const atoll_op *op = &md->ops[op_index];
  const atoll_kernel_shape *shape = &op->versions[v - 1];
  atoll_kernel_timing_prepare_shape(d->tg, shape, out);
  /* A version moves the kernel's bytes over its own grid. */
  uint64_t vb = atoll_dim3_count(shape->grid), b0 = atoll_dim3_count(op->shape.grid);
  atoll_kernel_timing_memory(d->tg, vb ? op_bytes_per_block(d->s, md, op_index) * b0 / vb : 0, out);
}

/* Every version of op's kernel, prepared at the op's first versioned dispatch and kept: preparing
 * one again at each dispatch (demand fit and block-time solve) was a quarter of a multi-version
 * run's work. NULL when out of memory; the caller then prepares the one version it needs. */
static const atoll_kernel_timing *version_timings(atoll_simdev *d, uint32_t model, uint32_t op) {
  const atoll_model *md = &d->s->models[model].model;
  if (!d->version_timing && !(d->version_timing = calloc(d->s->n_models, sizeof *d->version_timing)))
    return NULL;
  if (!d->version_timing[model] && !(d->version_timing[model] = calloc(md->n_ops, sizeof **d->version_timing)))
    return NULL;
  atoll_kernel_timing **slot = &d->version_timing[model][op];
  if (!*slot && (*slot = malloc(md->ops[op].n_versions * sizeof **slot)))
    for (uint32_t v = 1; v <= md->ops[op].n_versions; v++)
      prepare_version(d, model, op, v, &(*slot)[v - 1]);
  return *slot;
}

/* The timing a dispatched command runs with: its op's, or its own copy for a version, a block
 * range or a batch. */
static const atoll_kernel_timing *timing_for(atoll_simdev *d, const atoll_cmd *cmd, atoll_kernel_timing *local) {
  assert(d->timing[cmd->model] && "a model no client sends has no timing (prepare_timings)");
  const atoll_kernel_timing *kt = d->timing[cmd->model] + cmd->op;
  if (cmd->version == 0 && cmd->block_n == 0 && cmd->batch <= 1)
    return kt;
  const atoll_model *md = &d->s->models[cmd->model].model;
  const atoll_op *op = &md->ops[cmd->op];
  if (cmd->version > 0) {
    const atoll_kernel_timing *versions = version_timings(d, cmd->model, cmd->op);
    if (versions)
      *local = versions[cmd->version - 1];
    else
      prepare_version(d, cmd->model, cmd->op, cmd->version, local);
  } else
    *local = *kt;
  atoll_kernel_timing_batch(d->tg, op, cmd->batch, local); /* a batch's run (docs/simulator.md) */
  if (cmd->block_n > 0 && cmd->block_n < local->blocks)
    local->blocks = cmd->block_n;
  return local;
}

/* Starts the BE parts of a padded launch on internal streams, on the CUs the RT part leaves. */
static void start_parts(atoll_simdev *d, uint32_t owner, pad_rec *rec) {
  uint32_t next_cu = rec->rt_cus;
  for (uint32_t i = 0; i < rec->n; i++) {
    const atoll_pad_part *part = &rec->parts[i];
    assert(d->n_hidden_free > 0 && "more padded parts in flight than internal streams");
    uint32_t h = (uint32_t)d->hidden_free[--d->n_hidden_free];
    stream *hs = &d->streams[h];
    timing_for(d, &part->cmd, &hs->kt_local);
    /* In the padded kernel every part runs at the launch's occupancy, in persistent-block form. */
    atoll_kernel_timing_padded(d->g, &d->s->models[part->cmd.model].model.ops[part->cmd.op], part->cmd.version,
                               part->occupancy, &hs->kt_local);
    hs->kt = &hs->kt_local;
    hs->started = 0;
    hs->rt = 0;
    hs->busy = 1;
    hs->owner = owner;
    hs->part_tag = part->cmd.tag;
    hs->part_blocks = hs->kt_local.blocks;
    /* Each part keeps to the CUs the selection gave it. */
    uint32_t hi = next_cu + (part->cus ? part->cus : d->g->cus - next_cu);
    hs->cu_lo = (uint16_t)next_cu, hs->cu_hi = (uint16_t)(hi < d->g->cus ? hi : d->g->cus);
    next_cu = hs->cu_hi;
    cu_submit(d, h);
  }
}

static void on_cp_done(atoll_simdev *d, uint32_t sidx, int64_t now) {
  d->cp_last = (int32_t)sidx;
  stream *st = &d->streams[sidx];
  entry *e = head_of(st);
  if (e->epoch < st->kill_epoch) {
    /* The flag was set while the CP dispatched it: its blocks exit in the prologue. */
    drop_head(d, sidx);
    return;
  }
  const atoll_kernel_timing *kt = timing_for(d, &e->cmd, &st->kt_local);
  st->kt = kt;
  st->started = 0;
  st->rt = e->cmd.rt;
  if (kt->is_copy) {
    /* The earliest-free copy engine takes it. */
    uint32_t best = 0;
    for (uint32_t i = 1; i < d->g->copy_engines; i++)
      if (d->engine_free_ns[i] < d->engine_free_ns[best])
        best = i;
    int64_t start = d->engine_free_ns[best] > now ? d->engine_free_ns[best] : now;
    d->engine_free_ns[best] = start + kt->copy_ns;
    st->start_ns = start;
    st->started = 1;
    if (d->core)
      atoll_core_on_cmd_started(d->core, sidx, e->cmd.tag, start);
    schedule(d, start + kt->copy_ns, ATOLL_EV_COMPLETE, atoll_simev(ATOLL_SIMEV_COPY_DONE, 0, sidx));
    return;
  }
  if (e->pad >= 0) {
    /* A padded launch: the RT part keeps to its reserved CUs and pays the padding overhead
     * (REEF §6.5: the dkp kernel's branch and set-up). */
    pad_rec *rec = &d->pads[e->pad];
    st->kt_local = *kt;
    st->kt_local.bt1_ns += st->kt_local.bt1_ns * d->g->costs.dkp_overhead_ppm / 1000000;
    st->kt = &st->kt_local;
    st->pad = e->pad;
    st->cu_lo = 0, st->cu_hi = (uint16_t)rec->rt_cus;
    rec->rt_done = 0;
    rec->remaining = rec->n;
    cu_submit(d, sidx);
    start_parts(d, sidx, rec);
  } else {
    cu_submit(d, sidx);
  }
  atoll_cu_place(d->cu);
}

/* CU reset: every running kernel of a flagged stream stops now. Its blocks free their CUs, its
 * waves' end events go stale, and its command leaves the DQ without completing. The core resets
 * CUs only when the running kernels belong to preempted streams; RT work launched after the flag
 * carries a newer epoch and is never killed. */
/* Whether the CU reset kills stream sidx's kernel: a kernel of a flagged stream (not a padded part,
 * not a copy) that was dispatched before the flag. */
static bool killable(void *ctx, uint32_t sidx) {
  atoll_simdev *d = ctx;
  const stream *st = &d->streams[sidx];
  return !st->hidden && st->busy && !st->evicting && st->kt != NULL && !st->kt->is_copy &&
         st->q[slot(st, st->head)].epoch < st->kill_epoch;
}

static void on_kill(atoll_simdev *d, int64_t now) {
  uint32_t killed_before = d->killed_kernels;
  atoll_cu_kill(d->cu, killable, d);
  for (uint32_t sidx = 0; sidx < d->n_streams; sidx++) {
    stream *st = &d->streams[sidx];
    if (!killable(d, sidx))
      continue;
    /* A kernel still being dispatched (no blocks yet) is not running: it exits at its prologue. */
    if (st->started) {
      d->killed_ns += now - st->start_ns;
      d->killed_kernels++;
      trace_kernel(d, sidx, st, head_of(st), now);
    }
    drop_head(d, sidx);
  }
  if (now > d->marks.kill_done_ns)
    d->marks.kill_done_ns = now;
  ATOLL_SIMDEV_HOOK(d->hooks, preempt_step, ATOLL_STEP_CU_RESET, UINT32_MAX, NULL, d->killed_kernels - killed_before,
                    now - d->g->costs.cu_reset_ns, now);
  atoll_cu_place(d->cu);
}

/* Every event of the device but the CUs' own (atoll_simdev_handle). */
static __attribute__((noinline)) void handle_other(atoll_simdev *d, uint64_t p, int64_t now) {
  switch (atoll_simev_type(p)) {
  case ATOLL_SIMEV_CP_DONE:
    on_cp_done(d, atoll_simev_id(p), now);
    break;
  case ATOLL_SIMEV_CP_WAKE: {
    stream *st = &d->streams[atoll_simev_id(p)];
    if (st->wake_ns == now)
      st->wake_ns = INT64_MAX;
    stream_kick(d, atoll_simev_id(p));
    break;
  }
  case ATOLL_SIMEV_COPY_DONE:
    command_done(d, atoll_simev_id(p), now);
    break;
  case ATOLL_SIMEV_EVICT_DONE:
    drop_head(d, atoll_simev_id(p));
    break;
  case ATOLL_SIMEV_KILL:
    on_kill(d, now);
    break;
  case ATOLL_SIMEV_TIMER:
    if (d->core)
      atoll_core_on_timer(d->core, d->timers[atoll_simev_id(p)], now);
    break;
  default:
    assert(0 && "unknown device event");
  }
}

void atoll_simdev_handle(atoll_simdev *d, uint64_t p, int64_t now) {
  /* Four events in five are ends of groups of blocks: they go straight to the CU model, without
   * the registers the other events' handling saves. */
  if (atoll_simev_type(p) == ATOLL_SIMEV_WAVE_END)
    atoll_cu_handle(d->cu, p, now);
  else
    handle_other(d, p, now);
}

/* --- device interface --- */

static int64_t dev_now(void *ctx) { return now_of(ctx); }

static void stream_init(atoll_simdev *d, stream *st, const char *name) {
  memset(st, 0, sizeof *st);
  st->wake_ns = INT64_MAX;
  st->pad = -1;
  st->ring_first = st->ring_next = -1;
  st->cu_lo = st->home_lo = 0, st->cu_hi = st->home_hi = (uint16_t)d->g->cus;
  snprintf(st->name, sizeof st->name, "%s", name);
}

static int dev_create_stream(void *ctx, const atoll_stream_cfg *cfg, uint32_t *id) {
  atoll_simdev *d = ctx;
  /* The stream array is sized once (the core's streams plus the internal ones padding uses), so
   * pointers into it stay valid while events are handled. */
  if (d->n_core_streams == d->cap_streams - MAX_HIDDEN)
    return ATOLL_ENOMEM;
  /* A binding must lie inside the GPU (docs/partitions.md): anything else is refused, not cut. */
  uint32_t lo = 0, hi = d->g->cus, runs = 0;
  if (!atoll_cuset_is_empty(&cfg->cus)) {
    runs = atoll_cuset_runs(&cfg->cus, &lo, &hi);
    hi = atoll_cuset_end(&cfg->cus);
    if (hi > d->g->cus)
      return ATOLL_ENOTSUP;
  }
  uint32_t sidx = d->n_core_streams++;
  stream *st = &d->streams[sidx];
  stream_init(d, st, cfg->name ? cfg->name : "stream");
  st->cu_lo = st->home_lo = (uint16_t)lo, st->cu_hi = st->home_hi = (uint16_t)hi;
  st->home = cfg->cus;
  st->home_gaps = runs > 1;
  st->own_channel = cfg->own_channel;
  /* An MPS client has a channel of its own; a bound stream (a partition) keeps its own ring too. */
  st->ring = cfg->own_channel || !atoll_cuset_is_empty(&cfg->cus) ? OWN_RING | sidx : ring_of(d->g, sidx);
  st->ring_first = (int32_t)sidx, st->ring_next = -1;
  for (uint32_t t = sidx; t-- > 0;)
    if (d->streams[t].ring == st->ring) { /* the ring's last stream so far: this one follows it */
      d->streams[t].ring_next = (int32_t)sidx;
      st->ring_first = d->streams[t].ring_first;
      break;
    }
  st->priority = cfg->priority;
  st->dq_cap = cfg->dq_capacity ? cfg->dq_capacity : d->g->dq_capacity;
  d->n_streams = d->n_core_streams;
  *id = sidx;
  if (d->trace)
    atoll_trace_name_track(d->trace, ATOLL_TRACK_STREAM, *id, st->name);
  return 0;
}

/* A re-provisioned share (gslice): the stream's home moves; a kernel running keeps its CUs and the
 * next one dispatched runs on the new set (command_done restores cu_lo/cu_hi from the home). */
static int dev_set_stream_cus(void *ctx, uint32_t sid, const atoll_cuset *cus) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_core_streams || !cus)
    return ATOLL_EINVAL;
  uint32_t lo = 0, hi = d->g->cus, runs = 0;
  if (!atoll_cuset_is_empty(cus)) {
    runs = atoll_cuset_runs(cus, &lo, &hi);
    hi = atoll_cuset_end(cus);
    if (hi > d->g->cus)
      return ATOLL_ENOTSUP;
  }
  stream *st = &d->streams[sid];
  st->home_lo = (uint16_t)lo, st->home_hi = (uint16_t)hi;
  st->home = *cus;
  st->home_gaps = runs > 1;
  if (!st->busy)
    st->cu_lo = st->home_lo, st->cu_hi = st->home_hi;
  return 0;
}

/* The internal streams padded parts run on, after the core's (created once the core made its). */
static void make_hidden(atoll_simdev *d) {
  if (d->n_streams > d->n_core_streams)
    return;
  for (uint32_t i = 0; i < MAX_HIDDEN; i++) {
    uint32_t sidx = d->n_core_streams + i;
    stream_init(d, &d->streams[sidx], "padding");
    d->streams[sidx].hidden = 1;
    d->hidden_free[d->n_hidden_free++] = (int32_t)(d->n_core_streams + MAX_HIDDEN - 1 - i);
  }
  d->n_streams = d->n_core_streams + MAX_HIDDEN;
}

static int dev_launch(void *ctx, uint32_t sid, const atoll_cmd *cmds, uint32_t n) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  stream *st = &d->streams[sid];
  if (st->count + n > st->cap) {
    uint32_t cap = st->cap ? st->cap : 64;
    while (cap < st->count + n)
      cap *= 2;
    entry *nq = malloc(cap * sizeof *nq);
    if (!nq)
      return ATOLL_ENOMEM;
    for (uint32_t i = 0; i < st->count; i++)
      nq[i] = st->q[slot(st, st->head + i)];
    free(st->q);
    st->q = nq, st->cap = cap, st->head = 0;
  }
  for (uint32_t i = 0; i < n; i++)
    st->q[slot(st, st->head + st->count + i)] = (entry){.cmd = cmds[i], .epoch = st->launch_epoch, .pad = -1};
  st->count += n;
  transmit(d, st);
  stream_kick(d, sid);
  return 0;
}

static int dev_launch_padded(void *ctx, uint32_t sid, const atoll_cmd *rt, uint32_t rt_cus, const atoll_pad_part *parts,
                             uint32_t n_parts) {
  atoll_simdev *d = ctx;
  /* Padding places blocks by CU position over the whole GPU: a bound stream cannot pad. */
  if (sid < d->n_core_streams && !atoll_cuset_is_empty(&d->streams[sid].home))
    return ATOLL_ENOTSUP;
  if (sid >= d->n_core_streams || n_parts > MAX_PARTS || rt_cus == 0 || rt_cus > d->g->cus)
    return ATOLL_EINVAL;
  if (n_parts == 0)
    return dev_launch(ctx, sid, rt, 1);
  make_hidden(d);
  if (d->n_pads == d->cap_pads) {
    uint32_t cap = d->cap_pads ? d->cap_pads * 2 : 16;
    pad_rec *np = realloc(d->pads, cap * sizeof *np);
    if (!np)
      return ATOLL_ENOMEM;
    d->pads = np, d->cap_pads = cap;
  }
  uint32_t r = 0; /* reuse a finished record, else grow */
  while (r < d->n_pads && d->pads[r].live)
    r++;
  if (r == d->n_pads)
    d->n_pads++;
  pad_rec *rec = &d->pads[r];
  memset(rec, 0, sizeof *rec);
  memcpy(rec->parts, parts, n_parts * sizeof *parts);
  rec->n = n_parts;
  rec->rt_cus = rt_cus;
  rec->live = 1;
  /* Selecting the padding is host work before the launch (REEF Fig. 26). */
  int64_t now = now_of(d);
  d->host_free_ns = (d->host_free_ns > now ? d->host_free_ns : now) + d->g->costs.kernel_select_ns;
  int rc = dev_launch(ctx, sid, rt, 1);
  if (rc == 0) {
    stream *st = &d->streams[sid];
    st->q[slot(st, st->head + st->count - 1)].pad = (int32_t)r;
  }
  return rc;
}

static int dev_set_timer(void *ctx, int64_t at, uint64_t cookie) {
  atoll_simdev *d = ctx;
  if (d->n_timers == d->cap_timers) {
    uint32_t cap = d->cap_timers ? d->cap_timers * 2 : 16;
    uint64_t *nt = realloc(d->timers, cap * sizeof *nt);
    if (!nt)
      return ATOLL_ENOMEM;
    d->timers = nt, d->cap_timers = cap;
  }
  d->timers[d->n_timers] = cookie;
  schedule(d, at < now_of(d) ? now_of(d) : at, ATOLL_EV_TIMER, atoll_simev(ATOLL_SIMEV_TIMER, 0, d->n_timers++));
  return 0;
}

static int dev_reset_hq(void *ctx, uint32_t sid, bool async_reclaim, uint32_t *dropped) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  stream *st = &d->streams[sid];
  /* Commands whose transmit has not completed are still the host's: they go with the HQ, and the
   * transmit in flight is abandoned. */
  int64_t now = now_of(d);
  uint32_t arrived = 0;
  while (arrived < st->dq_count && (arrived == 0 && st->busy ? 1 : st->q[slot(st, st->head + arrived)].ready_ns <= now))
    arrived++;
  uint32_t n = st->count - arrived;
  st->count = st->dq_count = arrived; /* the HQ part of the deque is gone */
  st->transmit_free_ns = now;
  note_left_n(d, st, n);
  /* Reclaiming the dropped commands is host work before anything else is launched: per command
   * when synchronous, a constant hand-off to the GC thread when asynchronous (REEF Fig. 20(b));
   * nothing to reclaim costs nothing. */
  int64_t cost = n == 0 ? 0
                 : async_reclaim ? d->g->costs.hq_reset_async_ns
                                 : (int64_t)n * d->g->costs.hq_reset_per_cmd_ns;
  d->host_free_ns = (d->host_free_ns > now ? d->host_free_ns : now) + cost;
  if (d->host_free_ns > d->marks.hq_done_ns)
    d->marks.hq_done_ns = d->host_free_ns;
  ATOLL_SIMDEV_HOOK(d->hooks, preempt_step, ATOLL_STEP_HQ_RESET, sid, st->name, n, d->host_free_ns - cost,
                    d->host_free_ns);
  ATOLL_SIMDEV_HOOK(d->hooks, queue_depth, sid, st->name, st->count - st->dq_count, st->dq_count, now);
  if (dropped)
    *dropped = n;
  return 0;
}

static int dev_set_preempt_flag(void *ctx, uint32_t sid, bool on) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  stream *st = &d->streams[sid];
  if (on) {
    /* Everything launched so far exits at its prologue; what is launched from now on runs. Epochs
     * make clearing the flag unnecessary: no later command can be caught by it. */
    st->kill_epoch = ++st->launch_epoch;
    /* The commands waiting in the DQ were enqueued before anything launched from now on, so the
     * CP fetches and dispatches them first, and later dispatches wait behind them (REEF Fig.
     * 20(b): the DQ reset is part of the preemption latency). A stream processes its queue in
     * order, so while its head runs (until killed or completed) the CP cannot reach them: their
     * CP time is reserved when the head leaves. */
    /* Only commands that have reached the DQ wait there: one still in its HQ-to-DQ transmit, or
     * still in the HQ (no HQ reset: REEF's wait-based baseline), is fetched and evicted when it
     * arrives (stream_kick), the first of them paying the DQ reset if nothing was waiting. */
    int64_t now = now_of(d);
    uint32_t arrived = st->busy ? 1 : 0;
    while (arrived < st->dq_count && st->q[slot(st, st->head + arrived)].ready_ns <= now)
      arrived++;
    uint32_t held = (st->busy ? 1 : 0) + st->prepaid + st->to_reserve;
    uint32_t waiting = arrived > held ? arrived - held : 0;
    if (waiting == 0 && st->count > arrived)
      st->reset_owed = 1;
    ATOLL_SIMDEV_HOOK(d->hooks, preempt_step, ATOLL_STEP_FLAG, sid, st->name, waiting, now, now);
    if (st->busy && !st->evicting)
      st->to_reserve += waiting;
    else
      reserve_evictions(d, st, waiting);
  }
  return 0;
}

static int dev_notify_drained(void *ctx, uint64_t cookie) {
  atoll_simdev *d = ctx;
  if (d->drain_waiting > 0)
    return ATOLL_EFULL; /* one synchronize at a time */
  d->drain_cookie = cookie;
  /* The core's streams; padded parts leave with their launches. */
  for (uint32_t i = 0; i < d->n_core_streams; i++) {
    stream *st = &d->streams[i];
    if (st->count == 0)
      continue;
    st->drain_at = st->left + st->count;
    d->drain_waiting++;
  }
  return d->drain_waiting > 0 ? 0 : dev_set_timer(d, now_of(d), cookie);
}

static int dev_reset_cus(void *ctx) {
  atoll_simdev *d = ctx;
  int64_t at = now_of(d) + d->g->costs.cu_reset_ns;
  schedule(d, at, ATOLL_EV_COMPLETE, atoll_simev(ATOLL_SIMEV_KILL, 0, 0));
  return 0;
}

static int dev_set_dq_capacity(void *ctx, uint32_t sid, uint32_t capacity) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams || capacity == 0)
    return ATOLL_EINVAL;
  stream *st = &d->streams[sid];
  /* A smaller capacity applies as commands leave: nothing already in the DQ is pushed back. */
  st->dq_cap = capacity;
  transmit(d, st);
  stream_kick(d, sid);
  return 0;
}

static int dev_exec_index(void *ctx, uint32_t sid, uint64_t *tag) {
  atoll_simdev *d = ctx;
  if (sid >= d->n_streams)
    return ATOLL_EINVAL;
  if (!d->streams[sid].has_exec_tag)
    return ATOLL_ENOENT;
  *tag = d->streams[sid].exec_tag;
  return 0;
}

static const atoll_device_ops simdev_ops = {
    .now = dev_now,
    .create_stream = dev_create_stream,
    .launch = dev_launch,
    .launch_padded = dev_launch_padded,
    .set_timer = dev_set_timer,
    .reset_hq = dev_reset_hq,
    .set_preempt_flag = dev_set_preempt_flag,
    .reset_cus = dev_reset_cus,
    .set_dq_capacity = dev_set_dq_capacity,
    .set_stream_cus = dev_set_stream_cus,
    .exec_index = dev_exec_index,
    .notify_drained = dev_notify_drained,
};

void atoll_simdev_take_marks(atoll_simdev *d, atoll_simdev_marks *out) {
  *out = d->marks;
  d->marks = (atoll_simdev_marks){0};
}

uint64_t atoll_simdev_rt_beside_be(const atoll_simdev *d) { return atoll_cu_rt_beside_be(d->cu); }

uint64_t atoll_simdev_cu_groups(const atoll_simdev *d) { return atoll_cu_groups(d->cu); }

void atoll_simdev_killed(const atoll_simdev *d, int64_t *killed_ns, uint32_t *killed_kernels) {
  *killed_ns = d->killed_ns;
  *killed_kernels = d->killed_kernels;
}

atoll_device atoll_simdev_device(atoll_simdev *d) { return (atoll_device){.ops = &simdev_ops, .ctx = d}; }

void atoll_simdev_attach(atoll_simdev *d, atoll_core *core) { d->core = core; }

const atoll_kernel_timing *atoll_simdev_timing(const atoll_simdev *d, uint32_t model, uint32_t op) {
  assert(d->timing[model] && "a model no client sends has no timing (prepare_timings)");
  return &d->timing[model][op];
}

/* Every op's timing of the models the clients send (a model no client sends is never dispatched,
 * and is left NULL: a standalone run's device holds one client, and preparing the whole scenario for
 * each made its setup six times the work on DISB C), each distinct kernel shape prepared once, or
 * taken from the memo earlier runs filled (atoll_simdev_cfg.shape_memo). */
static int prepare_timings(atoll_simdev *d, const atoll_scenario *s, atoll_shape_memo *shared) {
  uint32_t kernels = 0;
  for (uint32_t m = 0; m < s->n_models; m++)
    kernels += s->models[m].model.n_ops;
  atoll_shape_memo own, *memo = shared && shared->g == d->tg ? shared : &own;
  if (memo == &own && atoll_shape_memo_init(&own, d->tg, kernels) != 0)
    return ATOLL_ENOMEM;
  int rc = 0;
  for (uint32_t m = 0; m < s->n_models && rc == 0; m++) {
    bool sent = false;
    for (uint32_t c = 0; c < s->n_clients && !sent; c++)
      sent = s->clients[c].model == m;
    if (!sent)
      continue;
    const atoll_model *md = &s->models[m].model;
    d->timing[m] = calloc(md->n_ops, sizeof **d->timing);
    d->alone_ns[m] = calloc(md->n_ops, sizeof **d->alone_ns);
    if (!d->timing[m] || !d->alone_ns[m]) {
      rc = ATOLL_ENOMEM;
      break;
    }
    for (uint32_t i = 0; i < md->n_ops; i++) {
      atoll_shape_memo_prepare(memo, md, i, &d->timing[m][i]);
      if (s->memory_estimate == ATOLL_MEMORY_TENSORS && !atoll_op_bytes_per_block(md, i))
        atoll_kernel_timing_memory(d->tg, op_bytes_per_block(s, md, i), &d->timing[m][i]);
    }
  }
  if (memo == &own)
    atoll_shape_memo_free(&own);
  return rc;
}

int atoll_simdev_create(atoll_simdev **out, const atoll_simdev_cfg *cfg) {
  const atoll_scenario *s = cfg->scenario;
  atoll_simdev *d = calloc(1, sizeof *d);
  if (!d)
    return ATOLL_ENOMEM;
  d->s = s, d->g = &s->gpu, d->evq = cfg->evq, d->trace = cfg->trace, d->hooks = cfg->hooks;
  d->tg = cfg->timing_gpu ? cfg->timing_gpu : &s->gpu;
  d->cp_last = -1;
  d->win0 = cfg->window_start_ns, d->win1 = cfg->window_end_ns;
  d->engine_free_ns = calloc(s->gpu.copy_engines, sizeof *d->engine_free_ns);
  d->timing = calloc(s->n_models, sizeof *d->timing);
  d->alone_ns = calloc(s->n_models, sizeof *d->alone_ns);
  /* Every policy makes at most one stream per client (plus none for RT in REEF's layout). */
  d->cap_streams = s->n_clients + 1 + MAX_HIDDEN;
  d->streams = calloc(d->cap_streams, sizeof *d->streams);
  if (!d->engine_free_ns || !d->timing || !d->alone_ns || !d->streams) {
    atoll_simdev_destroy(d);
    return ATOLL_ENOMEM;
  }
  if (prepare_timings(d, s, cfg->shape_memo) != 0) {
    atoll_simdev_destroy(d);
    return ATOLL_ENOMEM;
  }
  atoll_cu_model_cfg ccfg = {.engine = s->engine, .gpu = &s->gpu, .max_jobs = d->cap_streams, .evq = d->evq,
                             .trace = d->trace, .sink = {.ctx = d, .started = cu_started, .done = kernel_done,
                                                         .name = cu_name},
                             .window_start_ns = d->win0, .window_end_ns = d->win1,
                             .chooser = cfg->chooser, .timing_spread = s->timing_spread};
  int rc = atoll_cu_model_create(&d->cu, &ccfg);
  if (rc) {
    atoll_simdev_destroy(d);
    return rc;
  }
  *out = d;
  return 0;
}

void atoll_simdev_finish(atoll_simdev *d, int64_t now, int64_t *busy, int64_t *busy_rt, int64_t *busy_be) {
  atoll_cu_busy(d->cu, now, busy, busy_rt, busy_be);
}

void atoll_simdev_padding(const atoll_simdev *d, atoll_simdev_padding_stats *out) {
  *out = (atoll_simdev_padding_stats){.busy_padded_ns = atoll_cu_busy_padded(d->cu), .rt_kernels = d->rt_kernels,
                                      .samples = d->pad_samples, .n_samples = d->n_pad_samples};
}

void atoll_simdev_destroy(atoll_simdev *d) {
  if (!d)
    return;
  free(d->pads);
  for (uint32_t i = 0; i < d->n_streams; i++)
    free(d->streams[i].q);
  if (d->timing)
    for (uint32_t m = 0; m < d->s->n_models; m++)
      free(d->timing[m]);
  if (d->alone_ns)
    for (uint32_t m = 0; m < d->s->n_models; m++)
      free(d->alone_ns[m]);
  free(d->alone_ns);
  if (d->version_timing)
    for (uint32_t m = 0; m < d->s->n_models; m++) {
      for (uint32_t i = 0; d->version_timing[m] && i < d->s->models[m].model.n_ops; i++)
        free(d->version_timing[m][i]);
      free(d->version_timing[m]);
    }
  free(d->version_timing);
  free(d->pad_samples);
  free(d->timing);
  free(d->streams);
  atoll_cu_model_destroy(d->cu);
  free(d->engine_free_ns);
  free(d->timers);
  free(d);
}

/* --- the explorer's view (simdev.h) --- */

static uint64_t cmd_hash(uint64_t h, const atoll_cmd *c) {
  h = atoll__hmix(h, ((uint64_t)c->model << 32) | c->op);
  h = atoll__hmix(h, c->tag);
  h = atoll__hmix(h, ((uint64_t)c->rt << 32) | c->version);
  return atoll__hmix(h, ((uint64_t)c->block_lo << 32) | c->block_n);
}

static uint64_t pad_hash(const atoll_simdev *d, int32_t r, uint64_t h) {
  if (r < 0)
    return atoll__hmix(h, 0);
  const pad_rec *rec = &d->pads[r];
  h = atoll__hmix(h, ((uint64_t)rec->n << 32) | rec->remaining);
  h = atoll__hmix(h, ((uint64_t)rec->rt_cus << 16) | ((uint64_t)rec->rt_done << 8) | rec->live);
  for (uint32_t i = 0; i < rec->n; i++)
    h = atoll__hmix(cmd_hash(h, &rec->parts[i].cmd), ((uint64_t)rec->parts[i].occupancy << 32) | rec->parts[i].cus);
  return h;
}

static uint64_t timing_hash(uint64_t h, const atoll_kernel_timing *kt) {
  if (!kt)
    return atoll__hmix(h, 0);
  h = atoll__hmix(h, ((uint64_t)kt->is_copy << 32) | kt->blocks);
  h = atoll__hmix(h, ((uint64_t)kt->block_units << 32) | kt->demand);
  h = atoll__hmix(h, (uint64_t)kt->bt1_ns);
  return atoll__hmix(h, (uint64_t)kt->copy_ns);
}

/* Everything a stream does next depends on: its queues (times already past count as now), the
 * CP's progress on it, the preemption epochs, the running kernel. Start and dispatch times only
 * feed statistics and the timeline, and are left out. */
static uint64_t stream_hash(const atoll_simdev *d, const stream *st, uint64_t h, int64_t now) {
  h = atoll__hmix(h, ((uint64_t)st->priority << 32) | st->dq_cap);
  h = atoll__hmix(h, ((uint64_t)st->count << 32) | st->dq_count);
  for (uint32_t i = 0; i < st->count; i++) {
    const entry *e = &st->q[slot(st, st->head + i)];
    h = cmd_hash(h, &e->cmd);
    h = i < st->dq_count ? atoll__hmix_after(h, e->ready_ns, now) : atoll__hmix(h, 0);
    h = pad_hash(d, e->pad, atoll__hmix(h, e->epoch));
  }
  h = atoll__hmix_after(h, st->transmit_free_ns, now);
  h = atoll__hmix(h, (uint64_t)st->wake_ns);
  h = atoll__hmix(h, ((uint64_t)st->launch_epoch << 32) | st->kill_epoch);
  h = atoll__hmix(h, ((uint64_t)st->busy << 24) | ((uint64_t)st->evicting << 16) | ((uint64_t)st->started << 8) | st->rt);
  h = atoll__hmix(h, ((uint64_t)st->prepaid << 32) | st->to_reserve);
  if (st->drain_at || st->reset_owed) /* only the wait policy's preemptions set them */
    h = atoll__hmix(atoll__hmix(h, st->drain_at ? st->drain_at - st->left : 0), st->reset_owed);
  h = atoll__hmix(h, ((uint64_t)st->cu_lo << 16) | st->cu_hi);
  h = pad_hash(d, st->pad, h);
  h = atoll__hmix(h, ((uint64_t)st->hidden << 32) | st->owner);
  h = atoll__hmix(h, st->part_tag);
  h = atoll__hmix(h, st->part_blocks);
  h = timing_hash(h, st->kt);
  return atoll__hmix(h, st->has_exec_tag ? st->exec_tag : UINT64_MAX);
}

int atoll_simdev_hash(const atoll_simdev *d, bool with_marks, uint64_t *hp) {
  int64_t now = now_of(d);
  uint64_t h = atoll__hmix(*hp, ((uint64_t)d->n_streams << 32) | d->n_core_streams);
  for (uint32_t i = 0; i < d->n_streams; i++)
    h = stream_hash(d, &d->streams[i], h, now);
  h = atoll__hmix(h, (uint64_t)(int64_t)d->cp_last);
  h = atoll__hmix_after(h, d->host_free_ns, now);
  h = atoll__hmix_after(h, d->cp_evict_free_ns, now);
  if (d->drain_waiting)
    h = atoll__hmix(atoll__hmix(h, d->drain_waiting), d->drain_cookie);
  /* The marks only become the breakdown of the preemption being measured. */
  if (with_marks) {
    h = atoll__hmix(h, (uint64_t)d->marks.hq_done_ns);
    h = atoll__hmix(h, (uint64_t)d->marks.evict_done_ns);
    h = atoll__hmix(h, (uint64_t)d->marks.kill_done_ns);
    h = atoll__hmix(h, d->marks.evicted);
  }
  for (uint32_t i = 0; i < d->g->copy_engines; i++)
    h = atoll__hmix_after(h, d->engine_free_ns[i], now);
  h = atoll__hmix(h, d->n_hidden_free);
  for (uint32_t i = 0; i < d->n_hidden_free; i++)
    h = atoll__hmix(h, (uint64_t)d->hidden_free[i]);
  *hp = h;
  return atoll_cu_hash(d->cu, hp);
}

bool atoll_simdev_event_hash(const atoll_simdev *d, uint64_t p, uint64_t *h) {
  uint32_t type = atoll_simev_type(p), id = atoll_simev_id(p);
  if (!h) /* only whether it is live */
    return type != ATOLL_SIMEV_WAVE_END || atoll_cu_event_hash(d->cu, p, NULL);
  *h = atoll__hmix(*h, type);
  switch (type) {
  case ATOLL_SIMEV_WAVE_END:
    return atoll_cu_event_hash(d->cu, p, h);
  case ATOLL_SIMEV_TIMER:
    *h = atoll__hmix(*h, d->timers[id]); /* the cookie, not the slot it was kept in */
    return true;
  default:
    *h = atoll__hmix(*h, id);
    return true;
  }
}

/* --- the explorer's checkpoints (simdev.h) --- */

int atoll_simdev_save(const atoll_simdev *d, atoll_snapbuf *b) {
  atoll_snapbuf_put(b, d, sizeof *d);
  atoll_snapbuf_put(b, d->streams, d->n_streams * sizeof *d->streams);
  /* Each stream's commands in order from its head: where the ring starts never shows. */
  for (uint32_t i = 0; i < d->n_streams; i++) {
    const stream *st = &d->streams[i];
    for (uint32_t k = 0; k < st->count; k++)
      atoll_snapbuf_put(b, &st->q[slot(st, st->head + k)], sizeof *st->q);
  }
  atoll_snapbuf_put(b, d->engine_free_ns, d->g->copy_engines * sizeof *d->engine_free_ns);
  atoll_snapbuf_put(b, d->timers, d->n_timers * sizeof *d->timers);
  atoll_snapbuf_put(b, d->pad_samples, d->n_pad_samples * sizeof *d->pad_samples);
  atoll_snapbuf_put(b, d->pads, d->n_pads * sizeof *d->pads);
  return atoll_cu_save(d->cu, b);
}

int atoll_simdev_restore(atoll_simdev *d, atoll_snapbuf *b) {
  /* The saved scalars, with this device's own storage and configuration kept. */
  atoll_simdev keep = *d;
  atoll_snapbuf_get(b, d, sizeof *d);
  d->s = keep.s, d->g = keep.g, d->evq = keep.evq, d->trace = keep.trace, d->hooks = keep.hooks;
  d->core = keep.core, d->timing = keep.timing, d->tg = keep.tg, d->cu = keep.cu, d->alone_ns = keep.alone_ns;
  d->version_timing = keep.version_timing;
  d->streams = keep.streams, d->cap_streams = keep.cap_streams, d->engine_free_ns = keep.engine_free_ns;
  d->timers = keep.timers, d->cap_timers = keep.cap_timers;
  d->pad_samples = keep.pad_samples, d->cap_pad_samples = keep.cap_pad_samples;
  d->pads = keep.pads, d->cap_pads = keep.cap_pads;
  /* Streams made after the save (padding's internal ones) are made again when needed. */
  for (uint32_t i = d->n_streams; i < keep.n_streams; i++) {
    free(d->streams[i].q);
    d->streams[i].q = NULL, d->streams[i].cap = d->streams[i].count = 0;
  }
  int rc = 0;
  for (uint32_t i = 0; i < d->n_streams; i++) {
    stream *st = &d->streams[i];
    entry *q = i < keep.n_streams ? st->q : NULL;
    uint32_t cap = i < keep.n_streams ? st->cap : 0;
    atoll_snapbuf_get(b, st, sizeof *st);
    st->q = q, st->cap = cap;
  }
  for (uint32_t i = 0; i < d->n_streams; i++) {
    stream *st = &d->streams[i];
    st->head = 0;
    if (rc == 0 && st->count > st->cap) {
      uint32_t cap = st->cap, want = 64; /* a power of two, as dev_launch grows it (slot) */
      while (want < st->count)
        want *= 2;
      rc = atoll_snapbuf_room_for((void **)&st->q, &cap, want, sizeof *st->q);
      st->cap = cap;
    }
    if (rc)
      return rc;
    atoll_snapbuf_get(b, st->q, st->count * sizeof *st->q);
  }
  atoll_snapbuf_get(b, d->engine_free_ns, d->g->copy_engines * sizeof *d->engine_free_ns);
  if ((rc = atoll_snapbuf_room_for((void **)&d->timers, &d->cap_timers, d->n_timers, sizeof *d->timers)) ||
      (rc = atoll_snapbuf_room_for((void **)&d->pad_samples, &d->cap_pad_samples, d->n_pad_samples,
                                   sizeof *d->pad_samples)) ||
      (rc = atoll_snapbuf_room_for((void **)&d->pads, &d->cap_pads, d->n_pads, sizeof *d->pads)))
    return rc;
  atoll_snapbuf_get(b, d->timers, d->n_timers * sizeof *d->timers);
  atoll_snapbuf_get(b, d->pad_samples, d->n_pad_samples * sizeof *d->pad_samples);
  atoll_snapbuf_get(b, d->pads, d->n_pads * sizeof *d->pads);
  return atoll_cu_restore(d->cu, b);
}
