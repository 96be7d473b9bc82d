/* Nsight Systems `cuda_gpu_trace` and rocprof kernel-trace CSV importer (docs/import.md lists the
 * columns read and the aliases accepted for each). */
#include "io/profiler_csv_import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/csv.h"
#include "io/gpu_trace.h"
#include "io/yquote.h"
#include "io/ytree.h"

/* A column the importer reads: the names it goes by in the formats' versions, the scale that turns
 * its values into the importer's unit (ns for times, bytes for sizes), whether it must be there. */
typedef struct column {
  const char *names[4];
  double scale;
  int required;
} column;

enum { N_START, N_DUR, N_NAME, N_GX, N_GY, N_GZ, N_BX, N_BY, N_BZ, N_REGS, N_SSMEM, N_DSMEM, N_BYTES, N_STREAM, N_COLS };
static const column nsys_cols[N_COLS] = {
    [N_START] = {{"Start (ns)", "Start"}, 1, 1},
    [N_DUR] = {{"Duration (ns)", "Duration"}, 1, 1},
    [N_NAME] = {{"Name"}, 1, 1},
    [N_GX] = {{"GrdX"}, 1, 1},
    [N_GY] = {{"GrdY"}, 1, 1},
    [N_GZ] = {{"GrdZ"}, 1, 1},
    [N_BX] = {{"BlkX"}, 1, 1},
    [N_BY] = {{"BlkY"}, 1, 1},
    [N_BZ] = {{"BlkZ"}, 1, 1},
    [N_REGS] = {{"Reg/Trd"}, 1, 1},
    [N_SSMEM] = {{"StcSMem (MB)", "StcSMem (B)", "StcSMem"}, 0, 1}, /* scale by the name found */
    [N_DSMEM] = {{"DymSMem (MB)", "DymSMem (B)", "DymSMem"}, 0, 1},
    [N_BYTES] = {{"Bytes (MB)", "Bytes (B)", "Bytes"}, 0, 0},
    [N_STREAM] = {{"Strm", "Stream"}, 1, 0},
};

enum { R_NAME, R_BEGIN, R_END, R_GRID, R_WG, R_LDS, R_VGPR, R_QUEUE, R_COLS };
static const column rocprof_cols[R_COLS] = {
    [R_NAME] = {{"KernelName", "Kernel_Name"}, 1, 1},
    [R_BEGIN] = {{"BeginNs", "Start_Timestamp"}, 1, 1},
    [R_END] = {{"EndNs", "End_Timestamp"}, 1, 1},
    [R_GRID] = {{"grd", "Grid_Size"}, 1, 1},
    [R_WG] = {{"wgr", "Workgroup_Size"}, 1, 1},
    [R_LDS] = {{"lds", "LDS", "Group_Segment_Size", "LDS_Per_Workgroup"}, 1, 1},
    [R_VGPR] = {{"arch_vgpr", "vgpr", "Arch_VGPR", "VGPR_Count"}, 1, 1},
    [R_QUEUE] = {{"queue-id", "Queue_Id", "Queue_ID"}, 1, 0},
};

typedef struct reader {
  const atoll_source *src;
  atoll_diag *d;
  int idx[16];  /* field index of each column, -1 absent */
  double scale[16]; /* both tables have fewer than 16 columns */
} reader;

static int err_line(reader *r, uint32_t line, const char *fmt, const char *a, const char *b) {
  atoll_diag_set(r->d, r->src, line, 1, NULL, fmt, a, b);
  return ATOLL_EPARSE;
}

static int find_columns(reader *r, const column *cols, int ncols, char **hdr, uint32_t n, const char *format) {
  for (int c = 0; c < ncols; c++) {
    r->idx[c] = -1;
    r->scale[c] = cols[c].scale;
    for (int k = 0; k < 4 && cols[c].names[k] && r->idx[c] < 0; k++) {
      for (uint32_t i = 0; i < n; i++) {
        if (strcmp(hdr[i], cols[c].names[k]) == 0) {
          r->idx[c] = (int)i;
          if (cols[c].scale == 0) /* sizes: (MB) columns are in 10^6 bytes, the others in bytes */
            r->scale[c] = strstr(hdr[i], "(MB)") ? 1e6 : 1;
          break;
        }
      }
    }
    if (r->idx[c] < 0 && cols[c].required)
      return err_line(r, 1, "missing column '%s': not a %s (docs/import.md lists the columns)",
                      cols[c].names[0], format);
  }
  return 0;
}

static const char *field(reader *r, char **f, int col) { return r->idx[col] >= 0 ? f[r->idx[col]] : ""; }

/* The name column: it goes into the profile's YAML, which is UTF-8 and names every kernel, so it
 * must be valid UTF-8 (to read back as it was imported) and not empty. */
static int name(reader *r, char **f, int col, const column *cols, uint32_t line, const char **out) {
  *out = field(r, f, col);
  if (!**out)
    return err_line(r, line, "column '%s': the name is empty%s", cols[col].names[0], "");
  size_t bad;
  if (atoll_utf8_valid(*out, strlen(*out), &bad))
    return 0;
  char byte[8];
  snprintf(byte, sizeof byte, "0x%02x", (unsigned char)(*out)[bad]);
  return err_line(r, line, "column '%s': the name is not valid UTF-8 (byte %s)", cols[col].names[0], byte);
}

/* The column's value scaled to the importer's unit; an empty optional field reads as *out = 0. */
static int value(reader *r, char **f, int col, const column *cols, uint32_t line, double *out) {
  const char *s = field(r, f, col);
  *out = 0;
  if (!*s && (!cols[col].required || r->idx[col] < 0))
    return 0;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  /* nsys writes thousands separators in some locales' reports: refuse them rather than misread. */
  if (end == s || *end || errno || !isfinite(v) || v < 0)
    return err_line(r, line, "column '%s': '%s' is not a non-negative number", cols[col].names[0], s);
  *out = v * r->scale[col];
  return 0;
}

/* A stream or queue id: a whole number (as the profilers print them), at most 1e15 so that it
 * converts to int64_t. */
static int stream_id(reader *r, char **f, int col, const column *cols, uint32_t line, int64_t *out) {
  double v;
  int rc = value(r, f, col, cols, line, &v);
  if (rc == 0 && (v > 1e15 || v != floor(v)))
    rc = err_line(r, line, "column '%s': '%s' is not a stream id (a whole number up to 1e15)", cols[col].names[0],
                  field(r, f, col));
  if (rc == 0)
    *out = (int64_t)v;
  return rc;
}

/* Registers per thread: at most what a profile holds (ATOLL_MAX_REGISTERS_PER_THREAD), refused
 * here rather than written into a profile that would not load. */
static int registers(reader *r, char **f, int col, const column *cols, uint32_t line, uint32_t *out) {
  double v;
  int rc = value(r, f, col, cols, line, &v);
  if (rc == 0 && v > ATOLL_MAX_REGISTERS_PER_THREAD) {
    char most[16];
    snprintf(most, sizeof most, "%d", ATOLL_MAX_REGISTERS_PER_THREAD);
    return err_line(r, line, "column '%s': more registers per thread than a profile holds (%s)", cols[col].names[0],
                    most);
  }
  if (rc == 0)
    *out = (uint32_t)v;
  return rc;
}

static int dim(reader *r, char **f, int col, uint32_t line, uint32_t *out) {
  double v;
  int rc = value(r, f, col, nsys_cols, line, &v);
  if (rc == 0 && (v < 1 || v > UINT32_MAX || v != floor(v)))
    rc = err_line(r, line, "column '%s': '%s' is not a positive whole number", nsys_cols[col].names[0], field(r, f, col));
  if (rc == 0) /* converted only in range: a larger double's conversion is undefined */
    *out = (uint32_t)v;
  return rc;
}

static int nsys_row(reader *r, char **f, uint32_t line, atoll__gpu_event *e) {
  double start, dur, v;
  const char *op;
  int rc;
  if ((rc = value(r, f, N_START, nsys_cols, line, &start)) || (rc = value(r, f, N_DUR, nsys_cols, line, &dur)) ||
      (rc = name(r, f, N_NAME, nsys_cols, line, &op)))
    return rc;
  *e = (atoll__gpu_event){.name = op, .ts = start / 1e3, .dur = dur / 1e3, .stream = -1,
                          .correlation = -1, .ext_id = -1, .line = line};
  e->launch_ts = e->ts;
  if ((rc = stream_id(r, f, N_STREAM, nsys_cols, line, &e->stream)))
    return rc;
  if (!*field(r, f, N_GX)) {
    /* Copies and memsets have no grid: "[CUDA memcpy Host-to-Device]", "[CUDA memset]". */
    if ((rc = value(r, f, N_BYTES, nsys_cols, line, &v)))
      return rc;
    if (v > (double)ATOLL_MAX_TENSOR_BYTES) /* a profile holds no larger copy */
      return err_line(r, line, "column '%s': more bytes than a profile's copy holds (%s)", nsys_cols[N_BYTES].names[0],
                      "2^48");
    e->bytes = v >= 1 ? (uint64_t)llround(v) : 1;
    e->kind = strstr(e->name, "memset")                                     ? ATOLL_OP_MEMSET
              : strstr(e->name, "Host-to-Device") || strstr(e->name, "HtoD") ? ATOLL_OP_MEMCPY_H2D
                                                                             : ATOLL_OP_MEMCPY_D2H;
    return 0;
  }
  e->kind = ATOLL_OP_KERNEL;
  if ((rc = dim(r, f, N_GX, line, &e->grid.x)) || (rc = dim(r, f, N_GY, line, &e->grid.y)) ||
      (rc = dim(r, f, N_GZ, line, &e->grid.z)) || (rc = dim(r, f, N_BX, line, &e->block.x)) ||
      (rc = dim(r, f, N_BY, line, &e->block.y)) || (rc = dim(r, f, N_BZ, line, &e->block.z)))
    return rc;
  /* A profile holds fewer than 2^32 - 1 blocks (atoll_kernel_shape_is_valid). */
  if ((double)e->grid.x * e->grid.y * e->grid.z >= UINT32_MAX)
    return err_line(r, line, "a grid of %s blocks or more%s", "2^32 - 1", "");
  if ((double)e->block.x * e->block.y * e->block.z > 4096) /* as a profile's block (io/model_load.c) */
    return err_line(r, line, "a block of more than %s threads%s", "4096", "");
  double ss, ds;
  if ((rc = registers(r, f, N_REGS, nsys_cols, line, &e->regs)) || (rc = value(r, f, N_SSMEM, nsys_cols, line, &ss)) ||
      (rc = value(r, f, N_DSMEM, nsys_cols, line, &ds)))
    return rc;
  e->shared = (uint32_t)llround(fmin(ss + ds, 1 << 24)); /* bounded first: llround of a huge value is not defined */
  return 0;
}

static int rocprof_row(reader *r, char **f, uint32_t line, atoll__gpu_event *e) {
  double begin, end, grid, wg, lds;
  uint32_t vgpr;
  int64_t queue;
  const char *op;
  int rc;
  if ((rc = value(r, f, R_BEGIN, rocprof_cols, line, &begin)) || (rc = value(r, f, R_END, rocprof_cols, line, &end)) ||
      (rc = value(r, f, R_GRID, rocprof_cols, line, &grid)) || (rc = value(r, f, R_WG, rocprof_cols, line, &wg)) ||
      (rc = value(r, f, R_LDS, rocprof_cols, line, &lds)) ||
      (rc = registers(r, f, R_VGPR, rocprof_cols, line, &vgpr)) ||
      (rc = stream_id(r, f, R_QUEUE, rocprof_cols, line, &queue)) || (rc = name(r, f, R_NAME, rocprof_cols, line, &op)))
    return rc;
  if (end < begin)
    return err_line(r, line, "the kernel ends (%s) before it begins (%s)", field(r, f, R_END), field(r, f, R_BEGIN));
  if (wg < 1 || wg > 4096 || grid < 1 || grid > 1e15)
    return err_line(r, line, "grid size '%s' / workgroup size '%s' out of range", field(r, f, R_GRID),
                    field(r, f, R_WG));
  /* rocprof gives sizes in work-items: the grid in blocks is the grid over the workgroup, fewer
   * than 2^32 - 1 blocks as a profile holds (atoll_kernel_shape_is_valid). */
  double blocks = ceil(grid / wg);
  if (blocks >= UINT32_MAX)
    return err_line(r, line, "grid size '%s' / workgroup size '%s': 2^32 - 1 blocks or more", field(r, f, R_GRID),
                    field(r, f, R_WG));
  *e = (atoll__gpu_event){.kind = ATOLL_OP_KERNEL, .name = op, .ts = begin / 1e3,
                          .dur = (end - begin) / 1e3, .stream = queue, .correlation = -1, .ext_id = -1,
                          .grid = {(uint32_t)blocks, 1, 1}, .block = {(uint32_t)wg, 1, 1}, .regs = vgpr,
                          .shared = (uint32_t)fmin(lds, 1 << 24), .line = line};
  e->launch_ts = e->ts;
  return 0;
}

int atoll_csv_trace_import_source(atoll_arena *a, const atoll_source *src, atoll_csv_trace_kind kind,
                                  const atoll_gpu *gpu, const atoll_torch_opts *o, atoll_model *out,
                                  atoll_torch_info *info, atoll_diag *d) {
  const char *format = kind == ATOLL_CSV_NSYS ? "Nsight Systems cuda_gpu_trace CSV" : "rocprof kernel-trace CSV";
  reader r = {.src = src, .d = d};
  atoll_arena scratch;
  atoll_arena_init(&scratch);
  atoll_csv c;
  atoll_csv_init(&c, src);
  char **f;
  uint32_t n, line, header_n = 0, header_line = 1;
  int rc = atoll_csv_next(&c, &scratch, &f, &n, &line, d);
  if (rc == 0)
    rc = err_line(&r, 1, "empty file: expected a %s%s", format, " header");
  else if (rc == 1)
    rc = kind == ATOLL_CSV_NSYS ? find_columns(&r, nsys_cols, N_COLS, f, n, format)
                                : find_columns(&r, rocprof_cols, R_COLS, f, n, format);
  header_n = n, header_line = line;
  uint32_t cap = 1024, count = 0;
  atoll__gpu_event *ev = rc == 0 ? malloc(cap * sizeof *ev) : NULL;
  if (rc == 0 && !ev)
    rc = ATOLL_ENOMEM;
  while (rc == 0) {
    int got = atoll_csv_next(&c, &scratch, &f, &n, &line, d);
    if (got <= 0) {
      rc = got;
      break;
    }
    if (n != header_n) {
      /* The usual sign of a file cut short, or of a row from another report. */
      char fields[32], want[32];
      snprintf(fields, sizeof fields, "%u", n);
      snprintf(want, sizeof want, "%u", header_n);
      rc = err_line(&r, line, "a row of %s fields, the header has %s (truncated file?)", fields, want);
      break;
    }
    if (count == ATOLL_MAX_OPS) {
      rc = err_line(&r, line, "more than %s GPU operations%s", "65536", " (atoll's input limit, see docs/limits.md)");
      break;
    }
    if (count == cap) {
      atoll__gpu_event *ne = realloc(ev, 2 * cap * sizeof *ev);
      if (!ne) {
        rc = ATOLL_ENOMEM;
        break;
      }
      ev = ne, cap *= 2;
    }
    rc = kind == ATOLL_CSV_NSYS ? nsys_row(&r, f, line, &ev[count]) : rocprof_row(&r, f, line, &ev[count]);
    count++;
  }
  /* A header and nothing after it (a trace of no GPU work, or a file cut after its first line). */
  if (rc == 0 && count == 0)
    rc = err_line(&r, header_line, "the %s has a header and no rows: no GPU operations to import%s", format, "");
  if (rc == 0)
    rc = atoll__gpu_events_import(a, src, format, gpu, o, ev, count, out, info, d);
  free(ev);
  atoll_arena_free(&scratch);
  return rc;
}

int atoll_csv_trace_import(atoll_arena *a, const char *path, atoll_csv_trace_kind kind, const atoll_gpu *gpu,
                           const atoll_torch_opts *o, atoll_model *out, atoll_torch_info *info, atoll_diag *d) {
  atoll_source *src = atoll_arena_calloc(a, 1, sizeof *src);
  if (!src)
    return ATOLL_ENOMEM;
  int rc = atoll_source_read_file(a, path, src, d);
  if (rc == 0)
    rc = atoll_csv_trace_import_source(a, src, kind, gpu, o, out, info, d);
  return rc;
}
