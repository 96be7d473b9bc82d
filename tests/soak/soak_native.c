/* soak_native — a long run of the native CPU runtime under REEF's policy, checking that nothing
 * degrades with time: every output bit-exact, every request accounted for, memory flat, progress
 * never stalls.
 *
 * The scenario (soak_models.h) has RT clients of a small model and of cnn beside four closed-loop
 * BE clients (transformer, cnn, inplace twice), so the BE clients always have work on the device
 * and nearly every RT arrival that finds the RT queue idle preempts them (HQ reset, preempt flag,
 * CU reset killing running blocks, restore from the execution index).
 *
 * The soak is a sequence of rounds, each one whole native run (atoll_native_run) of --round-s
 * seconds with --verify: the runner keeps every request's record and output until its run ends
 * (for the report and the bit-exact check), so a single endless run would grow by design; rounds
 * bound that, and because each round creates and destroys the runtime, the back-end and every
 * thread, anything any of them leaks accumulates from round to round and shows in the RSS.
 *
 * Checks (exit 1 when one fails, after printing every figure):
 *   - verify: every completed request's output equals the uninterrupted reference, bit for bit,
 *     and every completed request was compared;
 *   - accounting, per client and round: issued (records + drops) = completed + dropped + failed +
 *     in flight when the round stopped; the in-flight ones are the client's youngest requests
 *     (nothing older than a completed request is left behind: the client's queue is FIFO), a
 *     closed-loop client has at most one; the core's observer saw each completion and drop once;
 *   - memory: after each round, once its results are freed, the allocator's free pages are
 *     returned to the system (malloc_trim) and RSS is read (/proc/self/statm): what remains is what
 *     the process still holds. The largest such value over the last third of the rounds after
 *     warm-up exceeds the largest over the first third by less than --rss-limit percent. RSS is
 *     also sampled every 100 ms during the rounds; those peaks are printed, but they follow how
 *     many requests a round kept for verification, so they are not the criterion. --rss-limit off
 *     prints the figures without checking them: under AddressSanitizer freed memory waits in its
 *     quarantine (up to 256 MiB) before it is reused, so RSS grows by design there, and
 *     LeakSanitizer checks for leaks at exit instead;
 *   - progress: a watchdog thread fails the soak (after dumping the state it sees) when no request
 *     completed for --watchdog-s seconds while clients were sending, or when a round has not
 *     returned --tail-s seconds after its end (a hang while stopping or verifying);
 *   - preemptions: at least --min-preemptions over the soak.
 *
 *   soak_native [--seconds S] [--round-s S] [--cus N] [--rt-hz HZ] [--warmup-rounds N]
 *               [--watchdog-s S] [--tail-s S] [--min-preemptions N] [--rss-limit PCT|off] [--seed N]
 *               [--malloc-arenas N] [--malloc-tcache on|off] [--inject kernel:P,alloc:P]
 *
 * --inject turns fault injection on (docs/native-faults.md): failed requests are counted apart and
 * the checks above hold for all the others. --malloc-arenas (default 1; 0: the C library's default)
 * bounds malloc's arenas and --malloc-tcache (default off) sets its per-thread cache, see
 * allocator_settings() and the memory check.
 *
 * --seconds defaults to $ATOLL_SOAK_SECONDS, else 60. docs/soak.md gives the long-run command. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <math.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atoll/error.h"
#include "native/fault.h"
#include "native/runtime/nrun.h"
#include "tests/soak/soak_models.h"

typedef struct soak_opts {
  double seconds, round_s, rt_hz, watchdog_s, tail_s, rss_limit_pct;
  uint32_t cus, warmup_rounds, malloc_arenas;
  bool malloc_tcache;
  uint64_t min_preemptions, seed;
  const char *inject; /* fault.h spec, NULL: none */
} soak_opts;

enum phase { PH_SETUP, PH_RUN, PH_BETWEEN, PH_END };
static const char *const phase_names[] = {"set-up (profiles, standalone latencies)", "round running",
                                          "between rounds (accounting)", "finished"};

/* What the watchdog and the core's observer share with the main thread. The observer runs on the
 * runtime's scheduler thread; the watchdog on its own. */
static struct {
  atomic_ullong started[SOAK_MAX_CLIENTS], done[SOAK_MAX_CLIENTS], dropped[SOAK_MAX_CLIENTS];
  atomic_ullong round_preemptions, total_preemptions, total_done;
  atomic_llong last_done_ns, phase_since_ns, run_end_ns;
  atomic_int phase, stop;
  atomic_uint round;
  atomic_ullong *rss_peak; /* per round: the largest RSS sample (every 100 ms) */
  atomic_uint n_samples;
  uint32_t cap_rounds;
  const soak_opts *o;
  const atoll_scenario *s;
} g;

static int64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t rss_bytes(void) {
  FILE *f = fopen("/proc/self/statm", "r");
  unsigned long size = 0, resident = 0;
  if (!f)
    return 0;
  if (fscanf(f, "%lu %lu", &size, &resident) != 2)
    resident = 0;
  fclose(f);
  return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/* Resident anonymous and file-backed KiB (/proc/self/status): a leak grows the first; the second
 * is the pages of mapped code and data files touched so far. */
static void rss_split(uint64_t *anon_kib, uint64_t *file_kib) {
  char line[128];
  FILE *f = fopen("/proc/self/status", "r");
  *anon_kib = *file_kib = 0;
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    unsigned long long v;
    if (sscanf(line, "RssAnon: %llu", &v) == 1)
      *anon_kib = v;
    else if (sscanf(line, "RssFile: %llu", &v) == 1)
      *file_kib = v;
  }
  fclose(f);
}

/* With $SOAK_SMAPS_DIR set, a copy of /proc/self/smaps after each round (DIR/round-N.smaps), to
 * find which mapping grows. */
static void save_smaps(uint32_t round) {
  const char *dir = getenv("SOAK_SMAPS_DIR");
  if (!dir || !*dir)
    return;
  char path[512], buf[4096];
  snprintf(path, sizeof path, "%s/round-%u.smaps", dir, round);
  FILE *in = fopen("/proc/self/smaps", "r"), *out = fopen(path, "w");
  size_t n;
  while (in && out && (n = fread(buf, 1, sizeof buf, in)) > 0)
    fwrite(buf, 1, n, out);
  if (in)
    fclose(in);
  if (out)
    fclose(out);
}

/* Bytes the allocator has handed out and not had back (glibc's own count). */
static uint64_t heap_in_use(void) {
  struct mallinfo2 mi = mallinfo2();
  return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

/* Free chunks the allocator keeps in its (first) heap, from malloc_info: after malloc_trim each
 * still holds the page of its header, so their number is the part of RSS that fragmentation
 * explains. 0 when the report cannot be read. */
static unsigned long free_chunks(void) {
  char *buf = NULL;
  size_t len = 0;
  unsigned long n = 0;
  FILE *m = open_memstream(&buf, &len);
  if (!m)
    return 0;
  malloc_info(0, m);
  fclose(m);
  const char *t = buf ? strstr(buf, "<total type=\"rest\" count=\"") : NULL;
  if (t)
    n = strtoul(t + strlen("<total type=\"rest\" count=\""), NULL, 10);
  free(buf);
  return n;
}

/* --- the core's observer (scheduler thread) --- */

static void tap_started(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)req, (void)now;
  if (client < SOAK_MAX_CLIENTS)
    atomic_fetch_add(&g.started[client], 1);
}

static void tap_done(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)req, (void)now;
  if (client < SOAK_MAX_CLIENTS)
    atomic_fetch_add(&g.done[client], 1);
  atomic_fetch_add(&g.total_done, 1);
  atomic_store(&g.last_done_ns, mono_ns());
}

static void tap_dropped(void *ctx, uint32_t client, uint64_t req, int64_t now) {
  (void)ctx, (void)req, (void)now;
  if (client < SOAK_MAX_CLIENTS)
    atomic_fetch_add(&g.dropped[client], 1);
  atomic_store(&g.last_done_ns, mono_ns());
}

static void tap_preemption(void *ctx, uint32_t n_preempted, int64_t now) {
  (void)ctx, (void)now;
  if (n_preempted > 0) {
    atomic_fetch_add(&g.round_preemptions, 1);
    atomic_fetch_add(&g.total_preemptions, 1);
  }
}

static const atoll_core_observer tap = {.request_started = tap_started, .request_done = tap_done,
                                        .request_dropped = tap_dropped, .preemption = tap_preemption};

/* --- the watchdog --- */

static void set_phase(enum phase p, int64_t run_ns) {
  int64_t now = mono_ns();
  atomic_store(&g.phase_since_ns, now);
  atomic_store(&g.run_end_ns, now + run_ns);
  atomic_store(&g.phase, (int)p);
}

static void dump_and_fail(const char *why, int64_t now) {
  enum phase p = (enum phase)atomic_load(&g.phase);
  fprintf(stderr, "\nsoak WATCHDOG: %s\n", why);
  fprintf(stderr, "  phase: %s, round %u, %.1f s in this phase\n", phase_names[p], atomic_load(&g.round),
          (double)(now - atomic_load(&g.phase_since_ns)) / 1e9);
  int64_t last = atomic_load(&g.last_done_ns);
  fprintf(stderr, "  last request completion: %.1f s ago; completions over the soak: %llu, preemptions: %llu\n",
          last ? (double)(now - last) / 1e9 : -1.0, (unsigned long long)atomic_load(&g.total_done),
          (unsigned long long)atomic_load(&g.total_preemptions));
  fprintf(stderr, "  this round, per client (started / completed / dropped):\n");
  for (uint32_t c = 0; g.s && c < g.s->n_clients && c < SOAK_MAX_CLIENTS; c++)
    fprintf(stderr, "    %-16s %s  %llu / %llu / %llu\n", g.s->clients[c].name,
            g.s->clients[c].cls == ATOLL_CLASS_RT ? "rt" : "be", (unsigned long long)atomic_load(&g.started[c]),
            (unsigned long long)atomic_load(&g.done[c]), (unsigned long long)atomic_load(&g.dropped[c]));
  fprintf(stderr, "  RSS %.1f MiB\n", (double)rss_bytes() / 1048576.0);
  fflush(stderr);
  fflush(stdout);
  abort(); /* the main thread may be the one that is stuck: end the process from here */
}

static void *watchdog_main(void *arg) {
  (void)arg;
  const soak_opts *o = g.o;
  int64_t stall_ns = (int64_t)(o->watchdog_s * 1e9), tail_ns = (int64_t)(o->tail_s * 1e9);
  while (!atomic_load(&g.stop)) {
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
    int64_t now = mono_ns();
    uint32_t round = atomic_load(&g.round);
    if (round < g.cap_rounds) {
      uint64_t b = rss_bytes();
      if (b > atomic_load(&g.rss_peak[round]))
        atomic_store(&g.rss_peak[round], b);
      atomic_fetch_add(&g.n_samples, 1);
    }
    enum phase p = (enum phase)atomic_load(&g.phase);
    int64_t since = atomic_load(&g.phase_since_ns), end = atomic_load(&g.run_end_ns);
    if (p == PH_RUN && now < end) {
      int64_t last = atomic_load(&g.last_done_ns);
      if (last < since)
        last = since;
      if (now - last > stall_ns) {
        char why[128];
        snprintf(why, sizeof why, "no request completed for %.0f s while the clients were sending", o->watchdog_s);
        dump_and_fail(why, now);
      }
    } else if (p == PH_RUN && now - end > tail_ns) {
      char why[128];
      snprintf(why, sizeof why, "the round has not returned %.0f s after its end (stopping or verifying hangs)",
               o->tail_s);
      dump_and_fail(why, now);
    } else if ((p == PH_SETUP || p == PH_BETWEEN) && now - since > tail_ns) {
      char why[128];
      snprintf(why, sizeof why, "%s took more than %.0f s", phase_names[p], o->tail_s);
      dump_and_fail(why, now);
    }
  }
  return NULL;
}

/* --- accounting --- */

typedef struct tally {
  uint64_t issued, completed, dropped, failed, in_flight, lost, observer_mismatch;
  uint64_t preemptions, killed, evicted, cu_resets, preempted_tasks, group_restores, hq_dropped;
  uint64_t verified, mismatches, unverified;
  char first_failure[240]; /* not added up */
} tally;

static void tally_add(tally *t, const tally *r) {
  uint64_t *a = &t->issued;
  const uint64_t *b = &r->issued;
  for (size_t i = 0; i < offsetof(tally, first_failure) / sizeof(uint64_t); i++)
    a[i] += b[i];
  if (!t->first_failure[0] && r->first_failure[0])
    memcpy(t->first_failure, r->first_failure, sizeof t->first_failure);
}

/* One round's books, per client, from the records (what the report would count) and the
 * observer's counts (what the core said). */
static void account(const atoll_scenario *s, const atoll_run_results *res, const atoll_native_info *info, tally *t,
                    FILE *err) {
  memset(t, 0, sizeof *t);
  for (uint32_t c = 0; c < s->n_clients; c++) {
    const atoll_client_records *cr = &res->clients[c];
    uint64_t completed = 0, failed = 0, failed_kernel = 0;
    int64_t last_finished = -1;
    for (uint32_t i = 0; i < cr->n; i++) {
      const atoll_request_record *q = &cr->req[i];
      completed += q->done_ns >= 0;
      failed += q->failed != 0;
      failed_kernel += q->failed == ATOLL_NFAULT_KERNEL; /* the core completed these, then they failed */
      if (q->done_ns >= 0 || q->failed)
        last_finished = i;
    }
    uint64_t unfinished = cr->n - completed - failed, lost = 0;
    for (int64_t i = 0; i < last_finished; i++)
      lost += cr->req[i].done_ns < 0 && !cr->req[i].failed;
    if (failed != cr->failed) {
      t->observer_mismatch++;
      fprintf(err, "  client %s: %llu failed records, the client's count says %u\n", s->clients[c].name,
              (unsigned long long)failed, cr->failed);
    }
    if (s->clients[c].arrival.kind == ATOLL_ARRIVAL_CLOSED && unfinished > 1)
      lost += unfinished - 1;
    uint64_t seen_done = atomic_load(&g.done[c]), seen_dropped = atomic_load(&g.dropped[c]);
    if (seen_done != completed + failed_kernel || seen_dropped != cr->dropped) {
      t->observer_mismatch++;
      fprintf(err, "  client %s: the core reported %llu completions and %llu drops, the records hold %llu and %u\n",
              s->clients[c].name, (unsigned long long)seen_done, (unsigned long long)seen_dropped,
              (unsigned long long)(completed + failed_kernel), cr->dropped);
    }
    if (lost)
      fprintf(err, "  client %s: %llu requests left unfinished behind completed ones (lost)\n", s->clients[c].name,
              (unsigned long long)lost);
    t->issued += cr->n + cr->dropped;
    t->completed += completed;
    t->dropped += cr->dropped;
    t->failed += failed;
    if (failed && !t->first_failure[0])
      snprintf(t->first_failure, sizeof t->first_failure, "%s: %s", s->clients[c].name, cr->failure);
    t->in_flight += unfinished - (lost < unfinished ? lost : unfinished);
    t->lost += lost;
  }
  t->preemptions = res->n_preemptions;
  t->killed = info->stats.killed;
  t->evicted = info->stats.evicted;
  t->cu_resets = info->stats.cu_resets;
  t->hq_dropped = info->stats.hq_reset_cmds;
  t->preempted_tasks = info->preempted_tasks;
  t->group_restores = info->group_restores;
  t->verified = res->verify_requests;
  t->mismatches = res->verify_mismatches;
  t->unverified = t->completed > t->verified ? t->completed - t->verified : 0;
}

/* --- memory --- */

/* The largest RSS sample of rounds [lo, hi). */
static uint64_t rss_peak(uint32_t lo, uint32_t hi) {
  uint64_t m = 0;
  for (uint32_t i = lo; i < hi && i < g.cap_rounds; i++)
    if (atomic_load(&g.rss_peak[i]) > m)
      m = atomic_load(&g.rss_peak[i]);
  return m;
}

/* --- options --- */

static int usage(const char *msg) {
  fprintf(stderr,
          "soak_native: %s\n"
          "usage: soak_native [--seconds S] [--round-s S] [--cus N] [--rt-hz HZ] [--warmup-rounds N]\n"
          "                   [--watchdog-s S] [--tail-s S] [--min-preemptions N] [--rss-limit PCT|off] [--seed N]\n"
          "                   [--malloc-arenas N] [--malloc-tcache on|off] [--inject kernel:P,alloc:P]\n",
          msg);
  return 2;
}

static int parse(int argc, char **argv, soak_opts *o) {
  const char *env = getenv("ATOLL_SOAK_SECONDS");
  *o = (soak_opts){.seconds = env && *env ? atof(env) : 60, .round_s = 10, .rt_hz = 500, .watchdog_s = 30,
                   .tail_s = 300, .rss_limit_pct = 5, .cus = 2, .warmup_rounds = 2, .malloc_arenas = 1,
                   .seed = 1};
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage("a soak of the native runtime (docs/soak.md)");
      return -1; /* help given: main exits 0 (it said "every option takes a value") */
    }
    if (i + 1 >= argc)
      return usage("every option takes a value");
    if (strcmp(a, "--inject") == 0) {
      o->inject = argv[++i];
      continue;
    }
    if (strcmp(a, "--malloc-tcache") == 0) {
      const char *v = argv[++i];
      if (strcmp(v, "on") != 0 && strcmp(v, "off") != 0)
        return usage("--malloc-tcache takes on or off");
      o->malloc_tcache = strcmp(v, "on") == 0;
      continue;
    }
    if (strcmp(a, "--rss-limit") == 0 && strcmp(argv[i + 1], "off") == 0) {
      o->rss_limit_pct = -1; /* not checked: see the memory check above */
      i++;
      continue;
    }
    char *end;
    const char *text = argv[++i];
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !(v >= 0) || !isfinite(v)) /* nan ran 2 rounds */
      return usage("option values are non-negative numbers");
    /* The counts are whole and fit their fields (--cus 4294967297 ran with 1 CU); the times stay
     * within what the round records are allocated for. */
    bool count = strcmp(a, "--cus") == 0 || strcmp(a, "--warmup-rounds") == 0 || strcmp(a, "--min-preemptions") == 0 ||
                 strcmp(a, "--seed") == 0 || strcmp(a, "--malloc-arenas") == 0;
    if (count && (v != floor(v) || v > UINT32_MAX))
      return usage("counts (--cus, --warmup-rounds, --min-preemptions, --seed, --malloc-arenas) are whole numbers "
                   "up to 4294967295");
    if (!count && v > 1e7)
      return usage("times and rates are at most 1e7");
    if (strcmp(a, "--seconds") == 0)
      o->seconds = v;
    else if (strcmp(a, "--round-s") == 0)
      o->round_s = v;
    else if (strcmp(a, "--cus") == 0)
      o->cus = (uint32_t)v;
    else if (strcmp(a, "--rt-hz") == 0)
      o->rt_hz = v;
    else if (strcmp(a, "--warmup-rounds") == 0)
      o->warmup_rounds = (uint32_t)v;
    else if (strcmp(a, "--watchdog-s") == 0)
      o->watchdog_s = v;
    else if (strcmp(a, "--tail-s") == 0)
      o->tail_s = v;
    else if (strcmp(a, "--min-preemptions") == 0)
      o->min_preemptions = (uint64_t)v;
    else if (strcmp(a, "--rss-limit") == 0)
      o->rss_limit_pct = v;
    else if (strcmp(a, "--seed") == 0)
      o->seed = (uint64_t)v;
    else if (strcmp(a, "--malloc-arenas") == 0)
      o->malloc_arenas = (uint32_t)v;
    else
      return usage("unknown option");
  }
  if (o->round_s < 1 || o->cus < 1 || o->cus > 64 || o->rt_hz <= 0 || o->watchdog_s < 1)
    return usage("--round-s >= 1, --cus 1..64, --rt-hz > 0, --watchdog-s >= 1");
  return 0;
}

/* The allocator settings under which RSS after a round measures what the process holds, so that a
 * leak shows and nothing else does (docs/soak.md, "Memory"):
 *  - one arena: with the C library's per-thread arenas, the threads each round creates land on
 *    different arenas, whose freed memory malloc_trim does not fully return, and RSS creeps while
 *    the bytes in use stay flat;
 *  - no per-thread cache: glibc's tcache keeps up to 7 freed chunks of each small size per thread;
 *    to the heap those chunks are in use, so the main thread's cache, refilled with chunks from
 *    wherever in the heap each round's frees come from, splits its free space into ever more
 *    pieces, each pinning a resident page after malloc_trim. The cache can only be set before the
 *    process starts (GLIBC_TUNABLES), so the soak executes itself again once with it set.
 * Must run before any thread starts. */
static const char tcache_off[] = "glibc.malloc.tcache_count=0"; /* in GLIBC_TUNABLES */

static void allocator_settings(const soak_opts *o, char **argv) {
  const char *t = getenv("GLIBC_TUNABLES");
  if (!o->malloc_tcache && !(t && strstr(t, tcache_off))) {
    char v[1024];
    int n = snprintf(v, sizeof v, "%s%s%s", t ? t : "", t && *t ? ":" : "", tcache_off);
    if (n > 0 && (size_t)n < sizeof v && setenv("GLIBC_TUNABLES", v, 1) == 0)
      execv("/proc/self/exe", argv);
    fprintf(stderr, "soak_native: could not restart with malloc's thread cache off (%s); RSS may creep\n",
            strerror(errno));
  }
  if (o->malloc_arenas)
    mallopt(M_ARENA_MAX, (int)o->malloc_arenas);
}

int main(int argc, char **argv) {
  soak_opts o;
  int rc = parse(argc, argv, &o);
  if (rc)
    return rc < 0 ? 0 : rc;
  allocator_settings(&o, argv);
  setvbuf(stdout, NULL, _IOLBF, 0);
  atoll_nfault_cfg inject = {.seed = o.seed};
  char inject_err[160];
  if (o.inject && atoll_nfault_parse(o.inject, &inject, inject_err, sizeof inject_err) != 0)
    return usage(inject_err);
  g.o = &o;
  /* The soak's own per-round records, allocated and written through before round 0: memory the
   * soak itself touched as the rounds went on would show as growth (a log of every 100 ms sample
   * once did, 2.4 KiB a round). */
  uint32_t cap_rounds = (uint32_t)(o.seconds / o.round_s) + 64;
  g.cap_rounds = cap_rounds;
  g.rss_peak = malloc(cap_rounds * sizeof *g.rss_peak);
  uint64_t *rss_end = malloc(cap_rounds * sizeof *rss_end);
  if (!g.rss_peak || !rss_end) {
    free(g.rss_peak);
    free(rss_end);
    return 2;
  }
  for (uint32_t i = 0; i < cap_rounds; i++) {
    atomic_init(&g.rss_peak[i], 0);
    rss_end[i] = 0;
  }
  set_phase(PH_SETUP, 0);
  pthread_t wd;
  if (pthread_create(&wd, NULL, watchdog_main, NULL) != 0)
    return 2;

  char err[256];
  soak_scenario f;
  rc = soak_build(&f, o.cus, o.rt_hz, o.seed, err, sizeof err);
  int64_t standalone[SOAK_MAX_MODELS];
  atoll_native_opts no = {.device = "cpu", .cus = o.cus, .sched_cpu = -1, .verify = true, .nmodels = f.nmodels,
                          .tap = &tap, .inject = o.inject ? &inject : NULL};
  for (uint32_t m = 0; rc == 0 && m < f.s.n_models; m++)
    rc = atoll_native_standalone_ns(&f.s, &no, m, 5, &standalone[m], err, sizeof err);
  if (rc) {
    fprintf(stderr, "soak_native: set-up failed: %s\n", err[0] ? err : atoll_strerror(rc));
    atomic_store(&g.stop, 1);
    pthread_join(wd, NULL);
    soak_free(&f);
    free(g.rss_peak);
    free(rss_end);
    return rc == ATOLL_ENODEV ? 4 : 1;
  }
  no.standalone_ns = standalone;
  g.s = &f.s;
  printf("soak: %.0f s in rounds of %.0f s on the CPU device (%u CUs), REEF, RT at %.0f Hz; models alone:", o.seconds,
         o.round_s, o.cus, o.rt_hz);
  for (uint32_t m = 0; m < f.s.n_models; m++)
    printf(" %s %.2f ms", f.s.models[m].name, (double)standalone[m] / 1e6);
  printf("\n");
  /* What is in force, read back: the cache is off only if the restart took the tunable along. */
  const char *tunables = getenv("GLIBC_TUNABLES");
  const char *tcache = tunables && strstr(tunables, tcache_off) ? "off" : "on";
  if (o.malloc_arenas)
    printf("soak: malloc with at most %u arena(s), thread cache %s\n", o.malloc_arenas, tcache);
  else
    printf("soak: malloc with its default arenas, thread cache %s\n", tcache);
  if (o.inject)
    printf("soak: fault injection %s (kernel launches %.4f, request allocations %.4f)\n", o.inject, inject.kernel_p,
           inject.alloc_p);

  tally total;
  memset(&total, 0, sizeof total);
  uint32_t rounds = 0;
  int failed = 0;
  int64_t t_start = mono_ns();
  atoll_scenario s = f.s;
  s.duration_ns = (int64_t)(o.round_s * 1e9);
  while (rc == 0 && rounds < cap_rounds &&
         ((double)(mono_ns() - t_start) / 1e9 < o.seconds || rounds < o.warmup_rounds + 2)) {
    s.seed = o.seed + rounds;
    for (uint32_t c = 0; c < SOAK_MAX_CLIENTS; c++) {
      atomic_store(&g.started[c], 0);
      atomic_store(&g.done[c], 0);
      atomic_store(&g.dropped[c], 0);
    }
    atomic_store(&g.round_preemptions, 0);
    atomic_store(&g.round, rounds);
    /* The run's own set-up (device memory, threads) comes before its clients start: a second. */
    set_phase(PH_RUN, s.duration_ns + 1000000000);
    atoll_run_results res;
    atoll_native_info info;
    rc = atoll_native_run(&s, &no, &res, &info, err, sizeof err);
    set_phase(PH_BETWEEN, 0);
    if (rc) {
      fprintf(stderr, "soak_native: round %u failed: %s\n", rounds, err[0] ? err : atoll_strerror(rc));
      failed = 1;
      break;
    }
    tally t;
    account(&s, &res, &info, &t, stderr);
    if (t.preemptions != atomic_load(&g.round_preemptions)) {
      fprintf(stderr, "  round %u: %llu preemption records, the core reported %llu\n", rounds,
              (unsigned long long)t.preemptions, (unsigned long long)atomic_load(&g.round_preemptions));
      t.observer_mismatch++;
    }
    tally_add(&total, &t);
    double run_wall = res.wall_s;
    atoll_run_results_free(&res);
    malloc_trim(0);
    rss_end[rounds] = rss_bytes();
    uint64_t anon_kib, file_kib;
    rss_split(&anon_kib, &file_kib);
    save_smaps(rounds);
    printf("round %3u  %6.1f s (run %.1f s)  issued %6" PRIu64 "  completed %6" PRIu64 "  dropped %3" PRIu64 "  failed %3" PRIu64
           "  in flight at stop %2" PRIu64 "  preemptions %5" PRIu64 " (CU resets %5" PRIu64 ", killed %5" PRIu64
           ", evicted %5" PRIu64 ")  verified %6" PRIu64 " mismatches %" PRIu64 "  RSS peak %.1f, after %.2f MiB (anon %" PRIu64 " KiB, files %" PRIu64 " KiB; heap in use %.0f KiB, %lu free chunks)\n",
           rounds, (double)(mono_ns() - t_start) / 1e9, run_wall, t.issued, t.completed, t.dropped, t.failed, t.in_flight,
           t.preemptions, t.cu_resets, t.killed, t.evicted, t.verified, t.mismatches,
           (double)rss_peak(rounds, rounds + 1) / 1048576.0, (double)rss_end[rounds] / 1048576.0, anon_kib, file_kib,
           (double)heap_in_use() / 1024.0, free_chunks());
    rounds++;
  }
  double wall = (double)(mono_ns() - t_start) / 1e9;
  set_phase(PH_END, 0);
  atomic_store(&g.stop, 1);
  pthread_join(wd, NULL);

  /* Memory: the first and the last third of the rounds after warm-up. */
  uint32_t warm = o.warmup_rounds < rounds ? o.warmup_rounds : 0;
  uint32_t span = rounds - warm, k = span / 3 ? span / 3 : 1;
  uint64_t base = 0, last = 0;
  for (uint32_t i = warm; i < warm + k && i < rounds; i++)
    base = rss_end[i] > base ? rss_end[i] : base;
  for (uint32_t i = rounds >= k ? rounds - k : 0; i < rounds; i++)
    last = rss_end[i] > last ? rss_end[i] : last;
  double growth = base ? ((double)last - (double)base) * 100.0 / (double)base : 0;

  printf("\nsoak summary: %u rounds, %.1f s\n", rounds, wall);
  printf("  preemptions            %" PRIu64 " (%.1f /s); CU resets %" PRIu64 ", launches killed %" PRIu64
         ", evicted %" PRIu64 ", HQ commands dropped %" PRIu64 "\n",
         total.preemptions, wall > 0 ? (double)total.preemptions / wall : 0, total.cu_resets, total.killed,
         total.evicted, total.hq_dropped);
  printf("  BE tasks preempted     %" PRIu64 " (%" PRIu64 " restored at a group entry before the interrupted op)\n",
         total.preempted_tasks, total.group_restores);
  printf("  requests               issued %" PRIu64 " = completed %" PRIu64 " + dropped %" PRIu64 " + failed %" PRIu64
         " + in flight at a round's stop %" PRIu64 "; lost %" PRIu64 "\n",
         total.issued, total.completed, total.dropped, total.failed, total.in_flight, total.lost);
  if (total.failed)
    printf("  failed requests        %" PRIu64 "; the first: %s\n", total.failed, total.first_failure);
  printf("  verify                 %" PRIu64 " outputs compared bit for bit, %" PRIu64 " mismatches, %" PRIu64
         " completed but not compared\n",
         total.verified, total.mismatches, total.unverified);
  char limit[48];
  if (o.rss_limit_pct < 0)
    snprintf(limit, sizeof limit, "not checked: --rss-limit off");
  else
    snprintf(limit, sizeof limit, "limit %.1f %%", o.rss_limit_pct);
  printf("  RSS after a round      %.2f MiB (largest of rounds %u-%u) -> %.2f MiB (largest of rounds %u-%u): "
         "%+.2f %% (%s)\n",
         (double)base / 1048576.0, warm, warm + k - 1, (double)last / 1048576.0, rounds - k, rounds - 1, growth,
         limit);
  printf("  RSS during rounds      peak %.2f MiB over %u samples (every 100 ms)\n",
         (double)rss_peak(0, UINT32_MAX) / 1048576.0, atomic_load(&g.n_samples));

  bool balanced = total.issued == total.completed + total.dropped + total.failed + total.in_flight;
  if (!failed && (total.mismatches || total.unverified)) {
    fprintf(stderr, "soak FAILED: %" PRIu64 " outputs differ, %" PRIu64 " completed requests not compared\n",
            total.mismatches, total.unverified);
    failed = 1;
  }
  if (!failed && (!balanced || total.lost || total.observer_mismatch)) {
    fprintf(stderr, "soak FAILED: requests unaccounted for (lost %" PRIu64 ", observer mismatches %" PRIu64 ")\n",
            total.lost, total.observer_mismatch);
    failed = 1;
  }
  if (!failed && o.rss_limit_pct >= 0 && growth >= o.rss_limit_pct) {
    fprintf(stderr, "soak FAILED: RSS grew %.2f %% after warm-up (limit %.1f %%)\n", growth, o.rss_limit_pct);
    failed = 1;
  }
  if (!failed && total.preemptions < o.min_preemptions) {
    fprintf(stderr, "soak FAILED: %" PRIu64 " preemptions, fewer than the %" PRIu64 " asked for\n", total.preemptions,
            o.min_preemptions);
    failed = 1;
  }
  printf("soak %s\n", failed ? "FAILED" : "passed");
  free(g.rss_peak);
  free(rss_end);
  soak_free(&f);
  return failed ? 1 : 0;
}
