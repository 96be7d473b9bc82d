/* atoll dot PROFILE|TRACE: a model's operation graph with its idempotent groups, as Graphviz DOT.
 *
 * The drawing is idem_checker's (idem_write_dot in the atoll_idem library): operations as nodes,
 * read-after-write and write-after-read dependencies as edges, groups longer than one op as
 * clusters, ops that restart earlier filled orange and ops that cannot be restored red. The
 * dependencies come from the input's memory accesses: whole tensors for a profile or a REEF model
 * directory, byte ranges for an access trace. The groups of a profile are the ones it records
 * (what the core restores from); a profile nobody checked, and every trace, gets them from the
 * group search, the same one idem_checker runs. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atoll/error.h"
#include "idem/badset.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "idem/readers.h"
#include "idem/sweep.h"
#include "tools/atoll/report_out.h"
#include "io/suggest.h"
/* By path: the simulator's run report is also "report.h", and this target sees both folders. */
#include "idem/report.h"

const atoll_subcommand atoll_cmd_dot_def = {
    "dot", atoll_cmd_dot, "draw a model's operation graph and idempotent groups (Graphviz)",
    "usage: atoll dot PROFILE|TRACE [--format text|nvbit|reef-model|profile] [--groups profile|search]\n"
    "                 [-o FILE]\n"
    "\n"
    "Writes Graphviz DOT of a model's operations: one node per kernel, memcpy and memset in launch\n"
    "order, read-after-write (solid) and write-after-read (dashed red) dependencies, and the minimal\n"
    "idempotent groups a restore re-executes as dashed clusters (docs/idempotence.md). Render it with\n"
    "`dot -Tsvg FILE -o graph.svg`.\n"
    "\n"
    "  PROFILE|TRACE  an atoll model profile (scenarios/models/*.yaml), a REEF model directory, or a\n"
    "                 memory-access trace (idem_checker's text format, or NVBit mem_trace output)\n"
    "  --format F     the input's format (default: a directory is reef-model, a file whose first key\n"
    "                 is atoll_model is a profile, anything else text)\n"
    "  --groups G     profile: the groups the profile records (default when it records any);\n"
    "                 search: run the group search on the input's accesses\n"
    "  -o FILE        write there (default: standard output)\n"
    "\n"
    "exit: 0 written; 2 bad input or usage.\n"};

/* A profile is YAML whose first key is atoll_model (io/model_load.c's format marker), after any
 * comments, blank lines, "---" and a UTF-8 byte order mark, as the YAML reader skips them. Whole
 * lines: a comment of 255 bytes or more was read in parts, its second taken for the first key. */
static bool looks_like_profile(const char *path) {
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  char *line = NULL;
  size_t cap = 0;
  bool yes = false, first = true;
  while (getline(&line, &cap, f) >= 0) {
    const char *l = line;
    if (first && strncmp(l, "\xEF\xBB\xBF", 3) == 0)
      l += 3;
    first = false;
    if (l[0] == '#' || l[0] == '\n' || (l[0] == '\r' && l[1] == '\n') || strncmp(l, "---", 3) == 0)
      continue;
    yes = strncmp(l, "atoll_model:", 12) == 0;
    break;
  }
  free(line);
  fclose(f);
  return yes;
}

/* entry[i] from the idempotence a profile records; false when it records none (nobody checked). */
static bool profile_entries(const atoll_model *m, uint32_t *entry) {
  bool any = false;
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    entry[i] = i;
    if (op->kind != ATOLL_OP_KERNEL)
      continue;
    any |= op->idem != ATOLL_IDEM_UNKNOWN;
    if (op->idem == ATOLL_IDEM_GROUP)
      entry[i] = op->group_entry;
    else if (op->idem == ATOLL_IDEM_NONE)
      entry[i] = IDEM_NO_ENTRY;
  }
  return any;
}

typedef struct dot_opts {
  const char *input, *format, *groups, *out;
} dot_opts;

static int parse(int argc, char **argv, dot_opts *o) {
  const atoll_subcommand *cmd = &atoll_cmd_dot_def;
  memset(o, 0, sizeof *o);
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = strcmp(a, "--format") == 0   ? &o->format
                        : strcmp(a, "--groups") == 0 ? &o->groups
                        : strcmp(a, "-o") == 0       ? &o->out
                                                     : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
      return ATOLL_CLI_HELP;
    if (slot) {
      if (i + 1 >= argc)
        return atoll_cli_usage_error(cmd, "%s needs a value", a);
      *slot = argv[++i];
    } else if (a[0] == '-' && a[1] != '\0') {
      static const char *const known[] = {"--format", "--groups", "-o", "--help"};
      char hint[96];
      return atoll_cli_usage_error(cmd, "unknown option '%s'%s", a, atoll_suggest_text(hint, sizeof hint, a, known, 4));
    } else if (o->input) {
      return atoll_cli_usage_error(cmd, "more than one input ('%s')", a);
    } else {
      o->input = a;
    }
  }
  if (!o->input)
    return atoll_cli_usage_error(cmd, "no PROFILE or TRACE given");
  if (o->format && idem_format_parse(o->format) < 0)
  {
    static const char *const formats[] = {"text", "nvbit", "reef-model", "profile"};
    char hint[96];
    return atoll_cli_usage_error(cmd, "unknown format '%s'%s (text, nvbit, reef-model or profile)", o->format,
                                 atoll_suggest_text(hint, sizeof hint, o->format, formats, 4));
  }
  if (o->groups && strcmp(o->groups, "profile") != 0 && strcmp(o->groups, "search") != 0)
    return atoll_cli_usage_error(cmd, "--groups takes profile or search");
  /* Before the input is read: -o naming it replaced it with the drawing, and "-o --groups" wrote a
   * file of that name. */
  static const char *const out_opt[] = {"-o"};
  return atoll_cli_check_outputs(cmd, &o->out, out_opt, 1, &o->input, 1, NULL);
}

static idem_format pick_format(const dot_opts *o) {
  if (o->format)
    return (idem_format)idem_format_parse(o->format);
  struct stat st;
  if (stat(o->input, &st) == 0 && S_ISDIR(st.st_mode))
    return IDEM_FMT_REEF_MODEL;
  return looks_like_profile(o->input) ? IDEM_FMT_PROFILE : IDEM_FMT_TEXT;
}

/* Reads the input into t and fills entry (allocated here); *from_profile tells where the groups
 * came from. Returns 0 or an exit code after printing the error. */
static int build(const dot_opts *o, idem_format f, idem_trace *t, uint32_t **entry, bool *from_profile) {
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  int rc;
  *from_profile = false;
  if (f == IDEM_FMT_PROFILE) {
    /* The profile is loaded once: its tensors give the trace, its ops the recorded groups. */
    rc = atoll_model_load_file(&a, o->input, NULL, &m, &d);
    if (rc == ATOLL_OK && (rc = idem_trace_from_model(&m, t, NULL)) != ATOLL_OK)
      atoll_diag_set(&d, NULL, 0, 0, NULL, "%s: %s", o->input, atoll_strerror(rc));
  } else {
    rc = idem_read_path(f, o->input, t, &d);
  }
  if (rc == ATOLL_OK && !(*entry = malloc((size_t)(t->n_ops ? t->n_ops : 1) * sizeof **entry)))
    rc = ATOLL_ENOMEM, atoll_diag_set(&d, NULL, 0, 0, NULL, "out of memory");
  bool want_profile = !o->groups || strcmp(o->groups, "profile") == 0;
  if (rc == ATOLL_OK && f == IDEM_FMT_PROFILE && want_profile)
    *from_profile = profile_entries(&m, *entry);
  if (rc == ATOLL_OK && o->groups && strcmp(o->groups, "profile") == 0 && !*from_profile) {
    /* A trace is not a profile: it records accesses, never groups; only a profile can be sent to
     * idem_checker to record them. */
    if (f == IDEM_FMT_PROFILE)
      atoll_diag_set(&d, NULL, 0, 0, NULL, "%s records no idempotence (run idem_checker, or use --groups search)",
                     o->input);
    else
      atoll_diag_set(&d, NULL, 0, 0, NULL,
                     "--groups profile: %s is a %s, not a profile: only a profile records groups (use --groups "
                     "search, the default for a trace)",
                     o->input, f == IDEM_FMT_REEF_MODEL ? "REEF model directory" : "trace");
    rc = ATOLL_EINVAL;
  }
  if (rc == ATOLL_OK && !*from_profile && (rc = idem_search(t, *entry)) != ATOLL_OK)
    atoll_diag_set(&d, NULL, 0, 0, NULL, "group search: %s", atoll_strerror(rc));
  atoll_arena_free(&a);
  return rc == ATOLL_OK ? 0 : atoll_cli_report(&d);
}

/* What write_to needs (atoll_cli_write_file's callback). */
typedef struct dot_output {
  const dot_opts *o;
  const idem_trace *t;
  const uint32_t *entry;
  bool from_profile;
} dot_output;

static int write_to(FILE *out, const void *ctx) {
  const dot_output *d = ctx;
  fprintf(out, "// atoll dot: groups %s\n",
          d->from_profile ? "as the profile records them (what the core restores from)"
                          : "found by the group search on the input's accesses");
  return idem_write_dot(out, d->o->input, d->t, d->entry);
}

int atoll_cmd_dot(int argc, char **argv) {
  dot_opts o;
  int rc = parse(argc, argv, &o);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(&atoll_cmd_dot_def, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  idem_trace t;
  idem_trace_init(&t);
  uint32_t *entry = NULL;
  bool from_profile;
  rc = build(&o, pick_format(&o), &t, &entry, &from_profile);
  if (rc == 0) {
    dot_output d = {.o = &o, .t = &t, .entry = entry, .from_profile = from_profile};
    rc = atoll_cli_write_file(o.out ? o.out : "-", write_to, &d);
  }
  free(entry);
  idem_trace_free(&t);
  return rc;
}
