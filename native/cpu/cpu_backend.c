/* The CPU back-end: a GPU made of threads (cpu_backend.h has the model).
 *
 * One mutex guards the device (queues, the launches being dispatched, slots). The CP thread and
 * the CU workers wait on condition variables; nothing here spins. A launch moves through:
 *   submitted -> its queue's FIFO -> (CP, once the queue's previous launch completed) current ->
 *   kernels: on the active list, where free slots claim its blocks; copies: done by the CP (one
 *   the flag evicts: retired by the thread that completed the launch before it, see complete()).
 * The prologue runs in the block wrapper (worker_main): the first block to claim a launch reads the
 * queue's flag and decides for the whole launch (backend.h); an evicted launch's blocks all exit at
 * once, a running one records the execution index. Completions are reported after the mutex is
 * released (backend.h: callbacks never run under the back-end's locks). */
#define _GNU_SOURCE
#include "native/cpu/cpu_backend.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atoll/error.h"
#include "native/fault.h"
#include "native/gpu/gpu_device.h"
#include "native/gpu/gpu_staging.h"

enum { MAX_QUEUES = 64, MAX_RANGES = 1 + ATOLL_NPAD_MAX, DONE_LIST = MAX_QUEUES * MAX_RANGES + 8 };
enum { DECIDE_NONE = 0, DECIDE_RUN = 1, DECIDE_EVICT = 2 };
/* How long an idle worker, and a reset waiting for its kills, poll before sleeping. */
static const int64_t IDLE_POLL_NS = 50000;
/* GPU-like mode: how long after the device finished a launch its completion is reported (a GPU
 * back-end's completion thread waking on the launch's event), and each queue's staging ring. */
static int64_t report_lag_ns = 20000;

void atoll_ncpu_set_report_lag_ns(int64_t ns) { report_lag_ns = ns > 0 ? ns : 20000; }
#define GPU_LIKE_STAGING_BYTES ((size_t)8 << 20)

static bool try_rt_fifo = true;

void atoll_ncpu_set_rt_fifo(bool try_fifo) { try_rt_fifo = try_fifo; }

static atoll_ncpu_block_fn block_fn = ak_run_block;

void atoll_ncpu_set_block_fn(atoll_ncpu_block_fn fn) { block_fn = fn ? fn : ak_run_block; }

/* One block range of a launch: the kernel (or RT part) or one BE part of a padded launch. */
typedef struct range {
  uint32_t kernel;
  ak_args args;
  uint32_t grid, threads;
  uint32_t end, next;       /* blocks [next, end) are not claimed yet */
  uint32_t total, finished; /* blocks in the range; blocks whose body returned AK_DONE */
  uint32_t occupancy;       /* resident blocks per CU, at most the slots */
  uint32_t cu_lo, cu_hi;    /* the CUs it may use */
  uint16_t resident[ATOLL_NCPU_MAX_CUS];
  uint64_t tag;
  uint8_t rt, reported;
  uint32_t batch;                      /* instances of a batched launch (backend.h), at least 1 */
  uint64_t ptr_stride[AK_MAX_PTRS];
} range;

typedef struct cpu_queue cpu_queue;

typedef struct launch {
  struct launch *next;  /* in its queue's FIFO */
  struct launch *anext; /* on the active list */
  cpu_queue *q;
  atoll_nlaunch_kind kind;
  uint64_t tag;
  range r[MAX_RANGES];
  uint32_t n_ranges;
  void *dst;
  const void *src;
  size_t bytes;
  int value;
  uint8_t decision, killed, fault, active;
  uint8_t kill_pending; /* GPU-like: a reset reached it dispatched, before any block ran */
  uint32_t running; /* blocks resident now */
  /* GPU-like copies: the staging the copy holds, and a D2H copy's real destination. */
  size_t stage_off, stage_span;
  void *d2h_dst;
} launch;

struct cpu_queue {
  uint32_t priority;
  int vendor_prio;    /* GPU-like: the stream priority a GPU back-end gives it (gpu_vendor_priority) */
  uint8_t bound;      /* its blocks run only on the CUs in `cus` (create_bound_queue) */
  atoll_cuset cus;
  uint32_t flag;     /* the preempt flag: "device memory", written and read with atomics */
  uint64_t exec;     /* the execution index, under the device mutex */
  uint8_t has_exec;
  launch *head, *tail;
  launch *cur;       /* dispatched, not complete */
  gpu_staging stage; /* GPU-like: the copies' staging ring (stage_buf) */
  uint8_t *stage_buf;
};

typedef struct cpu_dev cpu_dev;

/* GPU-like: a completion the device has finished but not reported yet (cpu_backend.h). */
typedef struct report {
  struct report *next;
  uint64_t tag;
  uint8_t status;
  uint8_t killable; /* a kernel that ran: a reset before the report makes it KILLED */
  cpu_queue *q;
  size_t stage_span;    /* staging released with the report */
  void *d2h_dst;        /* D2H copy: where the staged data goes before the report */
  const void *d2h_src;
  size_t d2h_bytes;
  int64_t at;           /* when the device finished it */
} report;

enum { CLASS_ANY = 0, CLASS_RT = 1, CLASS_BE = 2 };

typedef struct slot {
  cpu_dev *d;
  uint32_t cu, index;
  uint8_t cls;       /* CLASS_*: which queues' blocks it takes (class workers, cpu_backend.h) */
  uint32_t kill;     /* the CU-reset word the kernel's preemption points read */
  launch *l;
  pthread_t th;
  uint8_t started;
} slot;

/* Completions and starts collected under the mutex and reported after it is released. */
typedef struct notes {
  uint64_t tag[DONE_LIST];
  uint8_t status[DONE_LIST]; /* atoll_ndone_status, or 0xff for a start */
  uint32_t n;
} notes;

struct cpu_dev {
  atoll_nbackend_cfg cfg;
  uint32_t cus, slots;
  pthread_mutex_t mu;
  pthread_cond_t cp_cv, work_cv, kill_cv;
  /* Class workers: the RT workers wait here, woken only for RT blocks. A SCHED_FIFO thread woken
   * for a BE launch preempts whatever runs on its CPU (a BE block, the scheduler) just to find
   * nothing to do: with every BE block's end waking it, lenet's BE throughput fell to a quarter. */
  pthread_cond_t rt_cv;
  uint8_t classes;
  cpu_queue *queues[MAX_QUEUES];
  uint32_t n_queues;
  launch *active;
  slot *slot;
  uint32_t n_slots;
  pthread_t cp;
  uint8_t cp_running, stop;
  uint8_t rt_fifo;     /* class workers: the RT ones run SCHED_FIFO (set before any BE worker starts) */
  atomic_uint killing; /* killed launches with blocks still running (changed under mu) */
  atomic_uint work_gen; /* bumped under mu whenever blocks become claimable (idle workers poll it) */
  uint64_t next_ticket; /* report batches, in the order they were collected (flush) */
  atomic_ullong serving;
  pthread_mutex_t turn_mu; /* a report batch waits here for its turn (a leaf lock) */
  pthread_cond_t turn_cv;
  uint32_t rr;         /* rotation among equal-priority launches */
  /* CU time: resident counts per CU and when each last became non-zero. */
  struct timespec t0;
  uint32_t res[3][ATOLL_NCPU_MAX_CUS]; /* all, rt, be */
  int64_t since[3][ATOLL_NCPU_MAX_CUS];
  int64_t busy[3];
  /* GPU-like mode (cpu_backend.h): the reports not made yet, oldest first, and their thread. */
  uint8_t gpu_like;
  int64_t report_lag_ns;
  report *rep_head, *rep_tail;
  pthread_t rep;
  uint8_t rep_running;
  pthread_cond_t rep_cv, room_cv;
  /* The current preemption's device-side times (backend.h preempt_times), under pt_mu: a leaf lock,
   * taken inside mu or alone, so that set_flag stays off the device mutex. */
  pthread_mutex_t pt_mu;
  uint8_t pt_armed;
  uint32_t flags_on; /* queues whose flag is set */
  atoll_npreempt_times pt;
};

enum { PT_DRAIN, PT_KILL, PT_RT_START };

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A step of the armed preemption happened now: the latest eviction and kill, the first RT start. */
static void pt_note(cpu_dev *d, int what) {
  const int64_t t = mono_ns();
  pthread_mutex_lock(&d->pt_mu);
  if (d->pt_armed) {
    if (what == PT_DRAIN && t > d->pt.drain_ns)
      d->pt.drain_ns = t;
    else if (what == PT_KILL && t > d->pt.kill_ns)
      d->pt.kill_ns = t;
    else if (what == PT_RT_START && d->pt.rt_start_ns == 0)
      d->pt.rt_start_ns = t;
  }
  pthread_mutex_unlock(&d->pt_mu);
}

static int64_t now_ns(const cpu_dev *d) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)(ts.tv_sec - d->t0.tv_sec) * 1000000000 + (ts.tv_nsec - d->t0.tv_nsec);
}

static void note(notes *n, uint64_t tag, uint8_t status) {
  if (n->n < DONE_LIST) {
    n->tag[n->n] = tag;
    n->status[n->n++] = status;
  }
}

/* Reports what was collected; called with the mutex held, releases it around the callbacks.
 * Several threads report (workers, the CP, a reset), so each batch takes a ticket while the mutex
 * still orders them and waits for its turn: callbacks arrive in the order the device decided
 * things, which keeps each queue's completions in submission order (backend.h). A turn is short:
 * the runtime's callbacks only append to its inbox. */
static void flush(cpu_dev *d, notes *n) {
  if (n->n == 0)
    return;
  notes local = *n;
  n->n = 0;
  uint64_t ticket = d->next_ticket++;
  pthread_mutex_unlock(&d->mu);
  /* Waits asleep, not yielding: under SCHED_FIFO (class workers, the CP) a yield never hands the
   * CPU to a normal-priority thread, so a waiter spinning there held off the very BE worker whose
   * earlier turn it waited for, until the kernel's RT throttling let that one in
   * (test_cpu_backend.report_turn_is_awaited_asleep: reported after 1006 ms instead of 20). */
  if (atomic_load_explicit(&d->serving, memory_order_acquire) != ticket) {
    pthread_mutex_lock(&d->turn_mu);
    while (atomic_load_explicit(&d->serving, memory_order_acquire) != ticket)
      pthread_cond_wait(&d->turn_cv, &d->turn_mu);
    pthread_mutex_unlock(&d->turn_mu);
  }
  for (uint32_t i = 0; i < local.n; i++) {
    if (local.status[i] == 0xff) {
      if (d->cfg.on_start && !d->gpu_like) /* a GPU back-end cannot observe a launch's start */
        d->cfg.on_start(d->cfg.ctx, local.tag[i]);
    } else if (d->cfg.on_complete) {
      d->cfg.on_complete(d->cfg.ctx, local.tag[i], (atoll_ndone_status)local.status[i]);
    }
  }
  pthread_mutex_lock(&d->turn_mu); /* under turn_mu: a waiter between its check and its wait hears it */
  atomic_store_explicit(&d->serving, ticket + 1, memory_order_release);
  pthread_cond_broadcast(&d->turn_cv);
  pthread_mutex_unlock(&d->turn_mu);
  pthread_mutex_lock(&d->mu);
}

static void residency(cpu_dev *d, uint32_t cu, int rt, int delta) {
  int64_t t = now_ns(d);
  int cls[2] = {0, rt ? 1 : 2};
  for (int k = 0; k < 2; k++) {
    uint32_t *res = &d->res[cls[k]][cu];
    if (*res == 0 && delta > 0)
      d->since[cls[k]][cu] = t;
    *res = (uint32_t)((int32_t)*res + delta);
    if (*res == 0 && delta < 0)
      d->busy[cls[k]] += t - d->since[cls[k]][cu];
  }
}

static void active_remove(cpu_dev *d, launch *l) {
  if (!l->active)
    return;
  for (launch **p = &d->active; *p; p = &(*p)->anext)
    if (*p == l) {
      *p = l->anext;
      break;
    }
  l->active = 0;
}

/* The launch leaves the device: its queue may dispatch the next one. Parts not reported yet are
 * reported with the launch's status, before the launch itself (backend.h). */
static int is_kernel(const launch *l) { return l->kind == ATOLL_NL_KERNEL || l->kind == ATOLL_NL_PADDED; }

/* The CP's dispatch of a kernel: it goes on the active list, where free slots claim its blocks. */
/* Blocks of l became claimable: the workers that may take them are told. */
static void wake_workers(cpu_dev *d, const launch *l) {
  atomic_fetch_add_explicit(&d->work_gen, 1, memory_order_release);
  if (d->classes > 1 && l->q->priority > 0)
    pthread_cond_broadcast(&d->rt_cv);
  else
    pthread_cond_broadcast(&d->work_cv);
}

static void activate(cpu_dev *d, launch *l) {
  l->active = 1;
  l->anext = d->active;
  d->active = l;
  wake_workers(d, l);
}

/* Takes q's head as its current launch. */
static launch *pop_head(cpu_queue *q) {
  launch *l = q->head;
  q->head = l->next;
  if (!q->head)
    q->tail = NULL;
  q->cur = l;
  return l;
}

/* GPU-like: queues a completion for the report thread, which makes it report_lag_ns later;
 * until then a reset still turns a kernel that ran into KILLED, as a GPU back-end that cannot tell
 * a finished launch from a running one does. `c`: a copy, whose staging the report releases. */
static void defer(cpu_dev *d, cpu_queue *q, uint64_t tag, atoll_ndone_status st, int killable, const launch *c) {
  report *r = calloc(1, sizeof *r);
  if (!r) {
    fprintf(stderr, "atoll: cpu back-end: out of memory for a completion\n");
    abort(); /* a lost completion would hang the runtime */
  }
  r->tag = tag;
  r->status = (uint8_t)st;
  r->killable = (uint8_t)killable;
  r->q = q;
  r->at = now_ns(d);
  if (c && c->stage_span) {
    r->stage_span = c->stage_span;
    r->d2h_dst = c->d2h_dst;
    r->d2h_src = q->stage_buf + c->stage_off;
    r->d2h_bytes = c->bytes;
  }
  if (d->rep_tail)
    d->rep_tail->next = r;
  else
    d->rep_head = r;
  d->rep_tail = r;
  pthread_cond_signal(&d->rep_cv);
}

static void complete(cpu_dev *d, launch *l, atoll_ndone_status st, notes *n) {
  cpu_queue *q = l->q;
  /* The device's side of a preemption: an evicted launch left its prologue, a killed one's last
   * block stopped at its preemption point (or it never started). */
  if (st == ATOLL_ND_EVICTED || st == ATOLL_ND_KILLED)
    pt_note(d, st == ATOLL_ND_EVICTED ? PT_DRAIN : PT_KILL);
  active_remove(d, l);
  q->cur = NULL;
  if (d->gpu_like) {
    const int killable = is_kernel(l) && l->decision == DECIDE_RUN && st == ATOLL_ND_OK;
    for (uint32_t i = 1; i < l->n_ranges; i++)
      defer(d, q, l->r[i].tag, st, killable, NULL);
    defer(d, q, l->tag, st, killable, l);
  } else {
    for (uint32_t i = 1; i < l->n_ranges; i++)
      if (!l->r[i].reported)
        note(n, l->r[i].tag, (uint8_t)st);
    note(n, l->tag, (uint8_t)st);
  }
  free(l);
  /* A kernel queued behind it is dispatched here, by the thread that completed this launch (it
   * holds the device already): the CP's step, without waiting for the CP thread to wake, so a
   * queue's kernels follow each other as closely as on a GPU. So is a copy the queue's flag
   * evicts: its prologue is the flag test alone, and handing it to the CP thread put that thread's
   * wake-up on the CU worker's CPU at each preemption that found a copy in the DQ, just when the
   * RT kernel was due there (12-28 us). A copy to run stays with the CP thread. */
  while (q->head && !is_kernel(q->head) && __atomic_load_n(&q->flag, __ATOMIC_ACQUIRE) && n->n + 2 < DONE_LIST) {
    launch *c = pop_head(q);
    q->cur = NULL;
    pt_note(d, PT_DRAIN);
    if (d->gpu_like)
      defer(d, q, c->tag, ATOLL_ND_EVICTED, 0, c);
    else
      note(n, c->tag, ATOLL_ND_EVICTED);
    free(c);
  }
  if (q->head && is_kernel(q->head))
    activate(d, pop_head(q));
  else if (q->head) /* a copy; with nothing queued the CP has nothing to do here: no wake-up */
    pthread_cond_signal(&d->cp_cv);
}

static int all_finished(const launch *l) {
  for (uint32_t i = 0; i < l->n_ranges; i++)
    if (l->r[i].finished < l->r[i].total)
      return 0;
  return 1;
}

/* --- the command processor --- */
/* Dispatches every queue's head whose previous launch has completed: high priority first. Copies
 * are done here, with the mutex released. Returns whether anything was dispatched. */
static int cp_step(cpu_dev *d, notes *n) {
  int did = 0;
  for (int level = 1; level >= 0; level--) {
    for (uint32_t i = 0; i < d->n_queues; i++) {
      cpu_queue *q = d->queues[i];
      if ((q->priority > 0) != (level == 1) || q->cur || !q->head)
        continue;
      launch *l = pop_head(q);
      did = 1;
      if (is_kernel(l)) {
        activate(d, l);
        continue;
      }
      /* A copy or memset: its prologue is the same flag test, then the copy engine's work. */
      if (__atomic_load_n(&q->flag, __ATOMIC_ACQUIRE)) {
        complete(d, l, ATOLL_ND_EVICTED, n);
        continue;
      }
      l->decision = DECIDE_RUN;
      note(n, l->tag, 0xff);
      flush(d, n);
      pthread_mutex_unlock(&d->mu);
      if (l->kind == ATOLL_NL_MEMSET)
        memset(l->dst, l->value, l->bytes);
      else
        memcpy(l->dst, l->src, l->bytes);
      pthread_mutex_lock(&d->mu);
      complete(d, l, ATOLL_ND_OK, n);
    }
  }
  return did;
}

static void *cp_main(void *arg) {
  cpu_dev *d = arg;
  notes n = {.n = 0};
  pthread_mutex_lock(&d->mu);
  while (!d->stop) {
    int did = cp_step(d, &n);
    flush(d, &n);
    if (!did && !d->stop)
      pthread_cond_wait(&d->cp_cv, &d->mu);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

/* --- the CUs --- */

/* A range of an active launch this slot's CU may take a block of; NULL when none. RT-priority
 * queues first; among equals the launches take turns. */
static launch *pick(cpu_dev *d, uint32_t cu, uint8_t cls, uint32_t *which) {
  for (int level = 1; level >= 0; level--) {
    if ((cls == CLASS_RT && level == 0) || (cls == CLASS_BE && level == 1))
      continue;
    uint32_t count = 0;
    for (launch *l = d->active; l; l = l->anext)
      count++;
    uint32_t skip = count ? d->rr % count : 0, seen = 0;
    for (int pass = 0; pass < 2; pass++) {
      seen = 0;
      for (launch *l = d->active; l; l = l->anext, seen++) {
        if ((pass == 0 && seen < skip) || (pass == 1 && seen >= skip))
          continue;
        if ((l->q->priority > 0) != (level == 1) || l->killed || l->fault)
          continue;
        for (uint32_t i = 0; i < l->n_ranges; i++) {
          range *r = &l->r[i];
          if (r->next < r->end && cu >= r->cu_lo && cu < r->cu_hi && r->resident[cu] < r->occupancy &&
              (!l->q->bound || atoll_cuset_has(&l->q->cus, cu))) {
            *which = i;
            return l;
          }
        }
      }
    }
  }
  return NULL;
}

/* The first block to reach the prologue decides for its launch (backend.h). */
static int prologue(cpu_dev *d, launch *l, notes *n) {
  if (l->decision == DECIDE_NONE) {
    if (__atomic_load_n(&l->q->flag, __ATOMIC_ACQUIRE)) {
      l->decision = DECIDE_EVICT;
    } else if (l->kill_pending) {
      /* GPU-like: the launch's kill word was set before its first block came (cpu_backend.h); the
       * flag test comes first, as in the GPU prologue. No block is resident. */
      l->killed = 1;
      complete(d, l, ATOLL_ND_KILLED, n);
      return 0;
    } else if (l->kind == ATOLL_NL_KERNEL &&
               atoll_nfault_hit(d->cfg.fault_kernel_p, d->cfg.fault_seed, ATOLL_NFAULT_KERNEL, l->tag)) {
      /* An injected device fault (fault.h): the launch ends before any block ran. No block is
       * resident (this is its first), so it can be retired here. */
      l->fault = 1;
      complete(d, l, ATOLL_ND_FAULT, n);
      return 0;
    } else {
      l->decision = DECIDE_RUN;
      l->q->exec = l->tag;
      l->q->has_exec = 1;
      if (is_kernel(l) && l->r[0].rt)
        pt_note(d, PT_RT_START);
      note(n, l->tag, 0xff);
    }
  }
  if (l->decision == DECIDE_EVICT) {
    /* Every block of an evicted launch exits in its prologue: no block has run, so the launch can
     * be retired at once rather than block by block. */
    complete(d, l, ATOLL_ND_EVICTED, n);
    return 0;
  }
  return 1;
}

/* The CU of the worker thread running the calling code (cpu_backend.h). */
static _Thread_local uint32_t worker_cu = UINT32_MAX;
/* The tag of the range whose block the worker runs (cpu_backend.h). */
static _Thread_local uint64_t worker_tag;
/* GPU-like: the vendor stream priority of that range's queue (cpu_backend.h). */
static _Thread_local int worker_vendor_prio;

uint32_t atoll_ncpu_worker_cu(void) { return worker_cu; }
uint64_t atoll_ncpu_worker_tag(void) { return worker_tag; }
int atoll_ncpu_worker_vendor_priority(void) { return worker_vendor_prio; }

/* A BE class worker's OS priority (cpu_backend.h): where the RT workers run SCHED_FIFO (the
 * paper's Linux RT priority) it stays at the normal priority; otherwise it lowers its own nice
 * (Linux keeps nice per thread, so the thread itself asks). */
static void take_class_priority(const slot *s) {
  if (s->cls == CLASS_BE && !s->d->rt_fifo)
    (void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), ATOLL_NCPU_BE_NICE);
}

static void *worker_main(void *arg);

/* The command processor and the report thread under SCHED_FIFO RT workers (cpu_backend.h): every
 * launch, an RT stage's too, is dispatched by the one and reported by the other, so at the normal
 * priority an RT block would wait for them behind BE workers' CPU work; above the RT workers, since
 * their work per launch is short. Where RLIMIT_RTPRIO stops below that, the RT workers' priority;
 * else they keep the normal one. */
static void host_thread_rt_class(pthread_t t) {
  for (int prio = ATOLL_NCPU_HOST_FIFO_PRIO; prio >= ATOLL_NCPU_RT_FIFO_PRIO; prio--) {
    struct sched_param sp = {.sched_priority = prio};
    if (pthread_setschedparam(t, SCHED_FIFO, &sp) == 0)
      return;
  }
}

/* Starts slot s's thread; an RT class worker with SCHED_FIFO when d->rt_fifo (decided by the
 * first RT worker: 0 where the process may not). */
static int start_worker(cpu_dev *d, slot *s, int first_rt) {
  if (s->cls == CLASS_RT && d->rt_fifo) {
    pthread_attr_t a;
    struct sched_param sp = {.sched_priority = ATOLL_NCPU_RT_FIFO_PRIO};
    int rc = pthread_attr_init(&a);
    if (rc == 0) {
      pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED);
      pthread_attr_setschedpolicy(&a, SCHED_FIFO);
      pthread_attr_setschedparam(&a, &sp);
      rc = pthread_create(&s->th, &a, worker_main, s);
      pthread_attr_destroy(&a);
    }
    if (rc == 0)
      return 0;
    if (first_rt) /* not permitted: every RT worker stays SCHED_OTHER, the BE ones lower their nice */
      d->rt_fifo = 0;
  }
  return pthread_create(&s->th, NULL, worker_main, s) == 0 ? 0 : ATOLL_ENOMEM;
}

static void *worker_main(void *arg) {
  slot *s = arg;
  cpu_dev *d = s->d;
  worker_cu = s->cu;
  take_class_priority(s);
  notes n = {.n = 0};
  pthread_mutex_lock(&d->mu);
  while (!d->stop) {
    uint32_t ri = 0;
    launch *l = pick(d, s->cu, s->cls, &ri);
    if (!l && s->cls == CLASS_RT) { /* no idle poll: it would hold its CPU at SCHED_FIFO */
      pthread_cond_wait(&d->rt_cv, &d->mu);
      continue;
    }
    if (!l) {
      /* Idle: poll for new work a little before sleeping. Kernels of a queue follow each other, and
       * the RT kernel after a preemption comes microseconds after the kill; a sleeping worker
       * would add a wake-up to each. */
      uint32_t gen = atomic_load_explicit(&d->work_gen, memory_order_acquire);
      pthread_mutex_unlock(&d->mu);
      int64_t until = now_ns(d) + IDLE_POLL_NS;
      while (atomic_load_explicit(&d->work_gen, memory_order_acquire) == gen && now_ns(d) < until)
        sched_yield();
      pthread_mutex_lock(&d->mu);
      if (atomic_load_explicit(&d->work_gen, memory_order_relaxed) == gen && !d->stop)
        pthread_cond_wait(&d->work_cv, &d->mu);
      continue;
    }
    d->rr++;
    if (!prologue(d, l, &n)) {
      flush(d, &n);
      continue;
    }
    range *r = &l->r[ri];
    uint32_t block = r->next++;
    s->l = l;
    __atomic_store_n(&s->kill, 0, __ATOMIC_RELAXED);
    l->running++;
    r->resident[s->cu]++;
    residency(d, s->cu, r->rt, +1);
    ak_args args = r->args;
    const uint32_t kernel = r->kernel;
    const uint32_t inst = r->grid ? block / r->grid : 0; /* a batched launch's instance (backend.h) */
    for (uint32_t p = 0; inst && p < AK_MAX_PTRS; p++)
      if (args.p[p])
        args.p[p] = (uint8_t *)args.p[p] + inst * r->ptr_stride[p];
    ak_ctx ctx = {.block = block - inst * r->grid, .grid = r->grid, .threads = r->threads, .kill = &s->kill, .trace = NULL,
                  .alt_math = d->gpu_like, .dense_points = d->cfg.tuning.dense_points,
                  .poll_shift = d->cfg.tuning.kill_poll_shift};
    flush(d, &n); /* the start, if this block decided it, before the body runs */
    worker_tag = r->tag;
    worker_vendor_prio = l->q->vendor_prio;
    pthread_mutex_unlock(&d->mu);
    int rc = block_fn(kernel, &args, &ctx);
    pthread_mutex_lock(&d->mu);
    residency(d, s->cu, r->rt, -1);
    r->resident[s->cu]--;
    l->running--;
    s->l = NULL;
    if (rc == AK_DONE && !l->killed) {
      r->finished++;
      if (ri > 0 && r->finished == r->total && !r->reported && !d->gpu_like) {
        r->reported = 1; /* a BE part is reported as soon as its blocks are done */
        note(&n, r->tag, ATOLL_ND_OK);
      }
    } else if (rc != AK_DONE && rc != AK_KILLED) {
      l->fault = 1; /* a bad kernel id or arguments: the launch ends as a fault */
      for (uint32_t i = 0; i < l->n_ranges; i++)
        l->r[i].end = l->r[i].next;
    }
    if (l->killed) {
      if (l->running == 0) {
        complete(d, l, ATOLL_ND_KILLED, &n);
        d->killing--;
        pthread_cond_broadcast(&d->kill_cv);
      }
    } else if (l->fault) {
      if (l->running == 0)
        complete(d, l, ATOLL_ND_FAULT, &n);
    } else if (all_finished(l)) {
      complete(d, l, ATOLL_ND_OK, &n);
    } else {
      wake_workers(d, l); /* occupancy room freed on this CU */
    }
    flush(d, &n);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

/* --- GPU-like completion reports --- */

/* Reports the device's completions in the order it finished them, each report_lag_ns after
 * it finished: a D2H copy's data goes from staging to its destination first, and the staging is
 * released. The status is read when the report is made (a reset may have changed it). */
static void *rep_main(void *arg) {
  cpu_dev *d = arg;
  pthread_mutex_lock(&d->mu);
  while (!d->stop) {
    report *r = d->rep_head;
    if (!r) {
      pthread_cond_wait(&d->rep_cv, &d->mu);
      continue;
    }
    const int64_t wait = r->at + d->report_lag_ns - now_ns(d);
    if (wait > 0) {
      pthread_mutex_unlock(&d->mu);
      struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)wait};
      nanosleep(&ts, NULL);
      pthread_mutex_lock(&d->mu);
      continue;
    }
    d->rep_head = r->next;
    if (!d->rep_head)
      d->rep_tail = NULL;
    const atoll_ndone_status st = (atoll_ndone_status)r->status;
    pthread_mutex_unlock(&d->mu);
    if (r->d2h_dst && st == ATOLL_ND_OK)
      memcpy(r->d2h_dst, r->d2h_src, r->d2h_bytes);
    pthread_mutex_lock(&d->mu);
    if (r->stage_span) {
      gpu_staging_release(&r->q->stage, r->stage_span);
      pthread_cond_broadcast(&d->room_cv);
    }
    pthread_mutex_unlock(&d->mu);
    if (d->cfg.on_complete)
      d->cfg.on_complete(d->cfg.ctx, r->tag, st);
    free(r);
    pthread_mutex_lock(&d->mu);
  }
  pthread_mutex_unlock(&d->mu);
  return NULL;
}

/* --- back-end operations --- */

static void stop_threads(cpu_dev *d) {
  pthread_mutex_lock(&d->mu);
  d->stop = 1;
  pthread_cond_broadcast(&d->cp_cv);
  pthread_cond_broadcast(&d->work_cv);
  pthread_cond_broadcast(&d->rt_cv);
  pthread_cond_broadcast(&d->rep_cv);
  pthread_cond_broadcast(&d->room_cv);
  pthread_mutex_unlock(&d->mu);
  if (d->cp_running)
    pthread_join(d->cp, NULL);
  if (d->rep_running)
    pthread_join(d->rep, NULL);
  for (uint32_t i = 0; i < d->n_slots; i++)
    if (d->slot[i].started)
      pthread_join(d->slot[i].th, NULL);
}

static void free_launches(launch *l, int active_list) {
  while (l) {
    launch *next = active_list ? l->anext : l->next;
    free(l);
    l = next;
  }
}

static void cpu_close(void *be) {
  cpu_dev *d = be;
  if (!d)
    return;
  stop_threads(d);
  for (uint32_t i = 0; i < d->n_queues; i++) {
    cpu_queue *q = d->queues[i];
    free_launches(q->head, 0);
    if (q->cur && !q->cur->active)
      free(q->cur);
    free(q->stage_buf);
    free(q);
  }
  free_launches(d->active, 1);
  while (d->rep_head) {
    report *r = d->rep_head;
    d->rep_head = r->next;
    free(r);
  }
  free(d->slot);
  pthread_mutex_destroy(&d->mu);
  pthread_mutex_destroy(&d->pt_mu);
  pthread_mutex_destroy(&d->turn_mu);
  pthread_cond_destroy(&d->turn_cv);
  pthread_cond_destroy(&d->cp_cv);
  pthread_cond_destroy(&d->work_cv);
  pthread_cond_destroy(&d->rt_cv);
  pthread_cond_destroy(&d->kill_cv);
  pthread_cond_destroy(&d->rep_cv);
  pthread_cond_destroy(&d->room_cv);
  free(d);
}

uint32_t atoll_ncpu_online_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
    return (uint32_t)CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (uint32_t)n : 1;
}

/* Pins to the index-th CPU this process may use (modulo their number). */
static void pin(pthread_t t, uint32_t index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return;
  uint32_t n = (uint32_t)CPU_COUNT(&allowed), want = index % (n ? n : 1), seen = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed))
      continue;
    if (seen++ == want) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      pthread_setaffinity_np(t, sizeof one, &one);
      return;
    }
  }
}

static int open_mode(const atoll_nbackend_cfg *cfg, void **out, char *err, size_t err_len, uint8_t gpu_like) {
  uint32_t ncpu = atoll_ncpu_online_cpus();
  /* One CPU is left to the host threads by default (scheduler, CP, transmit, clients), as a GPU's
   * host has its own CPU: with every CPU running a CU, each scheduler wake-up waits for a kernel's
   * time slice to end (milliseconds) before a preemption can even begin. */
  uint32_t cus = cfg->cus ? cfg->cus : ncpu > 1 ? ncpu - 1 : 1;
  /* Several devices share the CPUs: by default each gets its part of the CUs (at least one). */
  uint32_t n_dev = cfg->n_devices > 1 ? cfg->n_devices : 1, dev = n_dev > 1 ? cfg->device : 0;
  if (!cfg->cus && n_dev > 1)
    cus = cus / n_dev > 0 ? cus / n_dev : 1;
  uint32_t slots = cfg->slots_per_cu ? cfg->slots_per_cu : ATOLL_NCPU_DEFAULT_SLOTS;
  const uint32_t classes = cfg->class_workers ? 2 : 1; /* worker threads per slot */
  if (cus > ATOLL_NCPU_MAX_CUS || slots > 64) {
    snprintf(err, err_len, "cpu back-end: at most %d CUs and 64 slots per CU", ATOLL_NCPU_MAX_CUS);
    return ATOLL_EINVAL;
  }
  cpu_dev *d = calloc(1, sizeof *d);
  if (!d)
    return ATOLL_ENOMEM;
  d->cfg = *cfg;
  d->cus = cus;
  d->slots = slots;
  d->n_slots = cus * slots * classes;
  d->classes = (uint8_t)classes;
  d->gpu_like = gpu_like;
  d->report_lag_ns = report_lag_ns;
  atomic_init(&d->killing, 0);
  atomic_init(&d->work_gen, 0);
  atomic_init(&d->serving, 0);
  clock_gettime(CLOCK_MONOTONIC, &d->t0);
  d->slot = calloc(d->n_slots, sizeof *d->slot);
  if (!d->slot || pthread_mutex_init(&d->mu, NULL) != 0 || pthread_mutex_init(&d->pt_mu, NULL) != 0 ||
      pthread_mutex_init(&d->turn_mu, NULL) != 0 || pthread_cond_init(&d->turn_cv, NULL) != 0 ||
      pthread_cond_init(&d->cp_cv, NULL) != 0 ||
      pthread_cond_init(&d->work_cv, NULL) != 0 || pthread_cond_init(&d->kill_cv, NULL) != 0 ||
      pthread_cond_init(&d->rt_cv, NULL) != 0 ||
      pthread_cond_init(&d->rep_cv, NULL) != 0 || pthread_cond_init(&d->room_cv, NULL) != 0) {
    free(d->slot);
    free(d);
    return ATOLL_ENOMEM;
  }
  int rc = 0;
  if (pthread_create(&d->cp, NULL, cp_main, d) != 0) {
    rc = ATOLL_ENOMEM;
  } else {
    d->cp_running = 1;
    pthread_setname_np(d->cp, "atoll-cp"); /* as the runtime names its threads (nrt.h) */
  }
  if (rc == 0 && gpu_like) {
    if (pthread_create(&d->rep, NULL, rep_main, d) != 0) {
      rc = ATOLL_ENOMEM;
    } else {
      d->rep_running = 1;
      pthread_setname_np(d->rep, "atoll-report");
    }
  }
  /* CU c's workers share one CPU when pinned, counted from the last CPU down, so that with fewer
   * CUs than CPUs the first CPU is left to the host threads (scheduler, CP, transmit). Those are
   * not pinned: on a busy machine a pinned host thread waits for its CPU while another is free. */
  d->rt_fifo = classes > 1 && try_rt_fifo;
  for (uint32_t i = 0; rc == 0 && i < d->n_slots; i++) {
    slot *s = &d->slot[i];
    s->d = d;
    s->cu = i / (slots * classes);
    s->index = i;
    const uint32_t within = i % (slots * classes); /* slots RT workers first, then the BE ones */
    s->cls = classes == 1 ? CLASS_ANY : within < slots ? CLASS_RT : CLASS_BE;
    if (start_worker(d, s, i == 0) != 0) {
      rc = ATOLL_ENOMEM;
      break;
    }
    s->started = 1;
    char name[64];
    if (s->cls == CLASS_ANY)
      snprintf(name, sizeof name, "atoll-cu%u.%u", s->cu, within);
    else
      snprintf(name, sizeof name, "atoll-cu%u.%s%u", s->cu, s->cls == CLASS_RT ? "rt" : "be", within % slots);
    name[15] = '\0'; /* what Linux keeps */
    pthread_setname_np(s->th, name);
    if (cfg->pin_threads) /* device i's CUs on the CPUs below device i-1's */
      pin(s->th, ncpu - 1 - ((dev * cus + s->cu) % ncpu));
  }
  if (rc == 0 && d->rt_fifo) { /* the RT workers run SCHED_FIFO: their launches' path does too */
    host_thread_rt_class(d->cp);
    if (d->rep_running)
      host_thread_rt_class(d->rep);
  }
  if (rc) {
    snprintf(err, err_len, "cpu back-end: cannot start its threads");
    cpu_close(d);
    return rc;
  }
  *out = d;
  return 0;
}

static int cpu_open(const atoll_nbackend_cfg *cfg, void **out, char *err, size_t err_len) {
  return open_mode(cfg, out, err, err_len, 0);
}

static int cpu_open_gpu_like(const atoll_nbackend_cfg *cfg, void **out, char *err, size_t err_len) {
  return open_mode(cfg, out, err, err_len, 1);
}

static int cpu_info(void *be, atoll_nbackend_info *out) {
  cpu_dev *d = be;
  memset(out, 0, sizeof *out);
  if (d->cfg.n_devices > 1)
    snprintf(out->name, sizeof out->name, "cpu%s device %u of %u (%u CUs x %u slots)", d->gpu_like ? " GPU-like" : "",
             d->cfg.device, d->cfg.n_devices, d->cus, d->slots);
  else
    snprintf(out->name, sizeof out->name, "cpu%s (%u CUs x %u slots)", d->gpu_like ? " GPU-like" : "", d->cus,
             d->slots);
  out->cus = d->cus;
  out->max_occupancy = d->slots;
  out->can_reset_cus = true;
  out->can_pad = true;
  return 0;
}

/* "Device" memory is host memory, 64-byte aligned and zeroed (so a run does not depend on what
 * the allocator had there before). */
static int cpu_alloc(void *be, size_t bytes, void **p) {
  (void)be;
  size_t n = (bytes + 63) & ~(size_t)63;
  void *m = aligned_alloc(64, n ? n : 64);
  if (!m)
    return ATOLL_ENOMEM;
  memset(m, 0, n ? n : 64);
  *p = m;
  return 0;
}

static void cpu_free(void *be, void *p) {
  (void)be;
  free(p);
}

static int cpu_copy(void *be, void *dst, const void *src, size_t bytes) {
  (void)be;
  memcpy(dst, src, bytes);
  return 0;
}

static int create_queue_on(cpu_dev *d, uint32_t priority, const atoll_cuset *cus, atoll_nqueue **out) {
  cpu_queue *q = calloc(1, sizeof *q);
  if (!q)
    return ATOLL_ENOMEM;
  q->priority = priority;
  if (d->gpu_like) /* the GPU back-ends' mapping, over a CUDA device's range (cpu_backend.h) */
    q->vendor_prio = gpu_vendor_priority(ATOLL_NCPU_GPU_LIKE_PRIO_LEAST, ATOLL_NCPU_GPU_LIKE_PRIO_GREATEST, priority,
                                         d->cfg.tuning.top_priority);
  if (cus) {
    q->bound = 1;
    q->cus = *cus;
  }
  if (d->gpu_like) {
    if (!(q->stage_buf = malloc(GPU_LIKE_STAGING_BYTES))) {
      free(q);
      return ATOLL_ENOMEM;
    }
    gpu_staging_init(&q->stage, GPU_LIKE_STAGING_BYTES);
  }
  pthread_mutex_lock(&d->mu);
  int rc = d->n_queues < MAX_QUEUES ? 0 : ATOLL_EFULL;
  if (rc == 0)
    d->queues[d->n_queues++] = q;
  pthread_mutex_unlock(&d->mu);
  if (rc) {
    free(q->stage_buf);
    free(q);
    return rc;
  }
  *out = (atoll_nqueue *)q;
  return 0;
}

static int cpu_create_queue(void *be, uint32_t priority, atoll_nqueue **out) {
  return create_queue_on(be, priority, NULL, out);
}

/* A queue bound to CUs: a worker takes a block of its launches only when the worker's CU is in the
 * set (pick), so the set's workers are the partition. */
static int cpu_create_bound_queue(void *be, uint32_t priority, const atoll_cuset *cus, atoll_nqueue **out, char *err,
                                  size_t err_len) {
  cpu_dev *d = be;
  if (atoll_cuset_is_empty(cus) || atoll_cuset_end(cus) > d->cus) {
    snprintf(err, err_len, "cpu back-end: a CU set must name CUs of the device's %u (0-%u)", d->cus, d->cus - 1);
    return ATOLL_EINVAL;
  }
  return create_queue_on(d, priority, cus, out);
}

/* A re-provisioned share: the queue's blocks go to the new set's workers from its next launch on.
 * The workers read the set under the device mutex when they pick a block (pick), so the switch is
 * one write there; the queue must have nothing queued or running (the runtime drains it first). */
static int cpu_rebind_queue(void *be, atoll_nqueue *nq, const atoll_cuset *cus, char *err, size_t err_len) {
  cpu_dev *d = be;
  cpu_queue *q = (cpu_queue *)nq;
  if (atoll_cuset_is_empty(cus) || atoll_cuset_end(cus) > d->cus) {
    snprintf(err, err_len, "cpu back-end: a CU set must name CUs of the device's %u (0-%u)", d->cus, d->cus - 1);
    return ATOLL_EINVAL;
  }
  pthread_mutex_lock(&d->mu);
  int rc = q->head || q->cur ? ATOLL_EINVAL : 0;
  if (rc == 0) {
    q->bound = 1;
    q->cus = *cus;
  }
  pthread_mutex_unlock(&d->mu);
  if (rc)
    snprintf(err, err_len, "cpu back-end: a queue moves to other CUs only when nothing of it is queued or running");
  return rc;
}

/* A range from the launch descriptor: its CUs [lo, hi), clipped to the device (a padded part that
 * got no CU of its own may use them all rather than never run). */
static void set_range(cpu_dev *d, range *r, const atoll_nkernel_range *k, uint32_t lo, uint32_t hi, uint8_t rt) {
  memset(r, 0, sizeof *r);
  r->kernel = k->kernel;
  r->args = k->args;
  r->grid = k->grid;
  r->threads = k->threads;
  r->batch = k->batch > 1 ? k->batch : 1;
  memcpy(r->ptr_stride, k->ptr_stride, sizeof r->ptr_stride);
  const uint64_t blocks = (uint64_t)r->batch * k->grid;
  r->next = k->block_lo;
  r->total = k->block_n ? k->block_n : (blocks > k->block_lo ? (uint32_t)(blocks - k->block_lo) : 0);
  r->end = r->next + r->total;
  r->occupancy = k->occupancy && k->occupancy < d->slots ? k->occupancy : d->slots;
  if (hi > d->cus)
    hi = d->cus;
  if (lo >= hi)
    lo = 0, hi = d->cus;
  r->cu_lo = lo;
  r->cu_hi = hi;
  r->tag = k->tag;
  r->rt = rt;
}

static int cpu_submit(void *be, atoll_nqueue *qh, const atoll_nlaunch *nl) {
  cpu_dev *d = be;
  cpu_queue *q = (cpu_queue *)qh;
  if (nl->kind == ATOLL_NL_PADDED && nl->n_parts > ATOLL_NPAD_MAX)
    return ATOLL_EINVAL;
  if (nl->kind == ATOLL_NL_PADDED && q->bound)
    return ATOLL_ENOTSUP; /* padding places parts by CU position over the whole device (backend.h) */
  launch *l = calloc(1, sizeof *l);
  if (!l)
    return ATOLL_ENOMEM;
  l->q = q;
  l->kind = nl->kind;
  l->tag = nl->tag;
  l->dst = nl->dst;
  l->src = nl->src;
  l->bytes = nl->bytes;
  l->value = nl->value;
  if (is_kernel(l)) {
    uint32_t rt_cus = nl->kind == ATOLL_NL_PADDED && nl->k.cus ? nl->k.cus : d->cus;
    set_range(d, &l->r[0], &nl->k, 0, rt_cus, nl->rt);
    l->r[0].tag = nl->tag;
    l->n_ranges = 1;
    if (nl->kind == ATOLL_NL_PADDED) {
      uint32_t next = rt_cus;
      for (uint32_t i = 0; i < nl->n_parts; i++) {
        const atoll_nkernel_range *p = &nl->parts[i];
        uint32_t hi = p->cus ? next + p->cus : d->cus;
        set_range(d, &l->r[1 + i], p, next, hi, 0);
        next = hi;
      }
      l->n_ranges = 1 + nl->n_parts;
    }
  }
  pthread_mutex_lock(&d->mu);
  if (d->gpu_like && (l->kind == ATOLL_NL_COPY_H2D || l->kind == ATOLL_NL_COPY_D2H)) {
    /* As a GPU back-end: host data goes through the queue's staging ring, H2D data copied in now
     * (the caller may reuse its buffer once submit returns), D2H data copied out when the
     * completion is reported. Submit waits only for room in the ring. */
    int rc;
    while ((rc = gpu_staging_alloc(&q->stage, l->bytes, &l->stage_off, &l->stage_span)) == ATOLL_EFULL && !d->stop)
      pthread_cond_wait(&d->room_cv, &d->mu);
    if (rc == 0 && d->stop)
      rc = ATOLL_EIO;
    if (rc) {
      pthread_mutex_unlock(&d->mu);
      free(l);
      return rc;
    }
    uint8_t *stage = q->stage_buf + l->stage_off;
    if (l->kind == ATOLL_NL_COPY_H2D) {
      memcpy(stage, l->src, l->bytes);
      l->src = stage;
    } else {
      l->d2h_dst = l->dst;
      l->dst = stage;
    }
  }
  if (q->tail)
    q->tail->next = l;
  else
    q->head = l;
  q->tail = l;
  /* A kernel reaching an idle queue is dispatched by the submitting thread (the CP's step, as on
   * completion): waking the CP thread for it would add a hand-off to every first kernel, the RT
   * kernel after a preemption among them. Copies go to the CP thread. */
  if (!q->cur && q->head == l && is_kernel(l))
    activate(d, pop_head(q));
  else if (!q->cur && q->head == l) /* a copy the CP can start now; the rest waits for a completion */
    pthread_cond_signal(&d->cp_cv);
  pthread_mutex_unlock(&d->mu);
  return 0;
}

static int cpu_set_flag(void *be, atoll_nqueue *qh, bool on) {
  (void)be;
  cpu_dev *d = be;
  const uint32_t was = __atomic_exchange_n(&((cpu_queue *)qh)->flag, on ? 1u : 0u, __ATOMIC_ACQ_REL);
  if ((was != 0) == on)
    return 0;
  /* The flag is in "device memory" once stored: the preemption's first device-side step. A flag
   * raised while no other is up starts a new preemption: it re-arms a record that was never taken
   * (a preemption whose RT request did not start). */
  const int64_t t = mono_ns();
  pthread_mutex_lock(&d->pt_mu);
  if (on && (!d->pt_armed || d->flags_on == 0))
    d->pt = (atoll_npreempt_times){.flag_ns = t}, d->pt_armed = 1;
  d->flags_on = on ? d->flags_on + 1 : d->flags_on - 1;
  pthread_mutex_unlock(&d->pt_mu);
  return 0;
}

static int cpu_preempt_times(void *be, atoll_npreempt_times *out) {
  cpu_dev *d = be;
  pthread_mutex_lock(&d->pt_mu);
  *out = d->pt_armed ? d->pt : (atoll_npreempt_times){0};
  d->pt = (atoll_npreempt_times){0};
  d->pt_armed = 0;
  pthread_mutex_unlock(&d->pt_mu);
  return 0;
}

static int cpu_exec_index(void *be, atoll_nqueue *qh, uint64_t *tag) {
  cpu_dev *d = be;
  cpu_queue *q = (cpu_queue *)qh;
  pthread_mutex_lock(&d->mu);
  int rc = q->has_exec ? 0 : ATOLL_ENOENT;
  if (rc == 0)
    *tag = q->exec;
  pthread_mutex_unlock(&d->mu);
  return rc;
}

/* CU reset: every launch with a decided-running kernel is killed. Its slots' kill words are set,
 * its unclaimed blocks dropped, and the call waits until its running blocks have returned from
 * their next preemption point, so nothing of it can still write memory once this returns. */
static int cpu_reset_cus(void *be) {
  cpu_dev *d = be;
  notes n = {.n = 0};
  pthread_mutex_lock(&d->mu);
  if (d->gpu_like) {
    /* What a GPU back-end's kill words reach besides the running launches: launches the device
     * finished but has not reported (the host cannot tell them from running ones), and launches
     * dispatched with no block run yet. */
    for (report *r = d->rep_head; r; r = r->next)
      if (r->killable) {
        r->status = ATOLL_ND_KILLED;
        r->killable = 0;
      }
    for (launch *l = d->active; l; l = l->anext)
      if (l->decision == DECIDE_NONE)
        l->kill_pending = 1;
  }
  for (launch *l = d->active, *next; l; l = next) {
    next = l->anext;
    if (l->decision != DECIDE_RUN || l->killed)
      continue;
    l->killed = 1;
    for (uint32_t i = 0; i < l->n_ranges; i++)
      l->r[i].end = l->r[i].next;
    if (l->running == 0) {
      complete(d, l, ATOLL_ND_KILLED, &n);
      continue;
    }
    d->killing++;
    for (uint32_t i = 0; i < d->n_slots; i++)
      if (d->slot[i].l == l)
        __atomic_store_n(&d->slot[i].kill, 1u, __ATOMIC_RELAXED);
  }
  /* Report the launches completed here before waiting: the wait releases the mutex, and a worker
   * could otherwise evict the next launch of one of their queues and report it first, out of the
   * queue's order (backend.h). */
  flush(d, &n);
  /* The killed blocks stop at their next preemption point, microseconds of work away: poll for
   * that before sleeping, or every preemption would pay a wake-up. */
  if (atomic_load(&d->killing) > 0) {
    pthread_mutex_unlock(&d->mu);
    int64_t until = now_ns(d) + IDLE_POLL_NS;
    /* A plain spin: the killed blocks run on the CUs' threads, and yielding here would hand this
     * CPU to whatever else waits for it for a whole time slice. */
    while (atomic_load(&d->killing) > 0 && now_ns(d) < until)
      ;
    pthread_mutex_lock(&d->mu);
  }
  while (atomic_load(&d->killing) > 0)
    pthread_cond_wait(&d->kill_cv, &d->mu);
  pthread_mutex_unlock(&d->mu);
  return 0;
}

static int cpu_cu_busy(void *be, int64_t *busy_ns, int64_t *rt_ns, int64_t *be_ns) {
  cpu_dev *d = be;
  pthread_mutex_lock(&d->mu);
  int64_t t = now_ns(d), out[3];
  for (int k = 0; k < 3; k++) {
    out[k] = d->busy[k];
    for (uint32_t cu = 0; cu < d->cus; cu++)
      if (d->res[k][cu] > 0)
        out[k] += t - d->since[k][cu];
  }
  pthread_mutex_unlock(&d->mu);
  *busy_ns = out[0];
  *rt_ns = out[1];
  *be_ns = out[2];
  return 0;
}

/* The back-end and its GPU-like mode (cpu_backend.h) differ only in how they open. */
#define CPU_BACKEND_OPS(NAME, OPEN)                                                                        \
  {                                                                                                     \
    .name = NAME, .open = OPEN, .close = cpu_close, .info = cpu_info, .alloc = cpu_alloc, .free = cpu_free, \
    .copy_to_device = cpu_copy, .copy_from_device = cpu_copy, .create_queue = cpu_create_queue,           \
    .submit = cpu_submit, .set_flag = cpu_set_flag, .exec_index = cpu_exec_index,                          \
    .reset_cus = cpu_reset_cus, .cu_busy = cpu_cu_busy, .create_bound_queue = cpu_create_bound_queue,     \
    .preempt_times = cpu_preempt_times,                                                                   \
    .rebind_queue = cpu_rebind_queue,                                                                    \
  }
static const atoll_nbackend_ops cpu_ops = CPU_BACKEND_OPS("cpu", cpu_open);
static const atoll_nbackend_ops cpu_gpu_like_ops = CPU_BACKEND_OPS("cpu-gpu", cpu_open_gpu_like);

const atoll_nbackend_ops *atoll_ncpu_backend(void) { return &cpu_ops; }

const atoll_nbackend_ops *atoll_ncpu_gpu_like_backend(void) { return &cpu_gpu_like_ops; }
