/* PyTorch profiler (Kineto) trace importer (docs/import.md, "PyTorch traces").
 *
 * The trace is parsed into a scratch arena by the YAML/JSON tree reader, so a malformed file gets
 * the same FILE:LINE:COL errors as any other input. Only the events atoll takes values from are
 * read strictly; the many other events of a trace (host-side Python frames, flows, counters) are
 * skipped. The model is built in the caller's arena. */
#include "io/torch_import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/gpu_trace.h"
#include "io/yread.h"
#include "io/ytree.h"

enum { MAX_BLOCK_THREADS = 4096 };

int atoll_source_read_maybe_gz(atoll_arena *a, const char *path, atoll_source *out, atoll_diag *d) {
  atoll_source named = {.name = path};
  /* gzread passes a file that is not gzip through unchanged, so one reader serves both forms. */
  gzFile f = gzopen(path, "rb");
  if (!f) {
    atoll_diag_set(d, &named, 0, 0, NULL, "cannot open: %s", strerror(errno ? errno : ENOENT));
    return ATOLL_ENOENT;
  }
  size_t cap = 1 << 20, len = 0;
  char *buf = malloc(cap);
  int rc = buf ? 0 : ATOLL_ENOMEM;
  while (rc == 0) {
    if (len > (size_t)ATOLL_MAX_INPUT_BYTES) {
      atoll_diag_set(d, &named, 0, 0, NULL,
                     "larger than %d bytes once decompressed (atoll's input limit, see docs/limits.md)",
                     (int)ATOLL_MAX_INPUT_BYTES);
      rc = ATOLL_ERANGE;
      break;
    }
    if (cap - len < 65536) {
      char *nb = realloc(buf, cap * 2);
      if (!nb) {
        rc = ATOLL_ENOMEM;
        break;
      }
      buf = nb, cap *= 2;
    }
    int got = gzread(f, buf + len, (unsigned)(cap - len));
    if (got < 0) {
      int err;
      const char *msg = gzerror(f, &err);
      atoll_diag_set(d, &named, 0, 0, NULL, "corrupt gzip data: %s", msg);
      rc = ATOLL_EPARSE;
      break;
    }
    if (got == 0) {
      /* A stream cut short reads as end of file with Z_BUF_ERROR pending: the data is incomplete. */
      int err;
      gzerror(f, &err);
      if (err == Z_BUF_ERROR) {
        atoll_diag_set(d, &named, 0, 0, NULL, "truncated gzip data after %zu bytes", len);
        rc = ATOLL_EPARSE;
      }
      break;
    }
    len += (size_t)got;
  }
  gzclose(f);
  if (rc == 0) {
    out->name = atoll_arena_strdup(a, path);
    char *text = atoll_arena_strndup(a, buf, len);
    out->text = text;
    out->len = len;
    if (!out->name || !text)
      rc = ATOLL_ENOMEM;
  }
  free(buf);
  return rc;
}

uint32_t atoll_torch_occupancy(const atoll_gpu *g, uint32_t threads, uint32_t regs, uint32_t shared) {
  uint32_t occ = g->max_blocks_per_cu;
  if (threads == 0)
    threads = 1;
  uint32_t by_threads = g->max_threads_per_cu / threads;
  if (by_threads < occ)
    occ = by_threads;
  /* NVIDIA allocates registers to whole warps, 256 at a time (CUDA's allocation granularity);
   * elsewhere a block takes registers x threads. */
  uint64_t per_block = (uint64_t)(regs ? regs : 1) * threads;
  if (strcmp(g->vendor, "nvidia") == 0)
    per_block = (threads + 31) / 32 * (((uint64_t)(regs ? regs : 1) * 32 + 255) / 256 * 256);
  uint64_t by_regs = g->registers_per_cu / per_block;
  if (by_regs < occ)
    occ = (uint32_t)by_regs;
  if (shared > 0 && g->shared_bytes_per_cu / shared < occ)
    occ = g->shared_bytes_per_cu / shared;
  return occ ? occ : 1;
}

typedef struct id_name {
  int64_t id;
  double ts;
  const char *name;
} id_name;

typedef struct span {
  double ts, end;
  const atoll_ynode *node; /* the marker's event, for errors about the steps */
} span;

typedef atoll__gpu_event dev_event;

typedef struct importer {
  atoll_arena scratch;
  atoll_diag *d;
  const atoll_source *src;
  dev_event *ev;
  uint32_t n_ev;
  id_name *ops, *launches; /* cpu_op by External id; runtime launch by correlation */
  uint32_t n_ops, n_launches;
  span *steps;
  uint32_t n_steps;
  uint32_t trace_sms;
  const char *format; /* names the source in the profile's source: line */
} importer;

static int err_at(importer *im, const atoll_ynode *n, const char *fmt, const char *what) {
  atoll_diag_set(im->d, im->src, n ? n->line : 0, n ? n->col : 0, NULL, fmt, what);
  return ATOLL_EPARSE;
}

/* An error about one device event, where the file has it: its JSON node (Kineto), its row (CSV), or
 * no place (an SQLite row). */
static int err_event(importer *im, const dev_event *e, const char *fmt, const char *what) {
  if (e->node || !e->line)
    return err_at(im, e->node, fmt, what);
  atoll_diag_set(im->d, im->src, e->line, 1, NULL, fmt, what);
  return ATOLL_EPARSE;
}

static const atoll_ynode *arg(const atoll_ynode *ev, const char *key) {
  return atoll_ymap_get(atoll_ymap_get(ev, "args"), key);
}

static bool num(const atoll_ynode *n, double *out) {
  if (!n || n->kind != ATOLL_Y_SCALAR || n->len == 0)
    return false;
  char *end;
  errno = 0;
  double v = strtod(n->str, &end);
  if (end != n->str + n->len || errno || !isfinite(v))
    return false;
  *out = v;
  return true;
}

static bool int_in(const atoll_ynode *n, double lo, double hi, int64_t *out) {
  double v;
  if (!num(n, &v) || v != floor(v) || v < lo || v > hi)
    return false;
  *out = (int64_t)v;
  return true;
}

static int need_num(importer *im, const atoll_ynode *ev, const atoll_ynode *n, const char *key, double lo,
                    double *out) {
  if (!n)
    return err_at(im, ev, "GPU event without '%s'", key);
  if (!num(n, out) || *out < lo)
    return err_at(im, n, "'%s' is not a valid number here", key);
  return 0;
}

static int need_int(importer *im, const atoll_ynode *ev, const atoll_ynode *n, const char *key, double lo, double hi,
                    int64_t *out) {
  if (!n)
    return err_at(im, ev, "GPU event without '%s'", key);
  if (!int_in(n, lo, hi, out))
    return err_at(im, n, "'%s' is not a whole number in range", key);
  return 0;
}

static int read_dim3(importer *im, const atoll_ynode *ev, const char *key, atoll_dim3 *out) {
  const atoll_ynode *n = arg(ev, key);
  if (!n)
    return err_at(im, ev, "kernel event without args.%s", key);
  int64_t v[3];
  if (n->kind != ATOLL_Y_SEQ || n->n != 3)
    return err_at(im, n, "args.%s must be a list of three positive integers", key);
  for (int i = 0; i < 3; i++)
    if (!int_in(n->items[i], 1, UINT32_MAX, &v[i]))
      return err_at(im, n->items[i], "args.%s must be a list of three positive integers", key);
  *out = (atoll_dim3){(uint32_t)v[0], (uint32_t)v[1], (uint32_t)v[2]};
  return 0;
}

static const char *str_of(const atoll_ynode *n) { return n && n->kind == ATOLL_Y_SCALAR ? n->str : NULL; }

static int read_device_event(importer *im, const atoll_ynode *e, const char *cat, dev_event *out) {
  *out = (dev_event){.node = e, .stream = -1, .correlation = -1, .ext_id = -1};
  out->name = str_of(atoll_ymap_get(e, "name"));
  if (!out->name)
    return err_at(im, e, "GPU event without a '%s'", "name");
  if (!*out->name) /* a profile names every kernel */
    return err_at(im, atoll_ymap_get(e, "name"), "a GPU event's '%s' is empty", "name");
  int rc = need_num(im, e, atoll_ymap_get(e, "ts"), "ts", -INFINITY, &out->ts);
  if (rc == 0)
    rc = need_num(im, e, atoll_ymap_get(e, "dur"), "dur", 0, &out->dur);
  if (rc)
    return rc;
  int_in(arg(e, "stream"), 0, 1e15, &out->stream);
  int_in(arg(e, "correlation"), 0, 1e15, &out->correlation);
  int_in(arg(e, "External id"), 0, 1e15, &out->ext_id);
  out->launch_ts = out->ts;
  if (strcmp(cat, "kernel") == 0) {
    int64_t regs, shared;
    out->kind = ATOLL_OP_KERNEL;
    if ((rc = read_dim3(im, e, "grid", &out->grid)) || (rc = read_dim3(im, e, "block", &out->block)))
      return rc;
    if ((uint64_t)out->block.x * out->block.y * out->block.z > MAX_BLOCK_THREADS)
      return err_at(im, arg(e, "block"), "a block of more than %s threads", "4096");
    /* A profile holds fewer than 2^32 - 1 blocks (atoll_kernel_shape_is_valid). */
    if ((double)out->grid.x * out->grid.y * out->grid.z >= UINT32_MAX)
      return err_at(im, arg(e, "grid"), "a grid of %s blocks or more", "2^32 - 1");
    if ((rc = need_int(im, e, arg(e, "registers per thread"), "args.registers per thread", 0,
                          ATOLL_MAX_REGISTERS_PER_THREAD, &regs)) ||
        (rc = need_int(im, e, arg(e, "shared memory"), "args.shared memory", 0, 1 << 24, &shared)))
      return rc;
    out->regs = (uint32_t)regs, out->shared = (uint32_t)shared;
    return 0;
  }
  int64_t bytes = 1;
  const atoll_ynode *b = arg(e, "bytes");
  if (b && !int_in(b, 0, (double)ATOLL_MAX_TENSOR_BYTES, &bytes)) /* a profile holds no larger copy */
    return err_at(im, b, "'%s' is not a whole number in range", "args.bytes");
  out->bytes = bytes > 0 ? (uint64_t)bytes : 1;
  if (strcmp(cat, "gpu_memset") == 0)
    out->kind = ATOLL_OP_MEMSET;
  else
    /* Kineto names copies "Memcpy HtoD (Pageable -> Device)" and the like. Device-to-device and
     * peer copies also run on a copy engine; they are recorded as d2h, whose timing is the same
     * measured time. */
    out->kind = strstr(out->name, "HtoD") ? ATOLL_OP_MEMCPY_H2D : ATOLL_OP_MEMCPY_D2H;
  return 0;
}

static int cmp_id(const void *a, const void *b) {
  const id_name *x = a, *y = b;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_ts(const void *a, const void *b) {
  const dev_event *x = a, *y = b;
  if (x->ts != y->ts)
    return x->ts < y->ts ? -1 : 1;
  return x->stream < y->stream ? -1 : x->stream > y->stream;
}

static int cmp_span(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static const id_name *find_id(const id_name *v, uint32_t n, int64_t id) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (v[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo < n && v[lo].id == id ? &v[lo] : NULL;
}

static void read_device_limits(importer *im, const atoll_ynode *root) {
  const atoll_ynode *p = atoll_ymap_get(root, "deviceProperties");
  int64_t sms;
  if (p && p->kind == ATOLL_Y_SEQ && p->n > 0 && int_in(atoll_ymap_get(p->items[0], "numSms"), 1, 1e6, &sms))
    im->trace_sms = (uint32_t)sms;
}

static int read_events(importer *im, const atoll_ynode *root) {
  const atoll_ynode *events = root && root->kind == ATOLL_Y_SEQ ? root : atoll_ymap_get(root, "traceEvents");
  if (!events || events->kind != ATOLL_Y_SEQ)
    return err_at(im, root, "not a Chrome trace: no '%s' list", "traceEvents");
  uint32_t n = events->n;
  im->ev = atoll_arena_calloc(&im->scratch, n + 1, sizeof *im->ev);
  im->ops = atoll_arena_calloc(&im->scratch, n + 1, sizeof *im->ops);
  im->launches = atoll_arena_calloc(&im->scratch, n + 1, sizeof *im->launches);
  im->steps = atoll_arena_calloc(&im->scratch, n + 1, sizeof *im->steps);
  if (!im->ev || !im->ops || !im->launches || !im->steps)
    return ATOLL_ENOMEM;
  for (uint32_t i = 0; i < n; i++) {
    const atoll_ynode *e = events->items[i];
    const char *cat = str_of(atoll_ymap_get(e, "cat")), *name = str_of(atoll_ymap_get(e, "name"));
    const char *ph = str_of(atoll_ymap_get(e, "ph"));
    if (!cat || !ph || strcmp(ph, "X") != 0)
      continue;
    if (strcmp(cat, "kernel") == 0 || strcmp(cat, "gpu_memcpy") == 0 || strcmp(cat, "gpu_memset") == 0) {
      int rc = read_device_event(im, e, cat, &im->ev[im->n_ev]);
      if (rc)
        return rc;
      im->n_ev++;
      if (im->n_ev > ATOLL_MAX_OPS)
        return err_at(im, e, "more than %s GPU operations (atoll's input limit, see docs/limits.md)", "65536");
    } else if (name && strncmp(name, "ProfilerStep#", 13) == 0) {
      double ts, dur;
      if (num(atoll_ymap_get(e, "ts"), &ts) && num(atoll_ymap_get(e, "dur"), &dur))
        im->steps[im->n_steps++] = (span){ts, ts + dur, e};
    } else if (strcmp(cat, "cpu_op") == 0) {
      int64_t id;
      /* An empty name names no operator: a profile's operator: is a non-empty string. */
      if (name && *name && int_in(arg(e, "External id"), 0, 1e15, &id))
        im->ops[im->n_ops++] = (id_name){id, 0, name};
    } else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
      int64_t id;
      double ts;
      if (int_in(arg(e, "correlation"), 0, 1e15, &id) && num(atoll_ymap_get(e, "ts"), &ts))
        im->launches[im->n_launches++] = (id_name){id, ts, name};
    }
  }
  if (im->n_ev == 0)
    return err_at(im, events, "the trace holds no GPU %s (events of cat kernel, gpu_memcpy or gpu_memset)", "work");
  qsort(im->ops, im->n_ops, sizeof *im->ops, cmp_id);
  qsort(im->launches, im->n_launches, sizeof *im->launches, cmp_id);
  qsort(im->steps, im->n_steps, sizeof *im->steps, cmp_span);
  for (uint32_t i = 0; i < im->n_ev; i++) {
    dev_event *e = &im->ev[i];
    const id_name *op = e->ext_id >= 0 ? find_id(im->ops, im->n_ops, e->ext_id) : NULL;
    e->op_name = op ? op->name : NULL;
    const id_name *l = e->correlation >= 0 ? find_id(im->launches, im->n_launches, e->correlation) : NULL;
    if (l)
      e->launch_ts = l->ts;
  }
  qsort(im->ev, im->n_ev, sizeof *im->ev, cmp_ts);
  return 0;
}

static bool same_op(const dev_event *a, const dev_event *b) {
  return a->kind == b->kind && strcmp(a->name, b->name) == 0 && a->grid.x == b->grid.x && a->grid.y == b->grid.y &&
         a->grid.z == b->grid.z && a->block.x == b->block.x && a->block.y == b->block.y && a->block.z == b->block.z;
}

/* The shortest period p (dividing n) with which the op sequence repeats exactly. */
static uint32_t period(const dev_event *ev, uint32_t n) {
  for (uint32_t p = 1; p < n; p++) {
    if (n % p)
      continue;
    uint32_t i = p;
    while (i < n && same_op(&ev[i], &ev[i - p]))
      i++;
    if (i == n)
      return p;
  }
  return n;
}

/* Iterations as [first, end) ranges of im->ev; *count of them. */
static int split(importer *im, atoll_torch_split *how, uint32_t **first, uint32_t **end, uint32_t *count) {
  *first = atoll_arena_calloc(&im->scratch, im->n_ev + 1, sizeof **first);
  *end = atoll_arena_calloc(&im->scratch, im->n_ev + 1, sizeof **end);
  if (!*first || !*end)
    return ATOLL_ENOMEM;
  *count = 0;
  if (im->n_steps > 0) {
    /* Each op belongs to the step during which the host launched it. Ops outside every step are
     * left out; the ops of a step stay in device order. Steps are disjoint in a Kineto trace. */
    *how = ATOLL_TORCH_BY_STEPS;
    uint32_t kept = 0;
    for (uint32_t s = 0; s < im->n_steps; s++) {
      uint32_t start = kept;
      for (uint32_t i = 0; i < im->n_ev; i++) {
        dev_event *e = &im->ev[i];
        if (e->launch_ts >= im->steps[s].ts && e->launch_ts <= im->steps[s].end && e->step == 0) {
          e->step = s + 1;
          dev_event t = im->ev[kept];
          im->ev[kept] = *e;
          *e = t;
          kept++;
        }
      }
      if (kept > start) {
        qsort(im->ev + start, kept - start, sizeof *im->ev, cmp_ts);
        (*first)[*count] = start, (*end)[*count] = kept, (*count)++;
      }
    }
    if (*count == 0)
      return err_at(im, im->steps[0].node, "no GPU work was launched inside the trace's ProfilerStep %s (the first "
                                           "is here): ops launched outside every step are left out", "markers");
    return 0;
  }
  uint32_t p = period(im->ev, im->n_ev);
  *how = p < im->n_ev ? ATOLL_TORCH_BY_REPETITION : ATOLL_TORCH_WHOLE;
  for (uint32_t i = 0; i < im->n_ev; i += p)
    (*first)[*count] = i, (*end)[*count] = i + p, (*count)++;
  return 0;
}

static int finish(importer *im, int rc, atoll_arena *a, const atoll_gpu *gpu, const atoll_torch_opts *o,
                  atoll_model *out, atoll_torch_info *info_out);

static int64_t us_to_ns(double us) { return (int64_t)llround(us * 1000.0); }

static const char *base_name(atoll_arena *a, const char *path) {
  const char *b = strrchr(path, '/');
  b = b ? b + 1 : path;
  size_t len = strlen(b);
  static const char *const suffixes[] = {".json.gz", ".json", ".gz", ".csv", ".sqlite"};
  for (size_t i = 0; i < 5; i++) {
    size_t sl = strlen(suffixes[i]);
    if (len > sl && strcmp(b + len - sl, suffixes[i]) == 0) {
      len -= sl;
      break;
    }
  }
  return atoll_arena_strndup(a, b, len);
}

static int build(importer *im, atoll_arena *a, const atoll_gpu *gpu, const atoll_torch_opts *o, uint32_t first,
                 uint32_t last, atoll_model *out, atoll_torch_info *info) {
  uint32_t n = last - first, copies = 0;
  for (uint32_t i = first; i < last; i++)
    copies += im->ev[i].kind != ATOLL_OP_KERNEL;
  atoll_op *ops = atoll_arena_calloc(a, n, sizeof *ops);
  atoll_tensor *tensors = copies ? atoll_arena_calloc(a, copies, sizeof *tensors) : NULL;
  if (!ops || (copies && !tensors))
    return ATOLL_ENOMEM;
  uint32_t nt = 0;
  double start = im->ev[first].ts, stop = start;
  info->kernels = 0, info->copies = copies, info->kernel_ns = 0;
  for (uint32_t i = 0; i < n; i++) {
    const dev_event *e = &im->ev[first + i];
    atoll_op *op = &ops[i];
    op->kind = e->kind;
    op->operator_name = e->op_name ? atoll_arena_strdup(a, e->op_name) : NULL;
    /* A profile holds times up to a year (ATOLL_YREAD_MAX_TIME_NS). */
    if (e->dur * 1e3 > ATOLL_YREAD_MAX_TIME_NS)
      return err_event(im, e, "an operation of more than a year: a profile holds %s", "no longer time");
    if ((e->ts + e->dur - start) * 1e3 > ATOLL_YREAD_MAX_TIME_NS)
      return err_event(im, e, "the iteration spans more than a year by this operation's end: a profile holds %s",
                       "no longer latency");
    /* A zero duration (sub-resolution) still took time: the profile format needs it positive. */
    int64_t t = us_to_ns(e->dur);
    if (t < 1)
      t = 1;
    if (e->ts + e->dur > stop)
      stop = e->ts + e->dur;
    if (e->kind == ATOLL_OP_KERNEL) {
      op->name = atoll_arena_strdup(a, e->name);
      atoll_kernel_shape *s = &op->shape;
      s->grid = e->grid, s->block = e->block;
      s->registers = e->regs ? e->regs : 1;
      s->shared_bytes = e->shared;
      s->occupancy = atoll_torch_occupancy(gpu, (uint32_t)atoll_dim3_count(e->block), e->regs, e->shared);
      s->time_ns = t;
      s->block_time_ns = atoll_derive_block_time_ns(s, gpu->cus);
      s->derived = ATOLL_DERIVED_BLOCK_TIME | ATOLL_DERIVED_OCCUPANCY;
      info->kernels++;
      info->kernel_ns += t;
      if (!op->name)
        return ATOLL_ENOMEM;
    } else {
      char tname[32];
      snprintf(tname, sizeof tname, "%s%u", e->kind == ATOLL_OP_MEMSET ? "memset" : "copy", nt);
      tensors[nt] = (atoll_tensor){.name = atoll_arena_strdup(a, tname), .bytes = e->bytes,
                                   .kind = ATOLL_TENSOR_INTERMEDIATE};
      if (!tensors[nt].name)
        return ATOLL_ENOMEM;
      op->tensor = nt++;
      op->bytes = e->bytes;
      op->copy_time_ns = t;
    }
  }
  info->span_ns = us_to_ns(stop - start);
  char source[1024];
  snprintf(source, sizeof source,
           "%s %s, iteration %u of %u (%s); kernel times are device durations", im->format, im->src->name, info->iteration, info->iterations,
           info->split == ATOLL_TORCH_BY_STEPS        ? "ProfilerStep markers"
           : info->split == ATOLL_TORCH_BY_REPETITION ? "repeating kernel sequence"
                                                      : "no iteration structure: the whole trace");
  *out = (atoll_model){.name = o->name ? atoll_arena_strdup(a, o->name) : base_name(a, im->src->name),
                       .gpu = gpu->name,
                       .source = atoll_arena_strdup(a, source),
                       .measured_latency_ns = o->latency_ns > 0 ? o->latency_ns : info->span_ns,
                       .measured_eager_latency_ns = o->eager_latency_ns,
                       .tensors = tensors,
                       .n_tensors = nt,
                       .ops = ops,
                       .n_ops = n};
  if (!out->name || !out->source)
    return ATOLL_ENOMEM;
  if (out->measured_latency_ns <= 0)
    out->measured_latency_ns = 1;
  return 0;
}

/* Cuts the events into iterations and builds the chosen one; frees the scratch arena. */
static int finish(importer *im, int rc, atoll_arena *a, const atoll_gpu *gpu, const atoll_torch_opts *o,
                  atoll_model *out, atoll_torch_info *info_out) {
  atoll_torch_info info = {0};
  uint32_t *first = NULL, *end = NULL, count = 0;
  if (rc == 0)
    rc = split(im, &info.split, &first, &end, &count);
  if (rc == 0) {
    info.iterations = count;
    info.trace_sms = im->trace_sms;
    if (o->iteration >= 0 && (uint32_t)o->iteration >= count) {
      atoll_diag_set(im->d, im->src, 0, 0, NULL, "iteration %d asked for, but the trace holds %u (0..%u)",
                     o->iteration, count, count - 1);
      rc = ATOLL_EINVAL;
    } else {
      info.iteration = o->iteration >= 0 ? (uint32_t)o->iteration : count - 1;
      atoll_model m;
      rc = build(im, a, gpu, o, first[info.iteration], end[info.iteration], &m, &info);
      if (rc == 0 && !atoll_model_is_valid(&m))
        rc = err_at(im, NULL, "the imported %s is not a valid profile", "model");
      if (rc == 0)
        *out = m;
    }
  }
  if (rc == ATOLL_ENOMEM && !im->d->set)
    atoll_diag_set(im->d, im->src, 0, 0, NULL, "out of memory");
  atoll_arena_free(&im->scratch);
  if (rc == 0 && info_out)
    *info_out = info;
  return rc;
}

int atoll_torch_import_source(atoll_arena *a, const atoll_source *src, const atoll_gpu *gpu,
                              const atoll_torch_opts *o, atoll_model *out, atoll_torch_info *info_out,
                              atoll_diag *d) {
  importer im = {.d = d, .src = src, .format = "PyTorch profiler (Kineto) trace"};
  atoll_arena_init(&im.scratch);
  atoll_ynode *root = NULL;
  int rc = atoll_ytree_parse(&im.scratch, src, 0, &root, d);
  if (rc == 0 && !root) { /* located at 1:1, as every other refusal of the file is located */
    atoll_diag_set(d, src, 1, 1, NULL, "empty trace: expected a %s", "PyTorch profiler (Kineto) JSON object");
    rc = ATOLL_EPARSE;
  }
  if (rc == 0) {
    read_device_limits(&im, root);
    rc = read_events(&im, root);
  }
  return finish(&im, rc, a, gpu, o, out, info_out);
}

int atoll__gpu_events_import(atoll_arena *a, const atoll_source *src, const char *format, const atoll_gpu *gpu,
                             const atoll_torch_opts *o, atoll__gpu_event *ev, uint32_t n, atoll_model *out,
                             atoll_torch_info *info, atoll_diag *d) {
  importer im = {.d = d, .src = src, .format = format, .ev = ev, .n_ev = n};
  atoll_arena_init(&im.scratch);
  int rc = 0;
  if (n == 0)
    rc = err_at(&im, NULL, "the file holds no GPU %s", "operations");
  else
    qsort(im.ev, im.n_ev, sizeof *im.ev, cmp_ts);
  return finish(&im, rc, a, gpu, o, out, info);
}

int atoll_torch_import(atoll_arena *a, const char *path, const atoll_gpu *gpu, const atoll_torch_opts *o,
                       atoll_model *out, atoll_torch_info *info, atoll_diag *d) {
  atoll_source *src = atoll_arena_calloc(a, 1, sizeof *src);
  if (!src)
    return ATOLL_ENOMEM;
  int rc = atoll_source_read_maybe_gz(a, path, src, d);
  if (rc == 0)
    rc = atoll_torch_import_source(a, src, gpu, o, out, info, d);
  return rc;
}
