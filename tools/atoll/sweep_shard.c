/* Shard files of a sweep and their merge (sweep_shard.h). */
#include "tools/atoll/sweep_shard.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"

/* One field of the sweep's identity: a tab separates fields, so tabs, newlines and backslashes in
 * a path or value are escaped and the line stays one line. */
static void put_field(FILE *f, const char *prefix, const char *text) {
  fputs(prefix, f);
  for (; *text; text++)
    if (*text == '\\' || *text == '\t' || *text == '\n')
      fprintf(f, "\\%c", *text == '\\' ? '\\' : *text == '\t' ? 't' : 'n');
    else
      fputc(*text, f);
}

void atoll_sweep_shard_begin(FILE *f, uint32_t shard, uint32_t n_shards, uint32_t n_runs, const char *scenario,
                             const atoll_set_override *sets, uint32_t n_sets) {
  fprintf(f, "# atoll sweep shard %u/%u of %u runs: ", shard + 1, n_shards, n_runs);
  put_field(f, "", scenario);
  for (uint32_t i = 0; i < n_sets; i++) {
    const char *eq = strchr(sets[i].text, '=');
    fputc('\t', f);
    if (sets[i].option && eq) /* as typed: "--policy reef,seq" */
      put_field(f, sets[i].option, ""), put_field(f, " ", eq + 1);
    else
      put_field(f, "--set ", sets[i].text);
  }
  fputc('\n', f);
}

void atoll_sweep_shard_no_row(FILE *f, uint32_t run) { fprintf(f, "# run %u: no row\n", run); }

void atoll_sweep_shard_end(FILE *f, int exit_code) { fprintf(f, "# end exit %d\n", exit_code); }

typedef struct shard_file {
  const char *path;
  char **lines; /* after the first line, each without its newline */
  size_t n, next;
  unsigned k, n_shards, n_runs;
  char *sweep; /* the sweep's identity from the first line (SCENARIO, then each option, tab-separated);
                  NULL for a shard of an older atoll, whose first line has none */
} shard_file;

static void shard_free(shard_file *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->lines[i]);
  free(s->lines);
  free(s->sweep);
}

static int fail(shard_file *s, const char *why) {
  fprintf(stderr, "atoll sweep --merge: %s: %s\n", s->path, why);
  return ATOLL_EXIT_BAD_INPUT;
}

static int shard_read(shard_file *s) {
  FILE *f = fopen(s->path, "r");
  if (!f) {
    perror(s->path);
    return ATOLL_EXIT_BAD_INPUT;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  int end = -1;
  if ((len = getline(&line, &cap, f)) < 0 ||
      sscanf(line, "# atoll sweep shard %u/%u of %u runs%n", &s->k, &s->n_shards, &s->n_runs, &end) != 3 ||
      end < 0 || (line[end] != '\n' && strncmp(line + end, ": ", 2) != 0) || s->k < 1 || s->k > s->n_shards)
    rc = fail(s, "not a shard file of `atoll sweep --shard K/N` (first line)");
  else if (line[end] == ':') {
    line[strcspn(line, "\n")] = '\0';
    if (!(s->sweep = strdup(line + end + 2)))
      rc = fail(s, "out of memory");
  }
  while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
    if (len > 0 && line[len - 1] == '\n')
      line[--len] = '\0';
    char **nl = realloc(s->lines, (s->n + 1) * sizeof *nl);
    char *copy = strdup(line);
    if (!nl || !copy) {
      free(copy);
      if (nl)
        s->lines = nl;
      rc = fail(s, "out of memory");
      break;
    }
    s->lines = nl;
    s->lines[s->n++] = copy;
  }
  free(line);
  fclose(f);
  return rc;
}

/* Field i of a sweep's identity (tab-separated), its length in *len, or NULL past the last. */
static const char *field(const char *id, uint32_t i, int *len) {
  for (; i > 0 && id; i--)
    if ((id = strchr(id, '\t')))
      id++;
  if (id)
    *len = (int)strcspn(id, "\t");
  return id;
}

/* An option field's name: "--set PATH" of "--set PATH=V", "--policy" of "--policy V". */
static size_t key_len(const char *f, int len) {
  const char *stop = strncmp(f, "--set ", 6) == 0 ? memchr(f, '=', (size_t)len) : memchr(f, ' ', (size_t)len);
  return stop ? (size_t)(stop - f) : (size_t)len;
}

/* Whether id has an option field (past the scenario) equal to f[0..len). */
static bool has_field(const char *id, const char *f, int len) {
  int l;
  const char *g;
  for (uint32_t i = 1; (g = field(id, i, &l)); i++)
    if (l == len && strncmp(g, f, (size_t)len) == 0)
      return true;
  return false;
}

/* Whether shard s is of the same sweep as first; if not, says which option differs. */
static int same_sweep(shard_file *s, const shard_file *first) {
  char why[2048];
  if (!s->sweep != !first->sweep) {
    snprintf(why, sizeof why, "its first line %s the sweep's scenario and options and %s's %s: a shard of an older "
             "atoll; run it again", s->sweep ? "names" : "lacks", first->path, s->sweep ? "lacks them" : "names them");
    return fail(s, why);
  }
  if (!s->sweep || strcmp(s->sweep, first->sweep) == 0)
    return 0;
  int a_len = 0, b_len = 0;
  const char *a = field(s->sweep, 0, &a_len), *b = field(first->sweep, 0, &b_len);
  if (a_len != b_len || strncmp(a, b, (size_t)a_len) != 0) {
    snprintf(why, sizeof why, "another sweep: scenario %.*s, where %s has %.*s", a_len, a, first->path, b_len, b);
    return fail(s, why);
  }
  /* The first option of this shard that the first file lacks, shown beside the first file's value
   * of the same option when it has one; else the first file's option that this shard lacks. */
  for (uint32_t i = 1; (a = field(s->sweep, i, &a_len)); i++) {
    if (has_field(first->sweep, a, a_len))
      continue;
    uint32_t j = 1;
    for (; (b = field(first->sweep, j, &b_len)); j++)
      if (!has_field(s->sweep, b, b_len) && key_len(a, a_len) == key_len(b, b_len) &&
          strncmp(a, b, key_len(a, a_len)) == 0)
        break;
    if (b)
      snprintf(why, sizeof why, "another sweep: %.*s, where %s has %.*s", a_len, a, first->path, b_len, b);
    else
      snprintf(why, sizeof why, "another sweep: %.*s, which %s has not", a_len, a, first->path);
    return fail(s, why);
  }
  for (uint32_t j = 1; (b = field(first->sweep, j, &b_len)); j++)
    if (!has_field(s->sweep, b, b_len)) {
      snprintf(why, sizeof why, "another sweep: no %.*s, which %s has", b_len, b, first->path);
      return fail(s, why);
    }
  snprintf(why, sizeof why, "another sweep: the options of %s in another order (a later one wins)", first->path);
  return fail(s, why);
}

/* The shard's exit status from its last line, or -1 when it has none (the shard did not finish). */
static int shard_exit(const shard_file *s) {
  int e;
  char tail;
  if (s->n < 2 || sscanf(s->lines[s->n - 1], "# end exit %d%c", &e, &tail) != 1)
    return -1;
  return e;
}

typedef struct merged {
  const char *text;
  size_t len;
} merged;

static int write_merged(FILE *f, const void *ctx) {
  const merged *m = ctx;
  fwrite(m->text, 1, m->len, f);
  return 0;
}

int atoll_sweep_merge(const atoll_subcommand *cmd, int argc, char **argv) {
  const char *out_path = NULL;
  shard_file *sh = calloc((size_t)argc, sizeof *sh);
  uint32_t n = 0;
  const char **inputs = calloc((size_t)argc, sizeof *inputs); /* the shard files, which --csv must not name */
  if (!sh || !inputs) {
    free(sh), free(inputs);
    fprintf(stderr, "atoll sweep: out of memory\n");
    return ATOLL_EXIT_BAD_INPUT;
  }
  int rc = 0;
  for (int i = 1; i < argc && rc == 0; i++) {
    if (strcmp(argv[i], "--merge") == 0)
      continue;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      atoll_cli_print_help(cmd, stdout);
      free(sh), free(inputs);
      return ATOLL_EXIT_OK;
    }
    if (strcmp(argv[i], "--csv") == 0) {
      if (i + 1 >= argc)
        rc = atoll_cli_usage_error(cmd, "--csv needs a value");
      else
        out_path = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1] != '\0')
      rc = atoll_cli_usage_error(cmd, "--merge takes shard files and --csv FILE only, not '%s'", argv[i]);
    else
      inputs[n] = argv[i], sh[n++].path = argv[i];
  }
  static const char *const outputs[] = {"--csv"};
  if (rc == 0 && out_path)
    rc = atoll_cli_check_outputs(cmd, &out_path, outputs, 1, inputs, n, NULL);
  free(inputs);
  if (rc)
    ;
  else if (!out_path)
    rc = atoll_cli_usage_error(cmd, "--csv FILE is required");
  else if (n == 0)
    rc = atoll_cli_usage_error(cmd, "--merge wants the shard files of one sweep");
  int exit_code = ATOLL_EXIT_OK;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    if ((rc = shard_read(&sh[i])))
      break;
    int e = shard_exit(&sh[i]);
    if (e < 0)
      rc = fail(&sh[i], "no '# end' line: the shard did not finish");
    else if (sh[i].n_shards != n || sh[i].n_runs != sh[0].n_runs) {
      char why[160];
      snprintf(why, sizeof why, "shard %u/%u of %u runs, but %u files were given for %u runs", sh[i].k,
               sh[i].n_shards, sh[i].n_runs, n, sh[0].n_runs);
      rc = fail(&sh[i], why);
    } else if ((rc = same_sweep(&sh[i], &sh[0])))
      ;
    else if (strcmp(sh[i].lines[0], sh[0].lines[0]) != 0)
      rc = fail(&sh[i], "its CSV header differs from the first file's: another sweep");
    if (e > exit_code)
      exit_code = e;
  }
  /* Order the shards by K; each K once. */
  shard_file **by_k = rc == 0 ? calloc(n, sizeof *by_k) : NULL;
  if (rc == 0 && !by_k)
    rc = ATOLL_EXIT_BAD_INPUT;
  for (uint32_t i = 0; rc == 0 && i < n; i++) {
    if (by_k[sh[i].k - 1]) {
      rc = fail(&sh[i], "this shard was given twice");
      break;
    }
    by_k[sh[i].k - 1] = &sh[i];
    sh[i].next = 1; /* past the header */
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *mem = rc == 0 ? open_memstream(&buf, &len) : NULL;
  if (rc == 0 && !mem)
    rc = ATOLL_EXIT_BAD_INPUT;
  if (mem)
    fprintf(mem, "%s\n", sh[0].lines[0]);
  for (uint32_t r = 0; rc == 0 && r < sh[0].n_runs; r++) {
    shard_file *s = by_k[r % n];
    if (s->next + 1 >= s->n) {
      rc = fail(s, "fewer rows than its runs");
      break;
    }
    const char *line = s->lines[s->next++];
    unsigned run;
    if (sscanf(line, "# run %u:", &run) == 1) {
      if (run != r)
        rc = fail(s, "rows out of order");
      continue;
    }
    fprintf(mem, "%s\n", line);
  }
  for (uint32_t i = 0; rc == 0 && i < n; i++)
    if (sh[i].next + 1 != sh[i].n)
      rc = fail(&sh[i], "more rows than its runs");
  if (mem)
    fclose(mem);
  if (rc == 0) {
    merged m = {buf, len};
    rc = atoll_cli_write_file(out_path, write_merged, &m);
  }
  free(buf);
  free(by_k);
  for (uint32_t i = 0; i < n; i++)
    shard_free(&sh[i]);
  free(sh);
  return rc ? rc : exit_code;
}
