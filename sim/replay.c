/* Schedules as files, and replaying one (replay.h). */
#include "sim/replay.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

int atoll_replay_write(FILE *f, const char *header, const atoll_choice_rec *recs, uint32_t n) {
  for (const char *p = header; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    fprintf(f, "# %.*s\n", (int)len, p);
    p += len + (nl != NULL);
  }
  for (uint32_t i = 0; i < n; i++)
    fprintf(f, "%s %u/%u\n", atoll_choice_kind_name((atoll_choice_kind)recs[i].kind), recs[i].option, recs[i].n);
  return ferror(f) ? ATOLL_EIO : 0;
}

static int parse_line(char *line, atoll_choice_rec *out, const char **why, size_t *col) {
  char *p = line;
  while (*p == ' ' || *p == '\t')
    p++;
  char *k = p;
  while (*p && *p != ' ' && *p != '\t')
    p++;
  size_t klen = (size_t)(p - k);
  int kind = -1;
  for (int i = 0; i < ATOLL_CHOICE_KINDS; i++) {
    const char *name = atoll_choice_kind_name((atoll_choice_kind)i);
    if (strlen(name) == klen && strncmp(k, name, klen) == 0)
      kind = i;
  }
  if (kind < 0) {
    *why = "expected a choice kind: duration, serve, jitter or tie";
    *col = (size_t)(k - line) + 1;
    return ATOLL_EPARSE;
  }
  while (*p == ' ' || *p == '\t')
    p++;
  char *num = p, *end;
  errno = 0;
  unsigned long opt = strtoul(num, &end, 10);
  unsigned long cnt = 0;
  bool ok = end != num && *end == '/' && errno == 0;
  if (ok) {
    char *second = end + 1;
    cnt = strtoul(second, &end, 10);
    ok = end != second && errno == 0;
    while (ok && (*end == ' ' || *end == '\t' || *end == '\r'))
      end++;
    ok = ok && *end == '\0';
  }
  if (!ok || cnt < 2 || cnt > UINT32_MAX || opt >= cnt) {
    *why = "expected OPTION/COUNT with 0 <= OPTION < COUNT and COUNT >= 2";
    *col = (size_t)(num - line) + 1;
    return ATOLL_EPARSE;
  }
  *out = (atoll_choice_rec){.kind = (uint8_t)kind, .option = (uint32_t)opt, .n = (uint32_t)cnt};
  return 0;
}

int atoll_replay_read(const char *path, atoll_choice_rec **recs, uint32_t *n, char *err, size_t err_len) {
  *recs = NULL;
  *n = 0;
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, err_len, "%s", strerror(errno));
    return ATOLL_EIO;
  }
  char line[256];
  uint32_t cap = 0, lineno = 0;
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    lineno++;
    size_t len = strlen(line);
    if (len && line[len - 1] == '\n')
      line[--len] = '\0';
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    const char *q = line;
    while (*q == ' ' || *q == '\t' || *q == '\r')
      q++;
    if (*q == '\0')
      continue;
    atoll_choice_rec rec;
    const char *why = NULL;
    size_t col = 1;
    if ((rc = parse_line(line, &rec, &why, &col))) {
      snprintf(err, err_len, "%u:%zu: %s", lineno, col, why);
      break;
    }
    if (*n == cap) {
      cap = cap ? cap * 2 : 256;
      atoll_choice_rec *nr = realloc(*recs, cap * sizeof *nr);
      if (!nr) {
        rc = ATOLL_ENOMEM;
        break;
      }
      *recs = nr;
    }
    (*recs)[(*n)++] = rec;
  }
  if (rc == 0 && ferror(f)) {
    snprintf(err, err_len, "read error");
    rc = ATOLL_EIO;
  }
  fclose(f);
  if (rc) {
    free(*recs);
    *recs = NULL;
    *n = 0;
  }
  return rc;
}

static uint32_t replay_choose(void *ctx, atoll_choice_kind kind, uint32_t n) {
  atoll_replay *r = ctx;
  uint32_t i = r->pos++;
  if (i >= r->n || r->diverged)
    return 0;
  const atoll_choice_rec *c = &r->recs[i];
  if (c->kind != kind || c->n != n) {
    r->diverged = true;
    r->diverged_at = i;
    return 0;
  }
  return c->option;
}

void atoll_replay_init(atoll_replay *r, const atoll_choice_rec *recs, uint32_t n) {
  *r = (atoll_replay){.recs = recs, .n = n};
}

atoll_chooser atoll_replay_chooser(atoll_replay *r) { return (atoll_chooser){.choose = replay_choose, .ctx = r}; }
