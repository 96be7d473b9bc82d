/* nrt.h — the native runtime: the scheduler core's device interface over a native back-end.
 *
 * How it drives the GPU (docs/native.md has the whole story): the runtime holds what REEF changed
 * inside the vendor runtime, once for every back-end (native/backend.h):
 *   - per stream, a host queue (HQ: a linked list the core's launches append to) and a transmit
 *     thread that moves its head into the back-end's hardware queue while the stream's in-flight
 *     count is below its device-queue (DQ) capacity, which can be changed at run time;
 *   - HQ reset: the list is cut off at once; its nodes are freed by the caller (synchronous
 *     reclamation) or handed to the GC thread (asynchronous reclamation, REEF §4.2);
 *   - the preempt flag in device memory, set through the back-end without queueing behind launches.
 *     Every launch in flight when it is set is evicted by the prologue (or killed); the runtime
 *     clears the flag once the last of them has completed and holds later launches in the HQ until
 *     then, so no launch made after the preemption can be caught by it (DESIGN.md, "Restore
 *     timing");
 *   - the execution index: the back-end's prologue records the launch tag; the runtime maps it back
 *     to the core's command tag;
 *   - one scheduler thread that owns the core (core/ is single threaded): back-end completions and
 *     client arrivals are posted to an inbox that it drains, busy-polling while work is recent and
 *     parking on a condition variable after `spin_ns` without events.
 *
 * Every atoll_device_ops entry is called by the scheduler thread only (from inside the core's event
 * functions), and the core's events are only called from that thread. */
#ifndef ATOLL_NATIVE_NRT_H
#define ATOLL_NATIVE_NRT_H

#include <stdbool.h>
#include <stddef.h>
#include <pthread.h>
#include <stdint.h>
#include <time.h>

#include "atoll/device.h"
#include "native/backend.h"
#include "core/sched.h"

typedef struct atoll_nrt atoll_nrt;

/* Turns one queued command into a back-end launch, on the stream's transmit thread. `payload` is
 * what atoll_nrt_payload_fn returned for the command when it was launched (for padded launches,
 * part_payloads[i] for part i). The runtime fills in tags. Must only read data that does not change
 * while the run lasts. */
typedef struct atoll_nrt_bind_req {
  const atoll_cmd *cmd;
  void *payload;
  /* Padded launches. */
  uint32_t rt_cus;
  const atoll_pad_part *parts;
  void *const *part_payloads;
  uint32_t n_parts;
} atoll_nrt_bind_req;
typedef int (*atoll_nrt_bind_fn)(void *ctx, const atoll_nrt_bind_req *req, atoll_nlaunch *out);
/* On the scheduler thread, while the core launches `cmd`: the payload its binding will get. */
typedef void *(*atoll_nrt_payload_fn)(void *ctx, const atoll_cmd *cmd);

/* Events in the scheduler's inbox. The runtime handles the device's own; the others (arrivals and
 * whatever a runner posts) go to the runner's handler, on the scheduler thread. */
typedef enum atoll_nrt_ev_kind {
  ATOLL_NRT_EV_START = 1,  /* a launch passed its prologue */
  ATOLL_NRT_EV_DONE,       /* a launch completed (status says how) */
  ATOLL_NRT_EV_PART_DONE,  /* a BE part of a padded launch completed */
  ATOLL_NRT_EV_DRAINED,    /* a flagged stream's evicted launches have all left: its flag is clear */
  ATOLL_NRT_EV_ARRIVAL,    /* a client request (runner-defined payload) */
  ATOLL_NRT_EV_USER        /* anything else a runner posts */
} atoll_nrt_ev_kind;

typedef struct atoll_nrt_event {
  uint8_t kind, status; /* status: atoll_ndone_status for DONE / PART_DONE */
  uint8_t rt;
  uint32_t stream;
  uint32_t a, b;        /* DONE: model, op; PART_DONE: blocks; ARRIVAL/USER: the poster's */
  uint64_t tag;         /* the core's command tag */
  int64_t at_ns;        /* when it happened (runtime clock) */
  int64_t start_ns;     /* DONE: when the launch passed its prologue (-1: never) */
  uint64_t seq;         /* START/DONE: the launch's sequence number on its stream (from 1) */
  void *ptr;            /* ARRIVAL/USER: the poster's */
} atoll_nrt_event;

typedef void (*atoll_nrt_handler_fn)(void *ctx, const atoll_nrt_event *ev);

/* Preemption marks, as the simulated device keeps them (sim/simdev.h): when the current
 * preemption's steps finished, on the runtime clock (0: not done), and how many launches the
 * flag evicted. The dev_ marks are the back-end's own timestamps of the steps (backend.h
 * preempt_times) on the runtime clock, 0 where the back-end has none: the flag reaching device
 * memory, the last eviction, the last killed block stopping, the first RT kernel's prologue. */
typedef struct atoll_nrt_marks {
  int64_t hq_done_ns, evict_done_ns, kill_done_ns;
  uint32_t evicted;
  int64_t dev_flag_ns, dev_drain_ns, dev_kill_ns, dev_rt_start_ns;
} atoll_nrt_marks;

typedef struct atoll_nrt_stats {
  uint64_t events;            /* inbox events handled */
  uint64_t launches;          /* submitted to the back-end */
  uint64_t evicted, killed;   /* launches completed EVICTED / KILLED */
  uint64_t faults;            /* launches completed FAULT, or failed to bind or submit */
  uint64_t hq_reset_cmds;     /* commands dropped by HQ resets */
  uint64_t gc_freed;          /* of them, freed by the GC thread */
  uint64_t cu_resets;
  int64_t killed_gpu_ns;      /* killed launches: their run time until the kill */
  int64_t reset_cus_ns_total; /* time spent inside the back-end's reset_cus */
  uint64_t withheld;          /* completions superseded by a preemption's restart point */
  uint64_t padded_parts;      /* BE parts of padded launches that ran to the end */
  uint64_t tx_wakeups;        /* transmit threads woken (each wake-up is a thread hand-off) */
  uint64_t queue_moves;       /* queues moved to other CUs (re-provisioned shares, set_stream_cus) */
} atoll_nrt_stats;

typedef struct atoll_nrt_cfg {
  const atoll_nbackend_ops *be_ops;
  /* The back-end is opened by atoll_nrt_create with these settings (cus, slots_per_cu,
   * pin_threads; the callbacks are the runtime's) and closed by atoll_nrt_destroy. */
  atoll_nbackend_cfg be_cfg;
  atoll_nrt_bind_fn bind;
  atoll_nrt_payload_fn payload; /* NULL: payloads are NULL */
  void *bind_ctx;
  /* Every event, on the scheduler thread, after the runtime's own handling (device events reach
   * the core first; the handler may draw them); ARRIVAL and USER events are the handler's alone. */
  atoll_nrt_handler_fn handler;
  void *handler_ctx;
  uint32_t stock_dq_capacity;  /* a stream's DQ depth when the core asks for 0; 0: 1024 */
  int64_t spin_ns;             /* busy-poll this long after the last event before parking; <0: never park */
  int sched_cpu;               /* pin the scheduler thread to this CPU; <0: not pinned */
  /* atoll's SM reserve for RT (docs/native-gpu.md, "Preemption latency options"; spatial, not
   * REEF's): > 0 binds every high-priority stream (the RT queue under a reset policy's priority
   * option) to the device's first rt_reserve_cus CUs and every other stream to the rest, through
   * the back-end's create_bound_queue (CUDA: green contexts, rounded up there). Streams the core
   * binds itself keep their set. 0: off. */
  uint32_t rt_reserve_cus;
  /* dart's node workers (docs/dart.md, "Runtime threads"): the scheduler thread and the transmit
   * threads of priority > 0 streams run in the RT class, SCHED_FIFO at ATOLL_NRT_FIFO_PRIO, so that
   * an RT stage's hand-over and launch do not wait behind BE workers' CPU work. Where SCHED_FIFO is
   * refused they stay at the normal priority (the CPU back-end's fallback lowers its BE workers to
   * nice 19 then). At SCHED_FIFO the scheduler parks as soon as its inbox is empty (spin_ns is not
   * applied): a busy-polling SCHED_FIFO thread would hold its CPU from every normal thread. */
  bool rt_threads;
} atoll_nrt_cfg;

/* The RT class of the runtime's threads (cfg.rt_threads): above the CPU back-end's RT workers
 * (ATOLL_NCPU_RT_FIFO_PRIO, 1), since a hand-over is short and an RT worker's block may be long;
 * where the process's RLIMIT_RTPRIO stops below it, the highest priority it allows. */
enum { ATOLL_NRT_FIFO_PRIO = 2 };

/* Whether cfg.rt_threads asks for SCHED_FIFO at all (default true). Tests turn it off, before
 * creating the runtime, to run the fallback where the process could use SCHED_FIFO. */
void atoll_nrt_set_rt_fifo(bool try_fifo);

/* The CUs a stream gets under the RT reserve: [0, reserve) for high-priority streams, [reserve,
 * cus) for the others; false (no binding) when the reserve is 0 or leaves no CU on either side. */
bool atoll_nrt_reserve_set(uint32_t reserve, uint32_t cus, uint32_t priority, atoll_cuset *out);

/* Opens the back-end and starts the GC thread; the runtime clock's origin is taken here. Returns
 * 0, the back-end's error (ATOLL_ENODEV with its text in err), or ATOLL_ENOMEM. */
int atoll_nrt_create(atoll_nrt **out, const atoll_nrt_cfg *cfg, char *err, size_t err_len);
/* The opened back-end, for memory and synchronous copies (any thread). */
void *atoll_nrt_backend(const atoll_nrt *r);
/* Why creating a stream bound to CUs failed (the back-end's message); "" when none did. */
const char *atoll_nrt_stream_error(const atoll_nrt *r);
/* How many times stream sid's queue has moved to other CUs (set_stream_cus, a re-provisioned share). */
uint32_t atoll_nrt_stream_moves(atoll_nrt *r, uint32_t sid);
/* Whether anything failed to bind or submit, or completed with a fault (ATOLL_E* code, 0: none). */
int atoll_nrt_failure(const atoll_nrt *r);
/* Stops every thread (scheduler, transmit, GC). Launches still in flight are evicted and killed
 * first, so the back-end is idle when this returns. */
void atoll_nrt_destroy(atoll_nrt *r);
atoll_device atoll_nrt_device(atoll_nrt *r);
/* The core whose events the scheduler thread calls (set before atoll_nrt_start). */
void atoll_nrt_attach(atoll_nrt *r, atoll_core *core, const atoll_core_observer *obs);
int64_t atoll_nrt_now(const atoll_nrt *r);
/* The runtime clock's origin (CLOCK_MONOTONIC), for client threads that sleep until a time. */
void atoll_nrt_epoch(const atoll_nrt *r, struct timespec *out);

/* Starts the scheduler thread; `first`, when not NULL, runs on it before the loop (e.g. to start
 * the clients). Stop it with atoll_nrt_stop, which returns once it has exited. */
int atoll_nrt_start(atoll_nrt *r, void (*first)(void *ctx), void *ctx);
void atoll_nrt_stop(atoll_nrt *r);
/* Stops the scheduler thread and leaves the device idle: every HQ dropped, what is in flight
 * evicted, what runs killed (where the back-end can), the last completion received. The runtime
 * and the back-end stay open (memory can still be freed); atoll_nrt_destroy does this first. */
void atoll_nrt_quiesce(atoll_nrt *r);
/* Any thread. Returns 0 or ATOLL_ENOMEM. */
int atoll_nrt_post(atoll_nrt *r, const atoll_nrt_event *ev);

/* Scheduler thread (from the core's observer): the current preemption's marks, then cleared. */
void atoll_nrt_take_marks(atoll_nrt *r, atoll_nrt_marks *out);
/* Any thread, once stopped; counters are approximate while running. */
void atoll_nrt_stats_get(const atoll_nrt *r, atoll_nrt_stats *out);
/* A stream's HQ and DQ depth (commands launched and not transmitted; transmitted and not
 * completed). Any thread. */
void atoll_nrt_queue_depth(atoll_nrt *r, uint32_t stream, uint32_t *hq, uint32_t *dq);

/* Test observability (nrt_observe.c): why a stream's transmit thread holds its HQ back. The probe
 * wakes the thread (one more tx_wakeups) and waits, up to timeout_ns, until it has evaluated its
 * rule again and gone back to waiting; the answer is the state it evaluated. A test of "nothing
 * is transmitted" then fails on a thread that would transmit, instead of sleeping and hoping. */
typedef enum atoll_nrt_tx_why {
  ATOLL_NRT_TX_NOT_PARKED = 0, /* it did not wait again within the timeout (it kept transmitting) */
  ATOLL_NRT_TX_HQ_EMPTY,       /* nothing to move */
  ATOLL_NRT_TX_FLAG,           /* the preempt flag holds the HQ until the flagged launches left */
  ATOLL_NRT_TX_DQ_FULL,        /* in flight == the DQ capacity */
} atoll_nrt_tx_why;
typedef struct atoll_nrt_tx_park {
  atoll_nrt_tx_why why;
  uint32_t hq, dq; /* HQ length and launches in flight when it parked */
} atoll_nrt_tx_park;
int atoll_nrt_tx_probe(atoll_nrt *r, uint32_t stream, int64_t timeout_ns, atoll_nrt_tx_park *out);
/* Waits until every stream has nothing queued or in flight; ATOLL_EIO after timeout_ns. */
int atoll_nrt_wait_idle(atoll_nrt *r, int64_t timeout_ns);

/* Names a thread "atoll-WHAT" (i < 0) or "atoll-WHATi", for ps, gdb and perf (nrt_util.c). */
void atoll_nrt_name_thread(pthread_t t, const char *what, int i);
/* Keeps a host thread (a client, a transmit thread) off the CPU the scheduler thread is pinned to
 * (cfg.sched_cpu), so that its wake-ups never stand between the busy-polling scheduler and an
 * arrival; it may run on any other CPU. Nothing happens when the scheduler is not pinned or the
 * process has one CPU (nrt_util.c). The GC thread, which does no urgent work, goes the other way:
 * onto the scheduler's CPU (nrt_gc.c). */
void atoll_nrt_keep_off_sched_cpu(const atoll_nrt *r, pthread_t t);

#endif
