/* MPI ranks sharing one exploration (mpi_explore.h). */
#include "tools/atoll/mpi_explore.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "atoll/error.h"
#include "atoll/expect.h"

#ifdef ATOLL_HAVE_MPI
#include <mpi.h>

enum { TAG_STATES = 11, TAG_PROBE = 12, TAG_ANSWER = 13, TAG_DONE = 14 };
enum { BATCH_BYTES = 64 * 1024 };
static const double BATCH_AGE_S = 0.002;

/* One handed state in a batch: hash, events, choice count, then per choice kind, option, n. */
enum { REC_HEAD = 2 * sizeof(uint64_t) + sizeof(uint32_t), REC_CHOICE = 3 * sizeof(uint32_t) };

typedef struct outbuf {
  char *buf;
  size_t len, cap;
  struct timespec first; /* when the oldest state in it was added */
} outbuf;

typedef struct in_flight {
  MPI_Request req;
  char *buf;
} in_flight;

/* A probe's answer: the wave, idle (0/1), batches sent, batches received. */
typedef struct answer {
  uint64_t wave, idle, sent, received;
} answer;

struct atoll_mpi_net {
  atoll_explore_net iface;
  pthread_mutex_t lock; /* every MPI call of the search (MPI_THREAD_SERIALIZED) and the buffers */
  int rank, size;
  outbuf *out; /* per destination rank */
  in_flight *fly;
  uint32_t n_fly, cap_fly;
  uint64_t sent, received, offers;
  bool done;
  /* Rank 0: the wave under way, its answers so far, and the previous wave's outcome. */
  bool wave_open, prev_ok;
  uint64_t wave, answers, wave_sent, wave_received, prev_sent, prev_received;
  bool wave_idle;
};

static double age_s(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The rank that owns a state: bits 16-47 of its hash (the visited set's shards take the top bits
 * and its slots the low ones, so each rank's share still spreads over both). */
static int owner(const atoll_mpi_net *n, uint64_t h) {
  return (int)((((h >> 16) & 0xffffffffu) * (uint64_t)n->size) >> 32);
}

/* Frees the buffers of sends that completed. Under lock. */
static void reap(atoll_mpi_net *n) {
  uint32_t k = 0;
  for (uint32_t i = 0; i < n->n_fly; i++) {
    int done = 0;
    MPI_Test(&n->fly[i].req, &done, MPI_STATUS_IGNORE);
    if (done)
      free(n->fly[i].buf);
    else
      n->fly[k++] = n->fly[i];
  }
  n->n_fly = k;
}

/* Sends destination d's batch without waiting. Under lock. */
static int send_batch(atoll_mpi_net *n, int d) {
  outbuf *b = &n->out[d];
  if (!b->len)
    return 0;
  if (n->n_fly == n->cap_fly) {
    uint32_t cap = n->cap_fly ? n->cap_fly * 2 : 16;
    in_flight *nf = realloc(n->fly, cap * sizeof *nf);
    if (!nf)
      return ATOLL_ENOMEM;
    n->fly = nf, n->cap_fly = cap;
  }
  in_flight *f = &n->fly[n->n_fly];
  f->buf = b->buf;
  if (MPI_Isend(f->buf, (int)b->len, MPI_BYTE, d, TAG_STATES, MPI_COMM_WORLD, &f->req) != MPI_SUCCESS)
    return ATOLL_EIO;
  n->n_fly++;
  n->sent++;
  *b = (outbuf){0};
  return 0;
}

static int flush_all(atoll_mpi_net *n, bool only_old) {
  int rc = 0;
  for (int d = 0; d < n->size && rc == 0; d++)
    if (n->out[d].len && (!only_old || age_s(&n->out[d].first) > BATCH_AGE_S))
      rc = send_batch(n, d);
  return rc;
}

static int offer(void *ctx, uint64_t h, uint64_t events, bool point, const atoll_choice_rec *c, uint32_t k) {
  atoll_mpi_net *n = ctx;
  int d = owner(n, h);
  if (d == n->rank)
    return 0;
  pthread_mutex_lock(&n->lock);
  outbuf *b = &n->out[d];
  uint32_t kk = point ? k : UINT32_MAX; /* UINT32_MAX: a state only to count */
  size_t need = REC_HEAD + (point ? (size_t)k * REC_CHOICE : 0);
  int rc = 0;
  if (b->len + need > b->cap) {
    size_t cap = b->cap ? b->cap : BATCH_BYTES + 4096;
    while (cap < b->len + need)
      cap *= 2;
    char *nb = realloc(b->buf, cap);
    if (nb)
      b->buf = nb, b->cap = cap;
    else
      rc = ATOLL_ENOMEM;
  }
  if (rc == 0) {
    if (!b->len)
      clock_gettime(CLOCK_MONOTONIC, &b->first);
    char *p = b->buf + b->len;
    memcpy(p, &h, sizeof h), p += sizeof h;
    memcpy(p, &events, sizeof events), p += sizeof events;
    memcpy(p, &kk, sizeof kk), p += sizeof kk;
    for (uint32_t i = 0; point && i < k; i++) {
      uint32_t v[3] = {c[i].kind, c[i].option, c[i].n};
      memcpy(p, v, sizeof v), p += sizeof v;
    }
    b->len += need;
    if (b->len >= BATCH_BYTES || age_s(&b->first) > BATCH_AGE_S)
      rc = send_batch(n, d);
    /* Now and then the other buffers too, so that a busy rank does not sit on a small batch. */
    if (rc == 0 && (++n->offers & 255) == 0) {
      reap(n);
      rc = flush_all(n, true);
    }
  }
  pthread_mutex_unlock(&n->lock);
  return rc ? rc : 1;
}

/* Unpacks one batch into deliver (NULL: dropped). */
static int unpack(const char *p, size_t len,
                  void (*deliver)(void *, uint64_t, uint64_t, const atoll_choice_rec *, uint32_t), void *dctx) {
  atoll_choice_rec *c = NULL;
  uint32_t cap = 0;
  const char *end = p + len;
  while (p < end) {
    if ((size_t)(end - p) < REC_HEAD)
      break;
    uint64_t h, events;
    uint32_t k;
    memcpy(&h, p, sizeof h), p += sizeof h;
    memcpy(&events, p, sizeof events), p += sizeof events;
    memcpy(&k, p, sizeof k), p += sizeof k;
    if (k == UINT32_MAX) {
      if (deliver)
        deliver(dctx, h, events, NULL, 0);
      continue;
    }
    if ((size_t)(end - p) < (size_t)k * REC_CHOICE)
      break;
    if (k > cap) {
      atoll_choice_rec *nc = realloc(c, k * sizeof *nc);
      if (!nc) {
        free(c);
        return ATOLL_ENOMEM;
      }
      c = nc, cap = k;
    }
    for (uint32_t i = 0; i < k; i++) {
      uint32_t v[3];
      memcpy(v, p, sizeof v), p += sizeof v;
      c[i] = (atoll_choice_rec){.kind = (uint8_t)v[0], .option = v[1], .n = v[2]};
    }
    static const atoll_choice_rec none; /* a handover with no choices is still one */
    if (deliver)
      deliver(dctx, h, events, k ? c : &none, k);
  }
  free(c);
  return p == end ? 0 : ATOLL_EPARSE;
}

/* Receives every batch that arrived. Under lock. 0, or an error. */
static int receive_states(atoll_mpi_net *n, void (*deliver)(void *, uint64_t, uint64_t, const atoll_choice_rec *, uint32_t),
                          void *dctx, uint64_t *got) {
  for (;;) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, TAG_STATES, MPI_COMM_WORLD, &flag, &st);
    if (!flag)
      return 0;
    int len;
    MPI_Get_count(&st, MPI_BYTE, &len);
    char *buf = malloc(len ? (size_t)len : 1);
    if (!buf)
      return ATOLL_ENOMEM;
    MPI_Recv(buf, len, MPI_BYTE, st.MPI_SOURCE, TAG_STATES, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    n->received++;
    (*got)++;
    int rc = unpack(buf, (size_t)len, deliver, dctx);
    free(buf);
    if (rc)
      return rc;
  }
}

static bool pending(int tag, int *source) {
  int flag = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &flag, &st);
  if (flag && source)
    *source = st.MPI_SOURCE;
  return flag;
}

/* Rank 0's side of the termination: opens waves while idle and closes them. Under lock. */
static void run_waves(atoll_mpi_net *n, bool idle) {
  int src;
  while (pending(TAG_ANSWER, &src)) {
    answer a;
    MPI_Recv(&a, 4, MPI_UINT64_T, src, TAG_ANSWER, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (!n->wave_open || a.wave != n->wave)
      continue;
    n->answers++;
    n->wave_idle = n->wave_idle && a.idle;
    n->wave_sent += a.sent, n->wave_received += a.received;
  }
  if (n->wave_open && n->answers == (uint64_t)n->size - 1) {
    uint64_t s = n->wave_sent + n->sent, r = n->wave_received + n->received;
    bool ok = n->wave_idle && idle && s == r;
    if (ok && n->prev_ok && s == n->prev_sent && r == n->prev_received) {
      for (int d = 1; d < n->size; d++)
        MPI_Send(&n->wave, 1, MPI_UINT64_T, d, TAG_DONE, MPI_COMM_WORLD);
      n->done = true;
    }
    n->prev_ok = ok, n->prev_sent = s, n->prev_received = r;
    n->wave_open = false;
  }
  if (!n->done && !n->wave_open && idle) {
    n->wave++;
    n->wave_open = true;
    n->answers = 0, n->wave_idle = true, n->wave_sent = n->wave_received = 0;
    for (int d = 1; d < n->size; d++)
      MPI_Send(&n->wave, 1, MPI_UINT64_T, d, TAG_PROBE, MPI_COMM_WORLD);
  }
}

/* Another rank's side: answers the probes that came, and learns the end. Under lock. */
static void answer_probes(atoll_mpi_net *n, bool idle) {
  while (pending(TAG_PROBE, NULL)) {
    uint64_t wave;
    MPI_Recv(&wave, 1, MPI_UINT64_T, 0, TAG_PROBE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    answer a = {wave, idle, n->sent, n->received};
    MPI_Send(&a, 4, MPI_UINT64_T, 0, TAG_ANSWER, MPI_COMM_WORLD);
  }
  if (pending(TAG_DONE, NULL)) {
    uint64_t wave;
    MPI_Recv(&wave, 1, MPI_UINT64_T, 0, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    n->done = true;
  }
}

static int poll_net(void *ctx, bool idle, void (*deliver)(void *, uint64_t, uint64_t, const atoll_choice_rec *, uint32_t),
                    void *dctx) {
  atoll_mpi_net *n = ctx;
  pthread_mutex_lock(&n->lock);
  /* An idle worker holds nothing back: every batch goes now. */
  int rc = flush_all(n, false);
  uint64_t got = 0;
  if (rc == 0) {
    reap(n);
    rc = receive_states(n, deliver, dctx, &got);
  }
  if (rc == 0 && !n->done) {
    bool me_idle = idle && got == 0;
    if (n->rank == 0)
      run_waves(n, me_idle);
    else
      answer_probes(n, me_idle);
  }
  bool done = n->done;
  pthread_mutex_unlock(&n->lock);
  return rc ? rc : got ? 1 : done ? 2 : 0;
}

atoll_mpi_net *atoll_mpi_net_new(void) {
  atoll_mpi_net *n = calloc(1, sizeof *n);
  if (!n)
    return NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &n->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n->size);
  n->out = calloc((size_t)n->size, sizeof *n->out);
  if (!n->out) {
    free(n);
    return NULL;
  }
  pthread_mutex_init(&n->lock, NULL);
  /* One state in 16 a handover point: measured on scenarios/verify/ (docs/scale-out.md), every
   * state gives the least duplicated exploration but replays the most, 16 the least busiest-rank
   * work. ATOLL_EXPLORE_HANDOVER_EVERY overrides it, to measure others. */
  const char *e = getenv("ATOLL_EXPLORE_HANDOVER_EVERY");
  long every = e ? strtol(e, NULL, 10) : 16;
  n->iface = (atoll_explore_net){.ctx = n, .every = every >= 1 && every <= 256 ? (uint32_t)every : 16,
                                 .offer = offer, .poll = poll_net};
  return n;
}

const atoll_explore_net *atoll_mpi_net_iface(atoll_mpi_net *n) { return &n->iface; }

int atoll_mpi_net_finish(atoll_mpi_net *n) {
  int rc = 0;
  /* A rank whose search stopped early (a limit) still counts as idle and drops what it is handed,
   * so that the others' searches can end. */
  while (rc >= 0 && rc != 2) {
    rc = poll_net(n, true, NULL, NULL);
    if (rc == 0) {
      struct timespec pause = {0, 100000};
      nanosleep(&pause, NULL);
    }
  }
  for (uint32_t i = 0; i < n->n_fly; i++) {
    MPI_Wait(&n->fly[i].req, MPI_STATUS_IGNORE);
    free(n->fly[i].buf);
  }
  for (int d = 0; d < n->size; d++)
    free(n->out[d].buf);
  free(n->out);
  free(n->fly);
  pthread_mutex_destroy(&n->lock);
  free(n);
  return rc == 2 ? 0 : -1;
}

/* Max and min reductions of values that may be NaN (no value): NaN is sent as -inf / +inf. */
static void reduce_extreme(double *v, uint32_t n, bool max) {
  for (uint32_t i = 0; i < n; i++)
    if (isnan(v[i]))
      v[i] = max ? -INFINITY : INFINITY;
  MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, max ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
  for (uint32_t i = 0; i < n; i++)
    if (isinf(v[i]))
      v[i] = NAN;
}

int atoll_mpi_explore_merge(const atoll_scenario *s, atoll_explore_result *r) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  uint64_t sums[9] = {r->schedules,  r->pruned, r->choices,   r->events,        r->replayed_events,
                      r->unfinished, r->states, r->max_depth, r->busiest_events};
  MPI_Allreduce(MPI_IN_PLACE, sums, 7, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &sums[7], 2, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  uint32_t nb = s->n_expects;
  double *v = malloc((2 * (size_t)nb + 1) * sizeof *v);
  int *flags = malloc(((size_t)nb + 2) * sizeof *flags);
  if (!v || !flags) {
    free(v), free(flags);
    return -1;
  }
  for (uint32_t i = 0; i < nb; i++)
    v[i] = v[nb + i] = r->bounds[i].worst;
  v[2 * nb] = r->worst_rt_latency_us;
  reduce_extreme(v, nb, true);
  reduce_extreme(v + nb, nb, false);
  reduce_extreme(v + 2 * nb, 1, true);
  for (uint32_t i = 0; i < nb; i++)
    flags[i] = r->bounds[i].holds;
  flags[nb] = r->complete;
  MPI_Allreduce(MPI_IN_PLACE, flags, (int)nb + 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  flags[nb + 1] = r->violated;
  MPI_Allreduce(MPI_IN_PLACE, &flags[nb + 1], 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  if (rank == 0) {
    r->schedules = sums[0], r->pruned = sums[1], r->choices = sums[2], r->events = sums[3];
    r->replayed_events = sums[4], r->unfinished = sums[5], r->states = sums[6], r->max_depth = (uint32_t)sums[7];
    r->busiest_events = sums[8];
    r->worst_rt_latency_us = v[2 * nb];
    for (uint32_t i = 0; i < nb; i++) {
      const atoll_expect *e = &s->expects[i];
      atoll_explore_bound *b = &r->bounds[i];
      bool upper = e->cmp == ATOLL_CMP_LE || e->cmp == ATOLL_CMP_LT;
      b->worst = upper ? v[i] : v[nb + i];
      b->holds = flags[i];
      b->margin = NAN;
      if (!isnan(b->worst))
        atoll_expect_holds(e->cmp, e->value, b->worst, &b->margin);
    }
    r->complete = flags[nb];
    r->violated = flags[nb + 1];
    if (!r->complete && !r->why)
      r->why = "a rank stopped before the end (--max-states or --max-seconds, per rank)";
  }
  free(v), free(flags);
  return 0;
}

#else

atoll_mpi_net *atoll_mpi_net_new(void) { return NULL; }
const atoll_explore_net *atoll_mpi_net_iface(atoll_mpi_net *n) {
  (void)n;
  return NULL;
}
int atoll_mpi_net_finish(atoll_mpi_net *n) {
  (void)n;
  return 0;
}
int atoll_mpi_explore_merge(const atoll_scenario *s, atoll_explore_result *r) {
  (void)s, (void)r;
  return 0;
}

#endif
