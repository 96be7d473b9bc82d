/* Shard files of a sweep and their merge (sweep_shard.h). */
#include "tools/atoll/sweep_shard.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

void atoll_sweep_shard_begin(FILE *f, uint32_t shard, uint32_t n_shards, uint32_t n_runs) {
  fprintf(f, "# atoll sweep shard %u/%u of %u runs\n", shard + 1, n_shards, n_runs);
}

void atoll_sweep_shard_no_row(FILE *f, uint32_t run) { fprintf(f, "# run %u: no row\n", run); }

void atoll_sweep_shard_end(FILE *f, int exit_code) { fprintf(f, "# end exit %d\n", exit_code); }

typedef struct shard_file {
  const char *path;
  char **lines; /* after the first line, each without its newline */
  size_t n, next;
  unsigned k, n_shards, n_runs;
} shard_file;

static void shard_free(shard_file *s) {
  for (size_t i = 0; i < s->n; i++)
    free(s->lines[i]);
  free(s->lines);
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
  char tail;
  if ((len = getline(&line, &cap, f)) < 0 ||
      sscanf(line, "# atoll sweep shard %u/%u of %u runs%c", &s->k, &s->n_shards, &s->n_runs, &tail) != 4 ||
      tail != '\n' || s->k < 1 || s->k > s->n_shards)
    rc = fail(s, "not a shard file of `atoll sweep --shard K/N` (first line)");
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

/* The shard's exit status from its last line, or -1 when it has none (the shard did not finish). */
static int shard_exit(const shard_file *s) {
  int e;
  char tail;
  if (s->n < 2 || sscanf(s->lines[s->n - 1], "# end exit %d%c", &e, &tail) != 1)
    return -1;
  return e;
}

int atoll_sweep_merge(const atoll_subcommand *cmd, int argc, char **argv) {
  const char *out_path = NULL;
  shard_file *sh = calloc((size_t)argc, sizeof *sh);
  uint32_t n = 0;
  if (!sh)
    return ATOLL_EXIT_BAD_INPUT;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--merge") == 0)
      continue;
    if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
      out_path = argv[++i];
    else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      free(sh);
      return atoll_cli_usage_error(cmd, "--merge takes shard files and --csv FILE only, not '%s'", argv[i]);
    } else
      sh[n++].path = argv[i];
  }
  int rc = 0;
  if (!out_path)
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
    } else if (strcmp(sh[i].lines[0], sh[0].lines[0]) != 0)
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
    FILE *f = strcmp(out_path, "-") == 0 ? stdout : fopen(out_path, "w");
    if (!f) {
      perror(out_path);
      rc = ATOLL_EXIT_BAD_INPUT;
    } else {
      fwrite(buf, 1, len, f);
      if (f != stdout && fclose(f) != 0) {
        perror(out_path);
        rc = ATOLL_EXIT_BAD_INPUT;
      }
    }
  }
  free(buf);
  free(by_k);
  for (uint32_t i = 0; i < n; i++)
    shard_free(&sh[i]);
  free(sh);
  return rc ? rc : exit_code;
}
