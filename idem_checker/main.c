/* idem_checker TRACE [--format text|nvbit|reef-model|profile] [--json FILE|-] [-o METADATA.yaml|-]
 *              [--dot FILE|-]
 *
 * Tells, before a model is deployed, which of its kernels can be killed and simply re-run, and for
 * the others which earlier op a restore must restart from (docs/idempotence.md). Exit codes follow
 * atoll's table: 0 every kernel restorable, 1 some kernel is not restorable, 2 bad input or usage.
 * Output files are written to a temporary name and renamed once complete. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "idem/readers.h"
#include "idem/report.h"
#include "io/out_file.h"
#include "io/suggest.h"
#include "idem/sweep.h"

static const char usage[] =
    "usage: idem_checker TRACE [--format text|nvbit|reef-model|profile] [--json FILE|-] [-o METADATA.yaml|-]\n"
    "                    [--dot FILE|-]\n";

static const char help[] =
    "\n"
    "Finds, for every operation of a model's trace, its minimal idempotent group: the latest op j\n"
    "such that re-executing ops j..i restores the state op i started from (REEF section 4.4).\n"
    "j == i: the op is idempotent; no j: the op is not restorable and a preemption must wait for it.\n"
    "\n"
    "  TRACE          the trace; '-' reads standard input (text, nvbit)\n"
    "  --format F     text (default; docs/idempotence.md), nvbit (NVBit mem_trace output),\n"
    "                 reef-model (a REEF model directory; the default when TRACE is a directory),\n"
    "                 profile (an atoll model profile)\n"
    "  --json FILE    every op (index, kind, name, idempotent, group_entry, group_size) and the summary\n"
    "  -o FILE        the metadata `atoll import reef-model --idem` and the core load\n"
    "  --dot FILE     Graphviz: ops, RAW/WAR dependencies, groups as clusters (dot -Tsvg FILE)\n"
    "\n"
    "The summary goes to standard output unless an output does.\n"
    "exit: 0 every kernel restorable; 1 some kernel is not restorable; 2 bad input or usage.\n";

typedef struct options {
  const char *trace, *format, *json, *meta, *dot;
} options;

static int usage_error(const char *fmt, const char *arg) {
  fputs("idem_checker: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  fputs(usage, stderr);
  return ATOLL_EXIT_BAD_INPUT;
}

/* Whether a and b are one regular file (a link counts as its target, which the rename replaces). */
static bool same_file(const char *a, const char *b) {
  struct stat sa, sb;
  return stat(a, &sa) == 0 && stat(b, &sb) == 0 && S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

/* The outputs checked before the trace is read, as atoll's commands check theirs
 * (tools/atoll/outputs.h; this program does not link the atoll command line): an output that
 * could not be written was found after the others had been written and the summary printed, and
 * one naming the trace or another output replaced it. */
static int check_outputs(const options *o) {
  const char *paths[] = {o->json, o->meta, o->dot};
  static const char *const names[] = {"--json", "-o", "--dot"};
  char msg[PATH_MAX * 2 + 160];
  for (int k = 0; k < 3; k++) {
    const char *p = paths[k];
    if (!p || strcmp(p, "-") == 0)
      continue;
    if (p[0] == '\0') {
      snprintf(msg, sizeof msg, "%s needs a file name ('-' for standard output)", names[k]);
      return usage_error("%s", msg);
    }
    if (strncmp(p, "--", 2) == 0) {
      snprintf(msg, sizeof msg, "%s %s: a value that looks like an option (write ./%s for such a file)", names[k], p,
               p);
      return usage_error("%s", msg);
    }
    struct stat st;
    if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
      snprintf(msg, sizeof msg, "%s %s is a folder: name a file in it", names[k], p);
      return usage_error("%s", msg);
    }
    const char *slash = strrchr(p, '/');
    if (slash && (size_t)(slash - p) < PATH_MAX) {
      char dir[PATH_MAX];
      size_t len = slash == p ? 1 : (size_t)(slash - p);
      memcpy(dir, p, len);
      dir[len] = '\0';
      int found = stat(dir, &st), e = errno;
      if (found != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(msg, sizeof msg, "%s %s: the folder %s %s", names[k], p, dir,
                 found == 0                       ? "is not a folder"
                 : e == ENOENT || e == ENOTDIR ? "does not exist"
                                               : strerror(e));
        return usage_error("%s", msg);
      }
    }
    if (strcmp(p, o->trace) == 0 || same_file(p, o->trace)) {
      snprintf(msg, sizeof msg, "%s %s is the input %s: writing it would replace it", names[k], p, o->trace);
      return usage_error("%s", msg);
    }
    for (int j = 0; j < k; j++)
      if (paths[j] && strcmp(paths[j], "-") != 0 && (strcmp(p, paths[j]) == 0 || same_file(p, paths[j])) &&
          !(stat(p, &st) == 0 && !S_ISREG(st.st_mode))) { /* a device such as /dev/null takes several */
        snprintf(msg, sizeof msg, "%s %s and %s %s name one file: each output needs its own", names[j], paths[j],
                 names[k], p);
        return usage_error("%s", msg);
      }
  }
  return 0;
}

/* 0 to run, -1 after --help, or an exit code. */
static int parse_args(int argc, char **argv, options *o) {
  memset(o, 0, sizeof *o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = strcmp(a, "--format") == 0 ? &o->format
                        : strcmp(a, "--json") == 0 ? &o->json
                        : strcmp(a, "-o") == 0     ? &o->meta
                        : strcmp(a, "--dot") == 0  ? &o->dot
                                                   : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      fputs(usage, stdout);
      fputs(help, stdout);
      return -1;
    }
    if (slot) {
      if (i + 1 >= argc)
        return usage_error("%s needs a value", a);
      if (*slot)
        return usage_error("%s given twice", a);
      *slot = argv[++i];
    } else if (a[0] == '-' && a[1] != '\0') {
      static const char *const known[] = {"--format", "--json", "-o", "--dot", "--help"};
      char msg[160], hint[64];
      snprintf(msg, sizeof msg, "unknown option '%s'%s", a, atoll_suggest_text(hint, sizeof hint, a, known, 5));
      return usage_error("%s", msg);
    } else if (o->trace) {
      return usage_error("more than one trace ('%s')", a);
    } else {
      o->trace = a;
    }
  }
  if (!o->trace)
    return usage_error("%s", "no TRACE given");
  int to_stdout = 0;
  const char *outs[] = {o->json, o->meta, o->dot};
  for (int k = 0; k < 3; k++)
    to_stdout += outs[k] && strcmp(outs[k], "-") == 0;
  if (to_stdout > 1)
    return usage_error("%s", "only one of --json, -o and --dot can write to standard output ('-')");
  return check_outputs(o);
}

static idem_format pick_format(const options *o, int *bad) {
  *bad = 0;
  if (o->format) {
    int f = idem_format_parse(o->format);
    *bad = f < 0;
    return f < 0 ? IDEM_FMT_TEXT : (idem_format)f;
  }
  struct stat st;
  return stat(o->trace, &st) == 0 && S_ISDIR(st.st_mode) ? IDEM_FMT_REEF_MODEL : IDEM_FMT_TEXT;
}

typedef enum output_kind { OUT_JSON, OUT_META, OUT_DOT } output_kind;

typedef struct run {
  const char *name;
  idem_format format;
  idem_trace trace;
  uint32_t *entry;
  idem_summary summary;
} run;

static int write_output(const run *r, output_kind kind, FILE *f) {
  if (kind == OUT_JSON)
    return idem_write_json(f, r->name, r->format, &r->trace, r->entry, &r->summary);
  if (kind == OUT_DOT)
    return idem_write_dot(f, r->name, &r->trace, r->entry);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_idem_meta meta;
  int rc = idem_build_meta(&a, r->name, &r->trace, r->entry, &meta);
  if (rc == ATOLL_OK)
    rc = atoll_idem_meta_write(f, &meta);
  atoll_arena_free(&a);
  return rc;
}

/* Writes one output, whole or not at all (io/out_file.h). */
static int emit(const run *r, output_kind kind, const char *path) {
  if (strcmp(path, "-") == 0) {
    int rc = write_output(r, kind, stdout);
    return rc == ATOLL_OK && fflush(stdout) == 0 ? ATOLL_OK : ATOLL_EIO;
  }
  atoll_out_file out;
  int rc = atoll_out_file_open(&out, path);
  if (rc != ATOLL_OK) {
    perror(path);
    return rc;
  }
  rc = write_output(r, kind, out.f);
  if (atoll_out_file_close(&out, rc == ATOLL_OK) != ATOLL_OK) {
    rc = rc == ATOLL_OK ? ATOLL_EIO : rc;
    fprintf(stderr, "idem_checker: cannot write %s: %s\n", path, atoll_strerror(rc));
  }
  return rc;
}

static int search_and_report(run *r, const options *o) {
  r->entry = malloc((size_t)(r->trace.n_ops ? r->trace.n_ops : 1) * sizeof *r->entry);
  int rc = r->entry ? idem_search(&r->trace, r->entry) : ATOLL_ENOMEM;
  if (rc == ATOLL_OK)
    rc = idem_summary_compute(&r->trace, r->entry, &r->summary);
  if (rc != ATOLL_OK) {
    fprintf(stderr, "idem_checker: %s\n", atoll_strerror(rc));
    return ATOLL_EXIT_BAD_INPUT;
  }
  const char *paths[] = {o->json, o->meta, o->dot};
  bool to_stdout = false;
  for (int k = 0; k < 3; k++) {
    if (!paths[k])
      continue;
    to_stdout |= strcmp(paths[k], "-") == 0;
    if (emit(r, (output_kind)k, paths[k]) != ATOLL_OK)
      rc = ATOLL_EIO;
  }
  if (!to_stdout)
    idem_print_summary(stdout, r->name, r->format, &r->trace, r->entry, &r->summary, 20);
  if (rc != ATOLL_OK)
    return ATOLL_EXIT_BAD_INPUT;
  return r->summary.not_restorable_kernels > 0 ? ATOLL_EXIT_VIOLATED : ATOLL_EXIT_OK;
}

int main(int argc, char **argv) {
  options o;
  int rc = parse_args(argc, argv, &o);
  if (rc)
    return rc < 0 ? ATOLL_EXIT_OK : rc;
  int bad;
  run r = {.name = o.trace};
  r.format = pick_format(&o, &bad);
  if (bad) {
    static const char *const formats[] = {"text", "nvbit", "reef-model", "profile"};
    char msg[160], hint[64];
    snprintf(msg, sizeof msg, "unknown format '%s'%s (expected text, nvbit, reef-model or profile)", o.format,
             atoll_suggest_text(hint, sizeof hint, o.format, formats, 4));
    return usage_error("%s", msg);
  }
  idem_trace_init(&r.trace);
  atoll_diag d;
  atoll_diag_clear(&d);
  if (idem_read_path(r.format, o.trace, &r.trace, &d) != ATOLL_OK) {
    atoll_diag_print(&d, stderr);
    rc = ATOLL_EXIT_BAD_INPUT;
  } else {
    rc = search_and_report(&r, &o);
  }
  idem_summary_free(&r.summary);
  free(r.entry);
  idem_trace_free(&r.trace);
  return rc;
}
