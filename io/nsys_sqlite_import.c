/* Nsight Systems SQLite export importer (docs/import.md, "Nsight Systems"). */
#include "io/nsys_sqlite_import.h"

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/gpu_trace.h"
#include "io/yquote.h"

bool atoll_is_sqlite_file(const char *path) {
  char head[16];
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  bool yes = fread(head, 1, 16, f) == 16 && memcmp(head, "SQLite format 3", 16) == 0;
  fclose(f);
  return yes;
}

typedef struct events {
  atoll__gpu_event *v;
  uint32_t n, cap;
  atoll_arena *names; /* kernel names outlive the statements */
} events;

static atoll__gpu_event *push(events *e) {
  if (e->n == e->cap) {
    uint32_t cap = e->cap ? 2 * e->cap : 1024;
    atoll__gpu_event *nv = realloc(e->v, cap * sizeof *nv);
    if (!nv)
      return NULL;
    e->v = nv, e->cap = cap;
  }
  atoll__gpu_event *ev = &e->v[e->n++];
  *ev = (atoll__gpu_event){.correlation = -1, .ext_id = -1};
  return ev;
}

static bool has_table(sqlite3 *db, const char *table) {
  sqlite3_stmt *st;
  bool yes = false;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) ==
      SQLITE_OK) {
    sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
    yes = sqlite3_step(st) == SQLITE_ROW;
  }
  sqlite3_finalize(st);
  return yes;
}

enum { ROWS_KERNELS, ROWS_MEMCPY, ROWS_MEMSET };

/* Runs sql and adds one event per row: kernels (the columns of the kernel query below), or copies
 * and memsets (start, end, stream, bytes, copyKind). */
static int read_rows(sqlite3 *db, const char *path, const char *sql, int what, events *e, atoll_diag *d) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    atoll_source src = {.name = path};
    atoll_diag_set(d, &src, 0, 0, NULL, "not an Nsight Systems export this importer reads: %s (docs/import.md)",
                   sqlite3_errmsg(db));
    return ATOLL_EPARSE;
  }
  int rc = 0, step;
  while ((step = sqlite3_step(st)) == SQLITE_ROW) {
    if (e->n == ATOLL_MAX_OPS) {
      atoll_source src = {.name = path};
      atoll_diag_set(d, &src, 0, 0, NULL, "more than %d GPU operations (atoll's input limit, see docs/limits.md)",
                     (int)ATOLL_MAX_OPS);
      rc = ATOLL_ERANGE;
      break;
    }
    atoll__gpu_event *ev = push(e);
    if (!ev) {
      rc = ATOLL_ENOMEM;
      break;
    }
    double start = (double)sqlite3_column_int64(st, 0), end = (double)sqlite3_column_int64(st, 1);
    ev->ts = ev->launch_ts = start / 1e3;
    ev->dur = end > start ? (end - start) / 1e3 : 0;
    ev->stream = sqlite3_column_int64(st, 2);
    if (what == ROWS_KERNELS) {
      const unsigned char *name = sqlite3_column_text(st, 3);
      ev->kind = ATOLL_OP_KERNEL;
      /* A profile names every kernel: a missing or empty name gets one. */
      ev->name = atoll_arena_strdup(e->names, name && *name ? (const char *)name : "(unnamed kernel)");
      size_t bad;
      /* The name goes into the profile's YAML, which is UTF-8: it must read back as imported. */
      if (ev->name && !atoll_utf8_valid(ev->name, strlen(ev->name), &bad)) {
        atoll_source src = {.name = path};
        atoll_diag_set(d, &src, 0, 0, NULL, "kernel at %.0f ns: its name is not valid UTF-8 (byte 0x%02x at %zu)",
                       start, (unsigned char)ev->name[bad], bad);
        rc = ATOLL_EPARSE;
        break;
      }
      int64_t dims[6];
      for (int i = 0; i < 6; i++) {
        dims[i] = sqlite3_column_int64(st, 4 + i);
        if (dims[i] < 1 || dims[i] > UINT32_MAX) {
          atoll_source src = {.name = path};
          atoll_diag_set(d, &src, 0, 0, NULL, "kernel '%s' at %.0f ns has a grid or block dimension of %lld", ev->name,
                         start, (long long)dims[i]);
          rc = ATOLL_EPARSE;
        }
      }
      if (rc)
        break;
      ev->grid = (atoll_dim3){(uint32_t)dims[0], (uint32_t)dims[1], (uint32_t)dims[2]};
      /* A profile holds fewer than 2^32 - 1 blocks (atoll_kernel_shape_is_valid). */
      if ((double)ev->grid.x * ev->grid.y * ev->grid.z >= UINT32_MAX) {
        atoll_source src = {.name = path};
        atoll_diag_set(d, &src, 0, 0, NULL, "kernel '%s' at %.0f ns has a grid of 2^32 - 1 blocks or more", ev->name,
                       start);
        rc = ATOLL_EPARSE;
        break;
      }
      ev->block = (atoll_dim3){(uint32_t)dims[3], (uint32_t)dims[4], (uint32_t)dims[5]};
      if ((uint64_t)dims[3] * (uint64_t)dims[4] * (uint64_t)dims[5] > 4096) {
        atoll_source src = {.name = path};
        atoll_diag_set(d, &src, 0, 0, NULL, "kernel '%s' has a block of more than 4096 threads", ev->name);
        rc = ATOLL_EPARSE;
        break;
      }
      int64_t regs = sqlite3_column_int64(st, 10), shared = sqlite3_column_int64(st, 11) + sqlite3_column_int64(st, 12);
      if (regs > ATOLL_MAX_REGISTERS_PER_THREAD) {
        atoll_source src = {.name = path};
        atoll_diag_set(d, &src, 0, 0, NULL, "kernel '%s' at %.0f ns: %lld registers per thread, more than a profile "
                       "holds (%d)", ev->name, start, (long long)regs, ATOLL_MAX_REGISTERS_PER_THREAD);
        rc = ATOLL_EPARSE;
        break;
      }
      ev->regs = (uint32_t)(regs < 0 ? 0 : regs);
      ev->shared = (uint32_t)(shared < 0 ? 0 : shared > (1 << 24) ? (1 << 24) : shared);
      if (!ev->name) {
        rc = ATOLL_ENOMEM;
        break;
      }
    } else {
      int64_t bytes = sqlite3_column_int64(st, 3), copy_kind = sqlite3_column_int64(st, 4);
      if (bytes > 0 && (uint64_t)bytes > ATOLL_MAX_TENSOR_BYTES) { /* a profile holds no larger copy */
        atoll_source src = {.name = path};
        atoll_diag_set(d, &src, 0, 0, NULL, "a copy at %.0f ns of %lld bytes, more than a profile holds (2^48)", start,
                       (long long)bytes);
        rc = ATOLL_EPARSE;
        break;
      }
      ev->bytes = bytes > 0 ? (uint64_t)bytes : 1;
      /* CUPTI's copyKind: 1 host-to-device; 2 device-to-host; others (device, array, peer) run on a
       * copy engine for their measured time, recorded as d2h. A memset has no kind (0 here). */
      ev->kind = what == ROWS_MEMSET ? ATOLL_OP_MEMSET : copy_kind == 1 ? ATOLL_OP_MEMCPY_H2D : ATOLL_OP_MEMCPY_D2H;
      ev->name = ev->kind == ATOLL_OP_MEMSET ? "memset" : "memcpy";
    }
  }
  if (rc == 0 && step != SQLITE_DONE) {
    atoll_source src = {.name = path};
    atoll_diag_set(d, &src, 0, 0, NULL, "reading the export: %s", sqlite3_errmsg(db));
    rc = ATOLL_EIO;
  }
  sqlite3_finalize(st);
  return rc;
}

int atoll_nsys_sqlite_import(atoll_arena *a, const char *path, const atoll_gpu *gpu, const atoll_torch_opts *o,
                             atoll_model *out, atoll_torch_info *info, atoll_diag *d) {
  atoll_source *src = atoll_arena_calloc(a, 1, sizeof *src);
  if (!src)
    return ATOLL_ENOMEM;
  src->name = atoll_arena_strdup(a, path);
  src->text = "";
  sqlite3 *db = NULL;
  int rc = 0;
  /* Opening is lazy: the first query is what reads (and checks) the file. */
  if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
      sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL) != SQLITE_OK) {
    atoll_diag_set(d, src, 0, 0, NULL, "not an SQLite database: %s", db ? sqlite3_errmsg(db) : "cannot open");
    rc = ATOLL_EPARSE;
  } else if (!has_table(db, "CUPTI_ACTIVITY_KIND_KERNEL") || !has_table(db, "StringIds")) {
    atoll_diag_set(d, src, 0, 0, NULL,
                   "no CUPTI_ACTIVITY_KIND_KERNEL and StringIds tables: not an Nsight Systems export with CUDA "
                   "kernels (docs/import.md)");
    rc = ATOLL_EPARSE;
  }
  events e = {.names = a};
  if (rc == 0)
    rc = read_rows(db, path,
                   "SELECT k.start, k.end, k.streamId, s.value, k.gridX, k.gridY, k.gridZ, k.blockX, k.blockY, "
                   "k.blockZ, k.registersPerThread, k.staticSharedMemory, k.dynamicSharedMemory "
                   "FROM CUPTI_ACTIVITY_KIND_KERNEL k LEFT JOIN StringIds s ON s.id = k.demangledName",
                   ROWS_KERNELS, &e, d);
  if (rc == 0 && has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY"))
    rc = read_rows(db, path, "SELECT start, end, streamId, bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY", ROWS_MEMCPY, &e,
                   d);
  if (rc == 0 && has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET"))
    rc = read_rows(db, path, "SELECT start, end, streamId, bytes, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET", ROWS_MEMSET, &e,
                   d);
  sqlite3_close(db);
  if (rc == 0)
    rc = atoll__gpu_events_import(a, src, "Nsight Systems SQLite export", gpu, o, e.v, e.n, out, info, d);
  free(e.v);
  return rc;
}
