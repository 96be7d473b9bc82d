/* NVBit mem_trace output (tools/mem_trace of NVlabs/NVBit), as docs/idempotence.md ("NVBit
 * format") lists it. Two generations of the tool's output are accepted:
 *
 *   NVBit >= 1.5, one kernel launch, then one line per warp-level memory instruction:
 *     MEMTRACE: CTX 0x.. - LAUNCH - Kernel pc 0x.. - Kernel name NAME - grid launch id N - grid size ..
 *     MEMTRACE: CTX 0x.. - grid_launch_id N - CTA x,y,z - warp W - OPCODE - ADDR ADDR ... (32 lanes)
 *   older releases, the same without the prefix and launch id:
 *     Kernel NAME - grid size x,y,z - block size x,y,z - nregs N - shmem N - cuda stream id N
 *     CTA x,y,z - warp W - OPCODE - ADDR ADDR ...
 *
 * Every other line (the tool's banner, other MEMTRACE: messages, the application's own output) is
 * ignored. Each launch becomes a kernel op. A lane address of 0 is an inactive lane and skipped.
 * The opcode gives the direction (loads read, stores write, atomics and reductions read then
 * write) and the access size (its width modifier: .U8/.S8 1, .U16/.S16 2, .64 8, .128 16, else 4).
 * Shared- and local-memory instructions are skipped: that memory lives only while the kernel runs.
 * Each instruction's lanes are coalesced into byte ranges, and ranges an op has already read
 * (or written, for writes) add nothing and are dropped, which keeps real traces small. */
#include <string.h>

#include "atoll/error.h"
#include "idem/ivbuf.h"
#include "idem/lineio.h"
#include "idem/readers.h"
#include "io/yquote.h"

typedef enum dir { DIR_UNKNOWN, DIR_SKIP, DIR_READ, DIR_WRITE, DIR_ATOMIC } dir;

typedef struct nvbit {
  idem_lines *l;
  idem_trace *t;
  bool have_launch;
  uint64_t launch_id; /* of the current op (new format) */
  bool new_format;    /* the current op came from a MEMTRACE LAUNCH line */
  idem_ivbuf seen, written; /* the current op's bytes, to drop accesses that add nothing */
} nvbit;

static bool starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* The last occurrence of needle in s, or NULL. */
static const char *find_last(const char *s, const char *needle) {
  const char *found = NULL;
  for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
    found = p;
  return found;
}

static bool parse_dec(const char *p, const char **end, uint64_t *out) {
  if (*p < '0' || *p > '9')
    return false;
  return idem_parse_u64(p, end, out) && (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'));
}

static int start_op(nvbit *nb, const char *name, size_t len) {
  size_t bad;
  /* Names go into idem_checker's YAML and JSON outputs, which are UTF-8. */
  if (!atoll_utf8_valid(name, len, &bad))
    return idem_lines_error(nb->l, idem_lines_col(nb->l, name + bad), "kernel name is not valid UTF-8 (byte 0x%02x)",
                            (unsigned char)name[bad]);
  int rc = idem_trace_add_op(nb->t, IDEM_OP_KERNEL, name, len, nb->l->line);
  if (rc == ATOLL_ERANGE)
    return idem_lines_error(nb->l, 1, "more than %d kernel launches (atoll's input limit, see docs/limits.md)",
                            (int)IDEM_MAX_OPS);
  if (rc)
    return idem_lines_error(nb->l, 1, "out of memory");
  idem_ivbuf_clear(&nb->seen);
  idem_ivbuf_clear(&nb->written);
  nb->have_launch = true;
  return ATOLL_OK;
}

/* MEMTRACE: CTX 0x.. - LAUNCH - Kernel pc 0x.. - Kernel name NAME - grid launch id N - ... */
static int launch_line(nvbit *nb, const char *line) {
  const char *name = strstr(line, " - Kernel name ");
  const char *id = find_last(line, " - grid launch id ");
  if (!name || !id || id < name)
    return idem_lines_error(nb->l, 1, "LAUNCH line without 'Kernel name NAME - grid launch id N'");
  name += strlen(" - Kernel name ");
  const char *num = id + strlen(" - grid launch id ");
  const char *end;
  uint64_t launch;
  if (!parse_dec(num, &end, &launch) || (*end && *end != ' '))
    return idem_lines_error(nb->l, idem_lines_col(nb->l, num), "bad grid launch id (a decimal number)");
  if (id == name)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, name), "empty kernel name");
  int rc = start_op(nb, name, (size_t)(id - name));
  nb->launch_id = launch;
  nb->new_format = true;
  return rc;
}

/* Kernel NAME - grid size x,y,z - ... */
static int old_kernel_line(nvbit *nb, const char *line) {
  const char *name = line + strlen("Kernel ");
  const char *end = find_last(line, " - grid size ");
  if (end <= name)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, name), "empty kernel name");
  int rc = start_op(nb, name, (size_t)(end - name));
  nb->new_format = false;
  return rc;
}

/* Direction of an instruction from its opcode's base name (before the first '.'). */
static dir opcode_dir(const char *op, size_t len) {
  static const struct {
    const char *base;
    dir d;
  } table[] = {{"LDG", DIR_READ},    {"LD", DIR_READ},      {"LDGSTS", DIR_READ}, {"STG", DIR_WRITE},
               {"ST", DIR_WRITE},    {"ATOM", DIR_ATOMIC},  {"ATOMG", DIR_ATOMIC}, {"RED", DIR_ATOMIC},
               {"LDS", DIR_SKIP},    {"STS", DIR_SKIP},     {"ATOMS", DIR_SKIP},  {"LDSM", DIR_SKIP},
               {"LDL", DIR_SKIP},    {"STL", DIR_SKIP}};
  size_t base = 0;
  while (base < len && op[base] != '.')
    base++;
  for (size_t k = 0; k < sizeof table / sizeof *table; k++)
    if (strlen(table[k].base) == base && memcmp(op, table[k].base, base) == 0)
      return table[k].d;
  return DIR_UNKNOWN;
}

/* Bytes per lane from the opcode's width modifier; the last one given wins, 4 when none is. */
static uint64_t opcode_size(const char *op, size_t len) {
  static const struct {
    const char *mod;
    uint64_t bytes;
  } widths[] = {{"U8", 1},  {"S8", 1},  {"U16", 2}, {"S16", 2}, {"32", 4},  {"U32", 4}, {"S32", 4}, {"F32", 4},
                {"64", 8},  {"U64", 8}, {"S64", 8}, {"F64", 8}, {"128", 16}};
  uint64_t size = 4;
  size_t i = 0;
  while (i < len && op[i] != '.')
    i++;
  while (i < len) {
    size_t start = ++i;
    while (i < len && op[i] != '.')
      i++;
    for (size_t k = 0; k < sizeof widths / sizeof *widths; k++)
      if (strlen(widths[k].mod) == i - start && memcmp(op + start, widths[k].mod, i - start) == 0)
        size = widths[k].bytes;
  }
  return size;
}

static int emit(nvbit *nb, bool write, uint64_t lo, uint64_t hi) {
  idem_ivbuf *mine = write ? &nb->written : &nb->seen;
  if (atoll_ivset_contains(&mine->set, lo, hi))
    return ATOLL_OK;
  int rc = idem_trace_add_access(nb->t, write, lo, hi);
  if (rc == ATOLL_OK)
    rc = idem_ivbuf_insert(&nb->seen, lo, hi);
  if (rc == ATOLL_OK && write)
    rc = idem_ivbuf_insert(&nb->written, lo, hi);
  if (rc == ATOLL_ERANGE)
    return idem_lines_error(nb->l, 1, "more than %d accesses (atoll's input limit, see docs/limits.md)",
                            (int)IDEM_MAX_ACCESSES);
  return rc == ATOLL_OK ? ATOLL_OK : idem_lines_error(nb->l, 1, "out of memory");
}

/* ADDR ADDR ...: up to 32 lane addresses, 0x and hex digits. */
static int addresses(nvbit *nb, const char *p, dir d, uint64_t size) {
  uint64_t a[32];
  int n = 0;
  for (;;) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    const char *end;
    if (n == 32)
      return idem_lines_error(nb->l, idem_lines_col(nb->l, p), "more than 32 lane addresses");
    if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X') || !idem_parse_u64(p, &end, &a[n]) || (*end && *end != ' '))
      return idem_lines_error(nb->l, idem_lines_col(nb->l, p), "bad lane address (0x followed by hex digits)");
    if (a[n] > UINT64_MAX - size)
      return idem_lines_error(nb->l, idem_lines_col(nb->l, p), "address + access size passes 2^64");
    if (a[n] != 0)
      n++;
    p = end;
  }
  if (d == DIR_SKIP)
    return ATOLL_OK;
  for (int i = 1; i < n; i++) {
    uint64_t x = a[i];
    int j = i;
    for (; j > 0 && a[j - 1] > x; j--)
      a[j] = a[j - 1];
    a[j] = x;
  }
  /* Coalesce the lanes into ranges; an atomic reads each range before it writes it. */
  int rc = ATOLL_OK;
  for (int i = 0; i < n && rc == ATOLL_OK;) {
    uint64_t lo = a[i], hi = a[i] + size;
    for (i++; i < n && a[i] <= hi; i++)
      if (a[i] + size > hi)
        hi = a[i] + size;
    if (d != DIR_WRITE)
      rc = emit(nb, false, lo, hi);
    if (rc == ATOLL_OK && d != DIR_READ)
      rc = emit(nb, true, lo, hi);
  }
  return rc;
}

/* "CTA x,y,z - warp W - OPCODE - ADDRS" (after the launch id field in the new format). */
static int access_fields(nvbit *nb, const char *p) {
  if (!starts_with(p, "CTA "))
    return idem_lines_error(nb->l, idem_lines_col(nb->l, p), "expected 'CTA x,y,z'");
  const char *warp = strstr(p, " - warp ");
  if (!warp)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, p), "expected 'CTA x,y,z - warp W - OPCODE - ADDRESSES'");
  const char *op = strstr(warp + 1, " - ");
  if (!op)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, warp), "missing opcode after the warp");
  op += 3;
  const char *op_end = strstr(op, " - ");
  if (!op_end || op_end == op)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, op), "expected 'OPCODE - ADDRESSES'");
  size_t len = (size_t)(op_end - op);
  dir d = opcode_dir(op, len);
  if (d == DIR_UNKNOWN)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, op),
                            "unknown opcode '%.*s' (known: LDG, LD, LDGSTS, STG, ST, ATOM, ATOMG, RED; skipped: "
                            "LDS, STS, ATOMS, LDSM, LDL, STL)",
                            (int)len, op);
  return addresses(nb, op_end + 3, d, opcode_size(op, len));
}

/* MEMTRACE: CTX 0x.. - grid_launch_id N - CTA ... */
static int new_access_line(nvbit *nb, const char *id) {
  const char *num = id + strlen("grid_launch_id ");
  const char *end;
  uint64_t launch;
  if (!parse_dec(num, &end, &launch) || !starts_with(end, " - "))
    return idem_lines_error(nb->l, idem_lines_col(nb->l, num), "bad grid_launch_id (a decimal number)");
  if (!nb->have_launch || !nb->new_format || launch != nb->launch_id)
    return idem_lines_error(nb->l, idem_lines_col(nb->l, num),
                            "grid_launch_id %llu is not the launch above (accesses must follow their LAUNCH "
                            "line; CUDA graph launches are not supported)",
                            (unsigned long long)launch);
  return access_fields(nb, end + 3);
}

static int parse_line(nvbit *nb) {
  const char *line = nb->l->buf;
  if (starts_with(line, "MEMTRACE: CTX ")) {
    const char *field = strstr(line, " - ");
    if (!field)
      return ATOLL_OK;
    field += 3;
    if (starts_with(field, "LAUNCH"))
      return launch_line(nb, line);
    if (starts_with(field, "grid_launch_id "))
      return new_access_line(nb, field);
    return ATOLL_OK;
  }
  if (starts_with(line, "Kernel ") && strstr(line, " - grid size "))
    return old_kernel_line(nb, line);
  if (starts_with(line, "CTA ") && strstr(line, " - warp ")) {
    if (!nb->have_launch)
      return idem_lines_error(nb->l, 1, "memory access before any 'Kernel NAME - grid size ...' line");
    if (nb->new_format)
      return idem_lines_error(nb->l, 1, "access line without MEMTRACE: prefix inside a MEMTRACE launch");
    return access_fields(nb, line);
  }
  return ATOLL_OK;
}

int idem_read_nvbit(FILE *in, const char *name, idem_trace *t, atoll_diag *d) {
  idem_lines l;
  idem_lines_init(&l, in, name, d);
  nvbit nb = {.l = &l, .t = t};
  int rc = idem_ivbuf_init(&nb.seen, 16);
  if (rc == ATOLL_OK)
    rc = idem_ivbuf_init(&nb.written, 16);
  while (rc == ATOLL_OK && (rc = idem_lines_next(&l)) == 1)
    rc = parse_line(&nb);
  idem_ivbuf_free(&nb.seen);
  idem_ivbuf_free(&nb.written);
  idem_lines_free(&l);
  if (rc < 0)
    return rc;
  if (t->n_ops == 0) {
    atoll_source named = {.name = name};
    atoll_diag_set(d, &named, 0, 0, NULL,
                   "no kernel launches: expected NVBit mem_trace output ('MEMTRACE: CTX .. - LAUNCH - ..' or "
                   "'Kernel NAME - grid size ..' lines)");
    return ATOLL_EPARSE;
  }
  return ATOLL_OK;
}
