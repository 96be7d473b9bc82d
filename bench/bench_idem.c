/* idem_checker benchmark: the group search on a synthetic model trace of 1,000,000 operations,
 * and its speed against the per-byte reference on a trace small enough for that to finish.
 * Not a test: it prints figures and compares nothing but the answers.
 *   bench_idem [--ops N] [--ref-ops N] [--runs R] [--seed S]
 *     (defaults 1000000, 20000, 3 and a fixed seed; N from 1 to 100000000, R from 1 to 31)
 *
 * The synthetic trace imitates a DNN: a pool of activation buffers reused round-robin (as TVM
 * reuses its intermediates), weights read in tiles, outputs written in tiles (about 10 ranges per
 * op), a host-to-device copy per inference, and the patterns REEF's Table 1 / Fig. 10 found in
 * other frameworks: in-place updates of a recent output (groups of 2-5 kernels, rarely up to 9),
 * memset + accumulate pairs (a memset completing the group), and a rare in-place update of a
 * buffer nothing produced (not restorable). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "bench/bench_util.h"
#include "idem/badset.h"
#include "idem/grow.h"
#include "idem/report.h"
#include "idem/sweep.h"
#include "idem/trace.h"

static uint64_t rng_state;
static uint64_t rnd(void) {
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545F4914F6CDD1DULL;
}
static uint64_t below(uint64_t n) { return rnd() % n; }

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void check(int rc, const char *what) {
  if (rc != 0) {
    fprintf(stderr, "bench_idem: %s failed (%d)\n", what, rc);
    exit(1);
  }
}

/* --- The synthetic model --- */

enum { N_WEIGHTS = 512, N_ACTS = 24, HISTORY = 8, OPS_PER_INFERENCE = 250 };

typedef struct buf {
  uint64_t lo, bytes;
} buf;

typedef struct model {
  buf weight[N_WEIGHTS], act[N_ACTS], input, counter;
  uint32_t recent[HISTORY]; /* activation buffers by recency of their last write, [0] newest */
  uint32_t next_out;
  bool allow_not_restorable;
} model;

/* Lays the buffers out from base; unit scales every size (1 for real sizes, smaller for the
 * reference trace, whose per-byte arrays must fit in memory). */
static void model_init(model *m, uint64_t base, uint64_t unit, bool allow_not_restorable) {
  uint64_t at = base;
  for (int k = 0; k < N_WEIGHTS; k++) {
    m->weight[k] = (buf){at, (4 + below(1021)) * unit};
    at += (m->weight[k].bytes + 255) / 256 * 256;
  }
  for (int k = 0; k < N_ACTS; k++) {
    m->act[k] = (buf){at, (64 + below(4033)) * unit};
    at += (m->act[k].bytes + 255) / 256 * 256;
  }
  m->input = (buf){at, 1024 * unit};
  at += m->input.bytes;
  m->counter = (buf){at, 256};
  for (int k = 0; k < HISTORY; k++)
    m->recent[k] = (uint32_t)k;
  m->next_out = HISTORY;
  m->allow_not_restorable = allow_not_restorable;
}

static uint64_t model_span(const model *m, uint64_t base) { return m->counter.lo + m->counter.bytes - base; }

/* A buffer in `tiles` ranges, read or written. */
static void tiles(idem_trace *t, buf b, int n, bool write) {
  uint64_t step = b.bytes / (uint64_t)n;
  for (int k = 0; k < n; k++) {
    uint64_t lo = b.lo + step * (uint64_t)k, hi = k + 1 == n ? b.lo + b.bytes : lo + step;
    if (hi > lo)
      check(idem_trace_add_access(t, write, lo, hi), "add access");
  }
}

static void produced(model *m, uint32_t out) {
  memmove(&m->recent[1], &m->recent[0], (HISTORY - 1) * sizeof *m->recent);
  m->recent[0] = out;
}

/* The next output buffer: round-robin over the pool, skipping the recent ones (still inputs). */
static uint32_t pick_output(model *m) {
  for (;;) {
    uint32_t b = m->next_out++ % N_ACTS;
    bool busy = false;
    for (int k = 0; k < 3; k++)
      busy |= m->recent[k] == b;
    if (!busy)
      return b;
  }
}

static void add_kernel(idem_trace *t, model *m, uint64_t i) {
  char name[32];
  uint64_t r = below(10000);
  buf w = m->weight[below(N_WEIGHTS)];
  if (r < 600) {
    /* In-place update (residual add, activation) of a recent output: the group reaches back to
     * that output's producer. Mostly the newest, sometimes older. */
    uint64_t back = below(100) < 70 ? 0 : below(100) < 80 ? 1 : 1 + below(HISTORY - 1);
    buf x = m->act[m->recent[back]];
    int len = snprintf(name, sizeof name, "add_inplace_%llu", (unsigned long long)(i % 97));
    check(idem_trace_add_op(t, IDEM_OP_KERNEL, name, (size_t)len, 0), "add op");
    tiles(t, m->act[m->recent[back == 0 ? 1 : 0]], 3, false);
    tiles(t, x, 3, false);
    tiles(t, x, 3, true);
    tiles(t, w, 1, false);
  } else if (r < 900) {
    /* memset + accumulate: the memset writes the output first, so the pair is idempotent. */
    uint32_t out = pick_output(m);
    check(idem_trace_add_op(t, IDEM_OP_MEMSET, "zero_acc", 8, 0), "add op");
    tiles(t, m->act[out], 1, true);
    int len = snprintf(name, sizeof name, "gemm_accumulate_%llu", (unsigned long long)(i % 89));
    check(idem_trace_add_op(t, IDEM_OP_KERNEL, name, (size_t)len, 0), "add op");
    tiles(t, m->act[m->recent[0]], 3, false);
    tiles(t, w, 3, false);
    tiles(t, m->act[out], 2, false);
    tiles(t, m->act[out], 2, true);
    produced(m, out);
  } else if (r < 905 && m->allow_not_restorable) {
    /* A kernel bumping a counter nothing writes first: not restorable. */
    check(idem_trace_add_op(t, IDEM_OP_KERNEL, "count_calls", 11, 0), "add op");
    tiles(t, m->act[m->recent[0]], 3, false);
    tiles(t, m->counter, 1, false);
    tiles(t, m->counter, 1, true);
  } else {
    uint32_t out = pick_output(m);
    int len = snprintf(name, sizeof name, "fused_conv_%llu", (unsigned long long)(i % 211));
    check(idem_trace_add_op(t, IDEM_OP_KERNEL, name, (size_t)len, 0), "add op");
    tiles(t, m->act[m->recent[0]], 3, false);
    tiles(t, m->act[m->recent[1]], 1, false);
    tiles(t, w, 3, false);
    tiles(t, m->act[out], 3, true);
    produced(m, out);
  }
}

static void generate(idem_trace *t, uint32_t n_ops, uint64_t base, uint64_t unit, bool not_restorable,
                     uint64_t *span) {
  model m;
  model_init(&m, base, unit, not_restorable);
  *span = model_span(&m, base);
  idem_trace_init(t);
  check(idem_trace_reserve(t, n_ops, (size_t)n_ops * 11), "reserve");
  for (uint64_t i = 0; t->n_ops < n_ops; i++) {
    if (i % OPS_PER_INFERENCE == 0) {
      check(idem_trace_add_op(t, IDEM_OP_MEMCPY, "input_h2d", 9, 0), "add op");
      tiles(t, m.input, 1, true);
      continue;
    }
    add_kernel(t, &m, i);
  }
  if (t->n_ops > n_ops) { /* a memset + kernel pair may run one over */
    t->n_acc = t->ops[n_ops].first;
    t->n_ops = n_ops;
  }
}

/* --- The per-byte reference: REEF's growth, byte by byte --- */

typedef struct bytewise {
  uint64_t base, span;
  uint32_t *group_stamp, *op_stamp, *write_stamp;
  unsigned char *group_first, *group_written, *op_first;
  uint32_t *touched;
  size_t cap_touched;
} bytewise;

/* Adds op j in front of the group: its per-byte first access replaces the group's. Returns the
 * change in the number of conflicting bytes (first access a read, and written by the group). */
static long prepend(bytewise *b, const idem_trace *t, uint32_t j, uint32_t i) {
  const idem_op *op = &t->ops[j];
  size_t n = 0;
  for (uint32_t a = 0; a < op->n_acc; a++) {
    const idem_access *x = &t->acc[op->first + a];
    for (uint64_t addr = x->lo; addr < x->hi; addr++) {
      uint64_t at = addr - b->base;
      if (b->op_stamp[at] != j + 1) {
        b->op_stamp[at] = j + 1;
        b->op_first[at] = x->write ? 2 : 1;
        if (n == b->cap_touched) {
          b->cap_touched = b->cap_touched * 2 + 1024;
          b->touched = realloc(b->touched, b->cap_touched * sizeof *b->touched);
          if (!b->touched)
            check(1, "memory");
        }
        b->touched[n++] = (uint32_t)at;
      }
      if (x->write)
        b->write_stamp[at] = j + 1;
    }
  }
  long delta = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t at = b->touched[k];
    if (b->group_stamp[at] != i + 1) {
      b->group_stamp[at] = i + 1;
      b->group_first[at] = 0;
      b->group_written[at] = 0;
    }
    int before = b->group_first[at] == 1 && b->group_written[at];
    b->group_first[at] = b->op_first[at];
    if (b->write_stamp[at] == j + 1)
      b->group_written[at] = 1;
    delta += (b->group_first[at] == 1 && b->group_written[at]) - before;
  }
  return delta;
}

static void bytewise_search(const idem_trace *t, uint64_t base, uint64_t span, uint32_t *entry) {
  bytewise b = {.base = base, .span = span};
  b.group_stamp = calloc(span, sizeof *b.group_stamp);
  b.op_stamp = calloc(span, sizeof *b.op_stamp);
  b.write_stamp = calloc(span, sizeof *b.write_stamp);
  b.group_first = calloc(span, 1);
  b.group_written = calloc(span, 1);
  b.op_first = calloc(span, 1);
  if (!b.group_stamp || !b.op_stamp || !b.write_stamp || !b.group_first || !b.group_written || !b.op_first)
    check(1, "memory for the per-byte reference");
  for (uint32_t i = 0; i < t->n_ops; i++) {
    long conflicts = 0;
    entry[i] = IDEM_NO_ENTRY;
    /* Op stamps must differ between the ops of one group and across groups: stamp with j + 1, and
     * clear them before each group, since op j is prepended again for later i. */
    for (uint32_t j = i + 1; j-- > 0;) {
      const idem_op *op = &t->ops[j];
      for (uint32_t a = 0; a < op->n_acc; a++)
        for (uint64_t addr = t->acc[op->first + a].lo; addr < t->acc[op->first + a].hi; addr++)
          b.op_stamp[addr - base] = 0, b.write_stamp[addr - base] = 0;
      conflicts += prepend(&b, t, j, i);
      if (conflicts == 0) {
        entry[i] = j;
        break;
      }
    }
  }
  free(b.group_stamp);
  free(b.op_stamp);
  free(b.write_stamp);
  free(b.group_first);
  free(b.group_written);
  free(b.op_first);
  free(b.touched);
}

/* --- Runs --- */

enum { MAX_RUNS = 31 };

static double median_search(const idem_trace *t, uint32_t *entry, int runs) {
  double s[MAX_RUNS];
  for (int r = 0; r < runs; r++) {
    double t0 = now_s();
    check(idem_search(t, entry), "idem_search");
    s[r] = now_s() - t0;
  }
  return bench_median(s, (size_t)runs);
}

static void describe(const idem_trace *t, const uint32_t *entry) {
  idem_summary s;
  check(idem_summary_compute(t, entry, &s), "summary");
  printf("  %u ops: %u kernels, %u memcpy, %u memset; %.1f ranges per op\n", s.ops, s.kernels, s.memcpys, s.memsets,
         (double)t->n_acc / t->n_ops);
  printf("  idempotent kernels %u, restored by a group %u, not restorable %u; largest group %u ops (%u kernels)\n",
         s.idempotent_kernels, s.group_kernels, s.not_restorable_kernels, s.largest_ops, s.largest_kernels);
  printf("  kernels per group of the non-idempotent kernels (Fig. 10):");
  for (uint32_t k = 0; k < s.n_hist; k++)
    printf(" %u:%u", s.hist[k].kernels, s.hist[k].count);
  printf("\n");
  idem_summary_free(&s);
}

/* MAX_OPS: about 11 ranges per op; 10^8 ops is a trace of tens of GB, beyond which a value is a
 * typo rather than a size to measure. */
#define MAX_OPS 100000000LL
static const char usage[] = "bench_idem [--ops 1..100000000] [--ref-ops 1..100000000] [--runs 1..31] [--seed S]";

int main(int argc, char **argv) {
  uint32_t n_ops = 1000000, ref_ops = 20000;
  int runs = 3;
  rng_state = 0x9E3779B97F4A7C15ULL;
  for (int i = 1; i < argc; i++) {
    long long v;
    if (strcmp(argv[i], "--ops") == 0) {
      if (!bench_opt_int("bench_idem", argc, argv, &i, 1, MAX_OPS, &v))
        return bench_usage(usage);
      n_ops = (uint32_t)v;
    } else if (strcmp(argv[i], "--ref-ops") == 0) {
      if (!bench_opt_int("bench_idem", argc, argv, &i, 1, MAX_OPS, &v))
        return bench_usage(usage);
      ref_ops = (uint32_t)v;
    } else if (strcmp(argv[i], "--runs") == 0) {
      if (!bench_opt_int("bench_idem", argc, argv, &i, 1, MAX_RUNS, &v))
        return bench_usage(usage);
      runs = (int)v;
    } else if (strcmp(argv[i], "--seed") == 0) {
      const char *text = bench_opt_value("bench_idem", argc, argv, &i);
      char *end;
      if (!text)
        return bench_usage(usage);
      errno = 0;
      unsigned long long seed = strtoull(text, &end, 10);
      /* strtoull would take "-1" as 2^64 - 1: only digits are a seed. */
      if (!isdigit((unsigned char)text[0]) || *end || errno) {
        fprintf(stderr, "bench_idem: --seed '%s': expected an integer from 0 to %llu\n", text, ~0ULL);
        return bench_usage(usage);
      }
      rng_state = seed | 1;
    } else {
      fprintf(stderr, "bench_idem: unknown argument '%s'\n", argv[i]);
      return bench_usage(usage);
    }
  }

  idem_trace big;
  uint64_t span;
  double t0 = now_s();
  generate(&big, n_ops, 0x7f0000000000ULL, 1024, true, &span);
  double gen_s = now_s() - t0;
  uint32_t *entry = malloc((size_t)n_ops * sizeof *entry);
  if (!entry)
    return 1;
  printf("bench_idem: synthetic model trace (generated in %.2f s, %.0f MB of tensors)\n", gen_s, (double)span / 1e6);
  double sweep_s = median_search(&big, entry, runs);
  describe(&big, entry);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("  sweep (idem_search): %.3f s median of %d: %.2f M ops/s, %.1f M ranges/s; peak RSS %.0f MB "
         "(trace %.0f MB)\n",
         sweep_s, runs, n_ops / sweep_s / 1e6, (double)big.n_acc / sweep_s / 1e6, ru.ru_maxrss / 1024.0,
         (double)(big.n_acc * sizeof(idem_access) + (size_t)big.n_ops * sizeof(idem_op)) / 1e6);
  free(entry);
  idem_trace_free(&big);

  /* The reference size: byte-sized buffers the per-byte search can walk, and no not-restorable
   * op (which would make it walk back to op 0 every time). */
  idem_trace small;
  generate(&small, ref_ops, 0, 4, false, &span);
  uint32_t *fast = malloc((size_t)ref_ops * sizeof *fast), *slow = malloc((size_t)ref_ops * sizeof *slow);
  uint32_t *grown = malloc((size_t)ref_ops * sizeof *grown);
  if (!fast || !slow || !grown)
    return 1;
  uint64_t touched = 0;
  for (size_t k = 0; k < small.n_acc; k++)
    touched += small.acc[k].hi - small.acc[k].lo;
  printf("reference size: %.1f MB address span, %.1f kB touched per op\n", (double)span / 1e6,
         (double)touched / ref_ops / 1e3);
  double small_sweep = median_search(&small, fast, runs);
  t0 = now_s();
  check(idem_search_grow(&small, grown), "idem_search_grow");
  double grow_s = now_s() - t0;
  t0 = now_s();
  bytewise_search(&small, 0, span, slow);
  double byte_s = now_s() - t0;
  uint32_t differ = 0;
  for (uint32_t i = 0; i < ref_ops; i++)
    differ += fast[i] != slow[i] || grown[i] != slow[i];
  describe(&small, fast);
  printf("  per-byte reference: %.3f s, %.0f ops/s\n", byte_s, ref_ops / byte_s);
  printf("  REEF growth on interval sets: %.3f s, %.0f ops/s\n", grow_s, ref_ops / grow_s);
  printf("  sweep: %.4f s, %.0f ops/s\n", small_sweep, ref_ops / small_sweep);
  printf("  speed ratio sweep / per-byte reference: %.0fx; answers %s\n", byte_s / small_sweep,
         differ ? "DIFFER" : "agree on every op");
  idem_trace_free(&small);

  /* Long groups: with not-restorable ops in the trace, REEF's growth walks back to op 0 for each
   * of them; the sweep answers them like any other op. */
  generate(&small, ref_ops, 0, 4, true, &span);
  double long_sweep = median_search(&small, fast, runs);
  t0 = now_s();
  check(idem_search_grow(&small, grown), "idem_search_grow");
  grow_s = now_s() - t0;
  uint32_t none = 0;
  for (uint32_t i = 0; i < ref_ops; i++) {
    none += fast[i] == IDEM_NO_ENTRY;
    differ += fast[i] != grown[i];
  }
  printf("long groups: the same size with %u not-restorable ops\n", none);
  printf("  REEF growth on interval sets: %.3f s; sweep: %.4f s (%.0fx); answers %s\n", grow_s, long_sweep,
         grow_s / long_sweep, differ ? "DIFFER" : "agree on every op");
  free(fast);
  free(slow);
  free(grown);
  idem_trace_free(&small);
  return differ ? 1 : 0;
}
