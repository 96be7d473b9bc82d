/* ak_trace.c — the CPU tracer (ak_trace.h). Part of atoll_kernels_trace only.
 *
 * Per region it keeps two bitmaps over the op's bytes, `seen` (read or written by the current op)
 * and `written`, cleared when the next op starts. A read emits the bytes not yet seen, a write the
 * bytes not yet written; emitted bytes go through a one-line coalescer. Bitmaps cost 2 bits per
 * traced byte: the native models are a few MB. */
#include "native/kernels/ak_trace.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "native/kernels/ak.h"
#include "atoll/error.h"

typedef struct region {
  uintptr_t lo, hi; /* host range */
  uint64_t addr;    /* trace address of lo */
  uint8_t *seen, *written;
} region;

struct ak_tracer {
  FILE *out;
  region *r;
  uint32_t n, cap;
  uint32_t last; /* region of the last access: accesses come in long runs within one buffer */
  uint32_t op;   /* ops started so far */
  bool have_line, line_write;
  uint64_t line_lo, line_hi;
  const region *line_region; /* lines never span two buffers, even when their addresses touch */
  uint64_t lines;
  bool fault;
  const void *fault_addr;
  uint32_t fault_op;
};

ak_tracer *ak_tracer_new(FILE *out) {
  ak_tracer *t = calloc(1, sizeof *t);
  if (t)
    t->out = out;
  return t;
}

void ak_tracer_free(ak_tracer *t) {
  if (!t)
    return;
  for (uint32_t i = 0; i < t->n; i++) {
    free(t->r[i].seen);
    free(t->r[i].written);
  }
  free(t->r);
  free(t);
}

int ak_tracer_add_region(ak_tracer *t, const void *base, size_t bytes, uint64_t addr) {
  uintptr_t lo = (uintptr_t)base;
  if (!t || !base || bytes == 0 || lo + bytes < lo || addr + bytes < addr)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < t->n; i++)
    if (lo < t->r[i].hi && t->r[i].lo < lo + bytes)
      return ATOLL_EINVAL;
  if (t->n == t->cap) {
    uint32_t cap = t->cap ? 2 * t->cap : 16;
    region *r = realloc(t->r, cap * sizeof *r);
    if (!r)
      return ATOLL_ENOMEM;
    t->r = r;
    t->cap = cap;
  }
  region *g = &t->r[t->n];
  g->lo = lo;
  g->hi = lo + bytes;
  g->addr = addr;
  g->seen = calloc(bytes / 8 + 1, 1);
  g->written = calloc(bytes / 8 + 1, 1);
  if (!g->seen || !g->written) {
    free(g->seen);
    free(g->written);
    return ATOLL_ENOMEM;
  }
  t->n++;
  return 0;
}

static void flush_line(ak_tracer *t) {
  if (!t->have_line)
    return;
  fprintf(t->out, "%c 0x%llx %llu\n", t->line_write ? 'w' : 'r', (unsigned long long)t->line_lo,
          (unsigned long long)(t->line_hi - t->line_lo));
  t->lines++;
  t->have_line = false;
}

static void emit(ak_tracer *t, const region *g, uint64_t lo, uint64_t hi, bool write) {
  if (t->have_line && t->line_write == write && t->line_hi == lo && t->line_region == g) {
    t->line_hi = hi;
    return;
  }
  flush_line(t);
  t->have_line = true;
  t->line_region = g;
  t->line_write = write;
  t->line_lo = lo;
  t->line_hi = hi;
}

void ak_tracer_op(ak_tracer *t, const char *kind, const char *name) {
  flush_line(t);
  for (uint32_t i = 0; i < t->n; i++) {
    size_t bytes = (size_t)(t->r[i].hi - t->r[i].lo) / 8 + 1;
    memset(t->r[i].seen, 0, bytes);
    memset(t->r[i].written, 0, bytes);
  }
  fprintf(t->out, "%s %s\n", kind, name);
  t->op++;
}

static region *find_region(ak_tracer *t, uintptr_t p) {
  if (t->last < t->n && p >= t->r[t->last].lo && p < t->r[t->last].hi)
    return &t->r[t->last];
  for (uint32_t i = 0; i < t->n; i++) {
    if (p >= t->r[i].lo && p < t->r[i].hi) {
      t->last = i;
      return &t->r[i];
    }
  }
  return NULL;
}

static bool bit(const uint8_t *m, size_t i) { return (m[i >> 3] >> (i & 7)) & 1u; }
static void set_bit(uint8_t *m, size_t i) { m[i >> 3] = (uint8_t)(m[i >> 3] | (1u << (i & 7))); }

void ak_tracer_range(ak_tracer *t, const void *p, size_t bytes, int write) {
  uintptr_t lo = (uintptr_t)p;
  region *g = bytes ? find_region(t, lo) : NULL;
  if (bytes && (!g || bytes > g->hi - lo)) {
    if (!t->fault) {
      t->fault = true;
      t->fault_addr = p;
      t->fault_op = t->op ? t->op - 1 : 0;
    }
    return;
  }
  for (size_t i = 0; i < bytes; i++) {
    size_t off = lo - g->lo + i;
    bool emit_it;
    if (write) {
      emit_it = !bit(g->written, off);
      set_bit(g->written, off);
    } else {
      emit_it = !bit(g->seen, off);
    }
    set_bit(g->seen, off);
    if (emit_it)
      emit(t, g, g->addr + off, g->addr + off + 1, write != 0);
  }
}

void ak_trace_access(void *trace, const void *p, size_t bytes, int write) {
  /* A NULL tracer (a traced kernel run outside a trace) records nothing. */
  if (trace)
    ak_tracer_range((ak_tracer *)trace, p, bytes, write);
}

int ak_tracer_finish(ak_tracer *t) {
  flush_line(t);
  if (fflush(t->out) != 0 || ferror(t->out))
    return ATOLL_EIO;
  return t->fault ? ATOLL_ERANGE : 0;
}

int ak_tracer_fault(const ak_tracer *t, const void **addr, uint32_t *op) {
  if (!t->fault)
    return 0;
  *addr = t->fault_addr;
  *op = t->fault_op;
  return 1;
}

uint64_t ak_tracer_lines(const ak_tracer *t) { return t->lines; }
