#include "io/ytree.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/strmap.h"

/* Children are collected in a growable array per open collection, then copied into the arena
 * when the collection ends, so the finished tree is compact and arena-owned. */
typedef struct open_node {
  atoll_ynode *node;
  atoll_ynode **kids;
  uint32_t n, cap;
  atoll_strmap keys; /* a long mapping's keys -> pair index, for the duplicate check */
} open_node;

/* Mappings up to this many pairs are checked for duplicate keys by a scan; longer ones by a hash
 * map, so a mapping with many keys costs linear, not quadratic, time. */
enum { SCAN_PAIRS = 16 };

typedef struct builder {
  atoll_arena *arena;
  const atoll_source *src;
  uint32_t col_offset;
  atoll_diag *diag;
  open_node stack[ATOLL_MAX_NESTING + 1];
  int depth;
  uint32_t nodes;    /* values so far, against ATOLL_MAX_NODES */
  yaml_mark_t where; /* the event being handled, where an allocation failure is reported */
  atoll_ynode *root;
} builder;

static void mark_of(const builder *b, yaml_mark_t m, uint32_t *line, uint32_t *col) {
  *line = (uint32_t)m.line + 1;
  *col = (uint32_t)m.column + 1 + (m.line == 0 ? b->col_offset : 0);
}

/* what holds one %d, the limit. */
static int limit_error(builder *b, yaml_mark_t m, const char *what, int limit) {
  uint32_t line, col;
  char msg[128];
  mark_of(b, m, &line, &col);
  snprintf(msg, sizeof msg, what, limit);
  atoll_diag_set(b->diag, b->src, line, col, NULL, "%s (atoll's input limit, see docs/limits.md)", msg);
  return ATOLL_EPARSE;
}

static atoll_ynode *node_at(builder *b, atoll_ykind kind, yaml_mark_t m) {
  atoll_ynode *n = atoll_arena_alloc(b->arena, sizeof *n);
  if (n) {
    n->kind = kind;
    n->src = b->src;
    mark_of(b, m, &n->line, &n->col);
  }
  return n;
}

static int push_child(builder *b, atoll_ynode *child) {
  if (b->depth == 0) {
    b->root = child;
    return 0;
  }
  open_node *o = &b->stack[b->depth - 1];
  if (o->n == o->cap) {
    uint32_t cap = o->cap ? o->cap * 2 : 8;
    atoll_ynode **k = realloc(o->kids, cap * sizeof *k);
    if (!k)
      return ATOLL_ENOMEM;
    o->kids = k;
    o->cap = cap;
  }
  o->kids[o->n++] = child;
  return 0;
}

static int check_duplicate_key(builder *b, open_node *o) {
  /* Called as each mapping value completes a pair; linear scan keeps memory small, and the
   * mappings atoll reads are short (the longest REEF map has a few hundred keys). */
  if (o->node->kind != ATOLL_Y_MAP || o->n % 2 != 0)
    return 0;
  const atoll_ynode *key = o->kids[o->n - 2];
  if (key->kind != ATOLL_Y_SCALAR) {
    atoll_diag_set(b->diag, b->src, key->line, key->col, NULL, "mapping keys must be plain strings");
    return ATOLL_EPARSE;
  }
  uint32_t pairs = o->n / 2, first = pairs;
  if (pairs <= SCAN_PAIRS) {
    for (uint32_t i = 0; i + 1 < pairs && first == pairs; i++) {
      const atoll_ynode *k = o->kids[2 * i];
      if (k->len == key->len && memcmp(k->str, key->str, key->len) == 0)
        first = i;
    }
  } else {
    /* Past the scan length every key goes into the map, the earlier ones on the first time. */
    for (uint32_t i = o->keys.n; i < pairs && first == pairs; i++) {
      const atoll_ynode *k = o->kids[2 * i];
      int rc = atoll_strmap_add(&o->keys, k->str, k->len, i, &first);
      if (rc < 0)
        return rc;
      if (rc == 0)
        first = pairs;
    }
  }
  if (first < pairs) {
    atoll_diag_set(b->diag, b->src, key->line, key->col, NULL, "duplicate key '%s' (first at line %u)", key->str,
                   o->kids[2 * first]->line);
    return ATOLL_EPARSE;
  }
  return 0;
}

static int add_node(builder *b, atoll_ynode *n) {
  int rc = push_child(b, n);
  if (rc == 0 && b->depth > 0)
    rc = check_duplicate_key(b, &b->stack[b->depth - 1]);
  return rc;
}

/* Counts one more value against the file's limit. */
static int count_node(builder *b, yaml_mark_t m) {
  if (b->nodes >= ATOLL_MAX_NODES)
    return limit_error(b, m, "more than %d values in one file", ATOLL_MAX_NODES);
  b->nodes++;
  return 0;
}

static int open_collection(builder *b, atoll_ykind kind, yaml_mark_t m) {
  if (b->depth >= ATOLL_MAX_NESTING)
    return limit_error(b, m, "nesting deeper than %d levels", ATOLL_MAX_NESTING);
  int rc = count_node(b, m);
  if (rc)
    return rc;
  atoll_ynode *n = node_at(b, kind, m);
  if (!n)
    return ATOLL_ENOMEM;
  b->stack[b->depth++] = (open_node){.node = n};
  return 0;
}

static int close_collection(builder *b) {
  open_node o = b->stack[--b->depth];
  int rc = 0;
  if (o.n) {
    o.node->items = atoll_arena_calloc(b->arena, o.n, sizeof *o.node->items);
    if (o.node->items)
      memcpy(o.node->items, o.kids, o.n * sizeof *o.kids);
    else
      rc = ATOLL_ENOMEM;
  }
  o.node->n = o.node->kind == ATOLL_Y_MAP ? o.n / 2 : o.n;
  free(o.kids);
  atoll_strmap_free(&o.keys);
  if (rc)
    return rc;
  return add_node(b, o.node);
}

static void free_open(builder *b) {
  while (b->depth > 0) {
    open_node *o = &b->stack[--b->depth];
    free(o->kids);
    atoll_strmap_free(&o->keys);
  }
}

/* The byte at a 1-based line and column of the source (columns count bytes, which is exact for
 * the leading whitespace this is asked about), or NULL past the line's end. */
static const char *byte_at(const atoll_source *src, uint32_t line, uint32_t col) {
  const char *p = src->text, *end = src->text + src->len;
  for (uint32_t l = 1; l < line && p < end; p++)
    if (*p == '\n')
      l++;
  const char *line_start = p;
  for (p = line_start; p < end && *p != '\n' && (uint32_t)(p - line_start) + 1 < col; p++)
    ;
  return p < end && *p != '\n' ? p : NULL;
}

/* libyaml calls a tab where a token should start "found character that cannot start any token";
 * the cause, and the fix, is the tab. Returns true after recording that message. */
static bool tab_error(builder *b, uint32_t line, uint32_t col) {
  if (line != 1 || b->col_offset == 0) {
    const char *c = byte_at(b->src, line, col);
    if (c && *c == '\t') {
      bool indent = true;
      for (const char *q = c; q > b->src->text && q[-1] != '\n'; q--)
        indent = indent && (q[-1] == ' ' || q[-1] == '\t');
      atoll_diag_set(b->diag, b->src, line, col, NULL, "%s",
                     indent ? "tabs are not allowed for indentation (indent with spaces)"
                            : "a tab cannot start a value here (use spaces)");
      return true;
    }
  }
  return false;
}

/* libyaml's reader errors (control characters, invalid UTF-8) carry a byte offset, not a mark:
 * name the line and column of that byte, and the byte itself, so binary input is located. */
static bool reader_error(builder *b, const yaml_parser_t *p) {
  if (p->error != YAML_READER_ERROR || p->problem_offset >= b->src->len)
    return false;
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < p->problem_offset; i++) {
    if (b->src->text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  if (line == 1)
    col += b->col_offset;
  unsigned char c = (unsigned char)b->src->text[p->problem_offset];
  atoll_diag_set(b->diag, b->src, line, col, NULL, "%s (byte 0x%02x; is this a binary file?)",
                 p->problem ? p->problem : "unreadable input", c);
  return true;
}

static int parse_error(builder *b, const yaml_parser_t *p) {
  if (reader_error(b, p))
    return ATOLL_EPARSE;
  {
    uint32_t tline, tcol;
    mark_of(b, p->problem_mark, &tline, &tcol);
    if (tab_error(b, tline, tcol))
      return ATOLL_EPARSE;
  }
  /* An unclosed flow collection reports its problem at end of input; the opening bracket, in
   * context_mark, is where the user has to look. */
  yaml_mark_t m = p->problem_mark;
  bool at_end = m.index >= b->src->len;
  uint32_t line, col;
  if (p->context && at_end) {
    mark_of(b, p->context_mark, &line, &col);
    atoll_diag_set(b->diag, b->src, line, col, NULL, "YAML syntax error: %s (%s)", p->context,
                   p->problem ? p->problem : "unexpected end of input");
  } else if (p->context && (p->context_mark.line != m.line || p->context_mark.column != m.column)) {
    /* Name where the enclosing construct began: for an unclosed bracket that is the real culprit. */
    uint32_t cline, ccol;
    mark_of(b, p->context_mark, &cline, &ccol);
    mark_of(b, m, &line, &col);
    atoll_diag_set(b->diag, b->src, line, col, NULL, "YAML syntax error: %s %s (started at line %u, column %u)",
                   p->problem ? p->problem : "malformed input", p->context, cline, ccol);
  } else {
    mark_of(b, m, &line, &col);
    atoll_diag_set(b->diag, b->src, line, col, NULL, "YAML syntax error: %s%s%s",
                   p->problem ? p->problem : "malformed input", p->context ? " " : "", p->context ? p->context : "");
  }
  return ATOLL_EPARSE;
}

/* An explicit tag (!!str, !!int, !include ...) was dropped silently: `!!str 100` read as a number
 * while '100' was refused, and `!include x` read as the text x. No format here uses tags, so any
 * is refused rather than given a meaning. */
static int refuse_tag(builder *b, const yaml_event_t *e, const yaml_char_t *tag) {
  if (!tag)
    return 0;
  /* libyaml hands over the resolved tag; show the standard ones as written, "!!str". */
  const char *t = (const char *)tag, *std = "tag:yaml.org,2002:";
  bool is_std = strncmp(t, std, strlen(std)) == 0;
  uint32_t line, col;
  mark_of(b, e->start_mark, &line, &col);
  atoll_diag_set(b->diag, b->src, line, col, NULL, "YAML tags are not supported; remove '%s%.64s'",
                 is_std ? "!!" : "", is_std ? t + strlen(std) : t);
  return ATOLL_EPARSE;
}

static int on_event(builder *b, const yaml_event_t *e) {
  int tag_rc = refuse_tag(b, e,
                          e->type == YAML_SCALAR_EVENT           ? e->data.scalar.tag
                          : e->type == YAML_SEQUENCE_START_EVENT ? e->data.sequence_start.tag
                          : e->type == YAML_MAPPING_START_EVENT  ? e->data.mapping_start.tag
                                                                 : NULL);
  if (tag_rc)
    return tag_rc;
  switch (e->type) {
  case YAML_SCALAR_EVENT: {
    if (e->data.scalar.length > ATOLL_MAX_SCALAR_BYTES)
      return limit_error(b, e->start_mark, "a value longer than %d bytes", ATOLL_MAX_SCALAR_BYTES);
    int rc = count_node(b, e->start_mark);
    if (rc)
      return rc;
    atoll_ynode *n = node_at(b, ATOLL_Y_SCALAR, e->start_mark);
    if (!n)
      return ATOLL_ENOMEM;
    n->len = (uint32_t)e->data.scalar.length;
    n->str = atoll_arena_strndup(b->arena, (const char *)e->data.scalar.value, n->len);
    if (!n->str)
      return ATOLL_ENOMEM;
    n->plain = e->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    return add_node(b, n);
  }
  case YAML_SEQUENCE_START_EVENT:
    return open_collection(b, ATOLL_Y_SEQ, e->start_mark);
  case YAML_MAPPING_START_EVENT:
    return open_collection(b, ATOLL_Y_MAP, e->start_mark);
  case YAML_SEQUENCE_END_EVENT:
  case YAML_MAPPING_END_EVENT:
    return close_collection(b);
  case YAML_ALIAS_EVENT: {
    uint32_t line, col;
    mark_of(b, e->start_mark, &line, &col);
    atoll_diag_set(b->diag, b->src, line, col, NULL, "YAML aliases (*name) are not supported");
    return ATOLL_EPARSE;
  }
  case YAML_DOCUMENT_START_EVENT:
    if (b->root) {
      uint32_t line, col;
      mark_of(b, e->start_mark, &line, &col);
      atoll_diag_set(b->diag, b->src, line, col, NULL, "more than one YAML document in one file");
      return ATOLL_EPARSE;
    }
    return 0;
  default:
    return 0;
  }
}

int atoll_ytree_parse(atoll_arena *a, const atoll_source *src, uint32_t col_offset, atoll_ynode **root,
                      atoll_diag *d) {
  builder b = {.arena = a, .src = src, .col_offset = col_offset, .diag = d};
  yaml_parser_t p;
  if (!yaml_parser_initialize(&p))
    return ATOLL_ENOMEM;
  yaml_parser_set_input_string(&p, (const unsigned char *)src->text, src->len);
  int rc = 0;
  for (bool done = false; !done && rc == 0;) {
    yaml_event_t e;
    if (!yaml_parser_parse(&p, &e)) {
      rc = parse_error(&b, &p);
      break;
    }
    b.where = e.start_mark;
    rc = on_event(&b, &e);
    done = e.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&e);
  }
  if (rc == ATOLL_ENOMEM) {
    uint32_t line, col;
    mark_of(&b, b.where, &line, &col);
    atoll_diag_set(d, src, line, col, NULL, "%s", atoll_arena_failure(a));
  }
  free_open(&b);
  yaml_parser_delete(&p);
  *root = rc == 0 ? b.root : NULL;
  return rc;
}

/* A file past ATOLL_MAX_INPUT_BYTES: the error points at the line and column of the first byte
 * beyond the limit (buf holds the file up to it). */
static int too_large(atoll_diag *d, const char *path, const char *buf) {
  uint32_t line = 1, col = 1;
  for (size_t i = 0; i < (size_t)ATOLL_MAX_INPUT_BYTES; i++) {
    if (buf[i] == '\n')
      line++, col = 1;
    else
      col++;
  }
  atoll_source src = {.name = path, .text = buf, .len = ATOLL_MAX_INPUT_BYTES};
  atoll_diag_set(d, &src, line, col, NULL, "file larger than %d bytes (atoll's input limit, see docs/limits.md)",
                 (int)ATOLL_MAX_INPUT_BYTES);
  return ATOLL_ERANGE;
}

int atoll_source_read_file(atoll_arena *a, const char *path, atoll_source *out, atoll_diag *d) {
  atoll_source named = {.name = path};
  FILE *f = fopen(path, "rb");
  if (!f) {
    atoll_diag_set(d, &named, 0, 0, NULL, "cannot open: %s", strerror(errno));
    return ATOLL_ENOENT;
  }
  char *buf = NULL;
  size_t len = 0, cap = 0;
  int rc = 0;
  for (;;) {
    if (len > ATOLL_MAX_INPUT_BYTES) {
      rc = too_large(d, path, buf);
      break;
    }
    if (len + 4096 > cap) {
      /* One byte past the limit is enough to tell that the file exceeds it. */
      cap = cap ? cap * 2 : 65536;
      if (cap > (size_t)ATOLL_MAX_INPUT_BYTES + 1)
        cap = (size_t)ATOLL_MAX_INPUT_BYTES + 1;
      char *nb = realloc(buf, cap);
      if (!nb) {
        rc = ATOLL_ENOMEM;
        break;
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, cap - len, f);
    len += got;
    if (got == 0) {
      if (ferror(f)) {
        atoll_diag_set(d, &named, 0, 0, NULL, "read error: %s", strerror(errno));
        rc = ATOLL_EIO;
      }
      break;
    }
  }
  fclose(f);
  if (rc == 0) {
    char *text = atoll_arena_strndup(a, buf ? buf : "", len);
    char *name = atoll_arena_strdup(a, path);
    if (!text || !name)
      rc = ATOLL_ENOMEM;
    else
      *out = (atoll_source){.name = name, .text = text, .len = len};
  }
  if (rc == ATOLL_ENOMEM)
    atoll_diag_set(d, &named, 0, 0, NULL, "%s", atoll_arena_failure(a));
  free(buf);
  return rc;
}

int atoll_source_load_file(atoll_arena *a, const char *path, atoll_source **src, atoll_diag *d) {
  *src = atoll_arena_alloc(a, sizeof **src);
  if (!*src) {
    atoll_source named = {.name = path};
    atoll_diag_set(d, &named, 0, 0, NULL, "%s", atoll_arena_failure(a));
    return ATOLL_ENOMEM;
  }
  return atoll_source_read_file(a, path, *src, d);
}

int atoll_ytree_load_file(atoll_arena *a, const char *path, atoll_source **src, atoll_ynode **root, atoll_diag *d) {
  *root = NULL;
  int rc = atoll_source_load_file(a, path, src, d);
  if (rc == 0)
    rc = atoll_ytree_parse(a, *src, 0, root, d);
  return rc;
}

const atoll_ynode *atoll_ymap_get(const atoll_ynode *map, const char *key) {
  if (!map || map->kind != ATOLL_Y_MAP)
    return NULL;
  size_t klen = strlen(key);
  for (uint32_t i = 0; i < map->n; i++) {
    const atoll_ynode *k = map->items[2 * i];
    if (k->len == klen && memcmp(k->str, key, klen) == 0)
      return map->items[2 * i + 1];
  }
  return NULL;
}

bool atoll_yscalar_is(const atoll_ynode *n, const char *text) {
  return n && n->kind == ATOLL_Y_SCALAR && n->len == strlen(text) && memcmp(n->str, text, n->len) == 0;
}

atoll_ynode *atoll_ynode_new(atoll_arena *a, atoll_ykind kind, const atoll_ynode *where) {
  atoll_ynode *n = atoll_arena_alloc(a, sizeof *n);
  if (n) {
    n->kind = kind;
    if (where) {
      n->src = where->src;
      n->line = where->line;
      n->col = where->col;
    }
  }
  return n;
}

static int grow_items(atoll_arena *a, atoll_ynode *parent, uint32_t count, uint32_t extra) {
  /* Arena memory is not freed piecewise: growing copies the item array. --set grafts only a
   * handful of nodes, so the waste is bounded by the number of --set options. */
  atoll_ynode **items = atoll_arena_calloc(a, count + extra, sizeof *items);
  if (!items)
    return ATOLL_ENOMEM;
  if (count)
    memcpy(items, parent->items, count * sizeof *items);
  parent->items = items;
  return 0;
}

int atoll_yseq_append(atoll_arena *a, atoll_ynode *seq, atoll_ynode *item) {
  if (seq->kind != ATOLL_Y_SEQ)
    return ATOLL_EINVAL;
  int rc = grow_items(a, seq, seq->n, 1);
  if (rc == 0)
    seq->items[seq->n++] = item;
  return rc;
}

int atoll_ymap_put(atoll_arena *a, atoll_ynode *map, atoll_ynode *key, atoll_ynode *value) {
  if (map->kind != ATOLL_Y_MAP || key->kind != ATOLL_Y_SCALAR)
    return ATOLL_EINVAL;
  for (uint32_t i = 0; i < map->n; i++) {
    const atoll_ynode *k = map->items[2 * i];
    if (k->len == key->len && memcmp(k->str, key->str, key->len) == 0) {
      map->items[2 * i + 1] = value;
      return 0;
    }
  }
  int rc = grow_items(a, map, 2 * map->n, 2);
  if (rc == 0) {
    map->items[2 * map->n] = key;
    map->items[2 * map->n + 1] = value;
    map->n++;
  }
  return rc;
}
