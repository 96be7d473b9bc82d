/* --set PATH=VALUE: grafts a value into a scenario's YAML tree before the tree is read, so a
 * value given on the command line is checked exactly like one written in the file, and its errors
 * point into the --set text ("--set:1:COL"). Sequence steps take an index or, for lists of named
 * mappings such as clients, a name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/load.h"
#include "io/suggest.h"

static void repoint(atoll_ynode *n, const atoll_source *src) {
  n->src = src;
  for (uint32_t i = 0; i < (n->kind == ATOLL_Y_MAP ? 2 * n->n : n->n); i++)
    repoint(n->items[i], src);
}

static atoll_ynode *scalar_at(atoll_arena *a, const atoll_source *src, const char *s, size_t len, uint32_t col) {
  atoll_ynode *n = atoll_ynode_new(a, ATOLL_Y_SCALAR, NULL);
  if (!n)
    return NULL;
  n->src = src;
  n->line = 1;
  n->col = col;
  n->str = atoll_arena_strndup(a, s, len);
  n->len = (uint32_t)len;
  n->plain = true;
  return n->str ? n : NULL;
}

static bool all_digits(const char *s, size_t len) {
  if (len == 0 || len > 9)
    return false;
  for (size_t i = 0; i < len; i++)
    if (s[i] < '0' || s[i] > '9')
      return false;
  return true;
}

/* The element of seq named by segment: an index, or the item whose `name` is segment. */
static atoll_ynode *seq_step(atoll_ynode *seq, const char *seg, size_t len) {
  if (all_digits(seg, len)) {
    unsigned long i = strtoul(seg, NULL, 10);
    return i < seq->n ? seq->items[i] : NULL;
  }
  for (uint32_t i = 0; i < seq->n; i++) {
    const atoll_ynode *name = atoll_ymap_get(seq->items[i], "name");
    if (name && name->kind == ATOLL_Y_SCALAR && name->len == len && memcmp(name->str, seg, len) == 0)
      return seq->items[i];
  }
  return NULL;
}

/* Whether a scalar reads as a number (as the loader's number keys would take it): such a value is
 * never the short form of a mapping, unlike `policy: reef` or `gpu: mi50`. */
static bool looks_numeric(const atoll_ynode *n) {
  if (!n->plain || n->len == 0)
    return false;
  char *end = NULL;
  (void)strtod(n->str, &end);
  return end == n->str + n->len;
}

/* For a list of named mappings such as clients: hint gets "; did you mean 'X'?" when a name is
 * near the mistyped one, buf gets ": A, B, ..." so the right names are on screen ("" for others). */
static void list_names(const atoll_ynode *seq, const char *seg, size_t seg_len, char *hint, size_t hint_size,
                       char *buf, size_t size) {
  enum { MAX = 64 };
  const char *names[MAX];
  uint32_t n = 0;
  for (uint32_t i = 0; i < seq->n && n < MAX; i++) {
    const atoll_ynode *name = atoll_ymap_get(seq->items[i], "name");
    if (name && name->kind == ATOLL_Y_SCALAR)
      names[n++] = name->str;
  }
  char typed[64];
  snprintf(typed, sizeof typed, "%.*s", (int)(seg_len < 63 ? seg_len : 63), seg);
  atoll_suggest_text(hint, hint_size, typed, names, n);
  size_t len = 0;
  buf[0] = '\0';
  for (uint32_t i = 0; i < n && len < size; i++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : ": ", names[i]);
}

static int apply_one(atoll_arena *a, atoll_ynode *root, const atoll_set_override *set, atoll_diag *d) {
  const char *text = set->text;
  atoll_source *src = atoll_arena_alloc(a, sizeof *src);
  if (!src)
    return ATOLL_ENOMEM;
  *src = (atoll_source){.name = "--set", .text = atoll_arena_strdup(a, text), .len = strlen(text)};
  const char *eq = strchr(text, '=');
  /* A shorthand ("--policy reeef", made into "policy=reeef") is echoed as typed: the source is the
   * option and its value, and the value's columns count from there. */
  uint32_t value_col0 = eq ? (uint32_t)(eq - text + 1) : 0;
  if (set->option && eq) {
    size_t on = strlen(set->option), vn = strlen(eq + 1);
    char *shown = atoll_arena_alloc(a, on + 1 + vn + 1);
    if (!shown)
      return ATOLL_ENOMEM;
    memcpy(shown, set->option, on);
    shown[on] = ' ';
    memcpy(shown + on + 1, eq + 1, vn + 1);
    *src = (atoll_source){.name = set->option, .text = shown, .len = on + 1 + vn};
    value_col0 = (uint32_t)on + 1;
  }
  if (!eq || eq == text) {
    atoll_diag_set(d, src, 1, 1, NULL, "expected PATH=VALUE, e.g. clients.cam.arrival.load=0.5");
    return ATOLL_EPARSE;
  }
  /* Parse the value as YAML (so lists and mappings can be set too), then re-home its nodes in
   * the --set source so messages show the whole argument. */
  atoll_source value_src = {.name = src->name, .text = eq + 1, .len = strlen(eq + 1)};
  atoll_ynode *value = NULL;
  int rc = atoll_ytree_parse(a, &value_src, value_col0, &value, d);
  if (rc) {
    /* The parser echoed the value alone; columns count from the whole argument, so echo that. */
    if (d->line == 1)
      snprintf(d->line_text, sizeof d->line_text, "%.*s", (int)strcspn(src->text, "\n"), src->text);
    return rc;
  }
  if (!value)
    value = scalar_at(a, src, "", 0, value_col0 + 1);
  if (!value)
    return ATOLL_ENOMEM;
  repoint(value, src);

  atoll_ynode *node = root;
  const char *seg = text;
  for (;;) {
    const char *dot = memchr(seg, '.', (size_t)(eq - seg));
    size_t len = (size_t)((dot ? dot : eq) - seg);
    uint32_t col = (uint32_t)(seg - text + 1);
    if (len == 0) {
      atoll_diag_set(d, src, 1, col, NULL, "empty step in path");
      return ATOLL_EPARSE;
    }
    bool last = dot == NULL;
    if (node->kind == ATOLL_Y_SEQ) {
      atoll_ynode *next = seq_step(node, seg, len);
      if (!next) {
        char hint[96], names[256];
        list_names(node, seg, len, hint, sizeof hint, names, sizeof names);
        atoll_diag_set(d, src, 1, col, NULL, "no element '%.*s' in this list%s (give an index or a name%s)", (int)len,
                       seg, hint, names);
        return ATOLL_EPARSE;
      }
      if (last) {
        /* A scalar element (a bound of expect:, a time of times_ms) is replaced as a whole; a mapping
         * element is set key by key, so its other keys are not lost silently. */
        if (next->kind != ATOLL_Y_SCALAR) {
          atoll_diag_set(d, src, 1, col, NULL, "cannot replace a whole list element; set one of its keys");
          return ATOLL_EPARSE;
        }
        for (uint32_t i = 0; i < node->n; i++)
          if (node->items[i] == next)
            node->items[i] = value;
        return 0;
      }
      node = next;
    } else if (node->kind == ATOLL_Y_MAP) {
      atoll_ynode *key = scalar_at(a, src, seg, len, col);
      if (!key)
        return ATOLL_ENOMEM;
      atoll_ynode *next = (atoll_ynode *)atoll_ymap_get(node, key->str);
      if (last)
        return atoll_ymap_put(a, node, key, value);
      if (next && next->kind == ATOLL_Y_SCALAR &&
          (looks_numeric(next) || (len == 4 && memcmp(seg, "name", 4) == 0))) {
        /* Neither a number nor a name is the short form of a mapping: stepping into one would make
         * a mapping the loader refuses at the file's line, blaming the file for the --set. */
        const char *what = looks_numeric(next) ? "a number" : "a name";
        uint32_t next_col = (uint32_t)(dot + 1 - text + 1);
        atoll_diag_set(d, src, 1, next_col, NULL, "'%.*s' is %s (%s), not a mapping; set %.*s=VALUE instead",
                       (int)(dot - text), text, what, next->str, (int)(dot - text), text);
        return ATOLL_EPARSE;
      }
      if (!next || next->kind == ATOLL_Y_SCALAR) {
        /* A missing step becomes a new mapping; the loader then rejects keys it does not know. A
         * scalar stepped into becomes {name: scalar}, the long form of shorthands such as
         * `policy: reef`, so `--set policy.dq_capacity=8` keeps the policy's name. The mapping is
         * placed at the --set step, not at the file's scalar: where a mapping is not allowed
         * (`--set policy.dkp.x=1`) the loader's "found a mapping" then points at the --set. */
        atoll_ynode *map = atoll_ynode_new(a, ATOLL_Y_MAP, key);
        if (!map || atoll_ymap_put(a, node, key, map))
          return ATOLL_ENOMEM;
        atoll_ynode *name_key = next ? scalar_at(a, src, "name", 4, col) : NULL;
        if (next && (!name_key || atoll_ymap_put(a, map, name_key, next)))
          return ATOLL_ENOMEM;
        next = map;
      }
      node = next;
    } else {
      atoll_diag_set(d, src, 1, col, NULL, "cannot descend into a scalar value");
      return ATOLL_EPARSE;
    }
    seg = dot + 1;
  }
}

int atoll__apply_sets(atoll_arena *a, atoll_ynode *root, const atoll_set_override *sets, uint32_t n_sets,
                      atoll_diag *d);
int atoll__apply_sets(atoll_arena *a, atoll_ynode *root, const atoll_set_override *sets, uint32_t n_sets,
                      atoll_diag *d) {
  for (uint32_t i = 0; i < n_sets; i++) {
    int rc = apply_one(a, root, &sets[i], d);
    if (rc)
      return rc;
  }
  return 0;
}
