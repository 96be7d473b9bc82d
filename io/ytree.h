/* A YAML (and JSON) document as a tree of nodes that remember where they came from.
 *
 * Built from libyaml's event stream rather than its document API so that aliases can be refused
 * (they could build cycles, and no atoll file needs them), duplicate keys caught with their
 * location, and nesting bounded. Marks are 1-based. JSON is read by the same code: libyaml parses
 * the JSON that REEF's tools write. */
#ifndef ATOLL_IO_YTREE_H
#define ATOLL_IO_YTREE_H

#include <stdbool.h>
#include <stdint.h>

#include "io/arena.h"
#include "io/diag.h"

typedef enum atoll_ykind { ATOLL_Y_SCALAR, ATOLL_Y_SEQ, ATOLL_Y_MAP } atoll_ykind;

typedef struct atoll_ynode {
  atoll_ykind kind;
  const atoll_source *src;
  uint32_t line, col;
  /* Scalars: the text, and whether it was plain (unquoted): only plain scalars are numbers,
   * booleans or null. */
  const char *str;
  uint32_t len;
  bool plain;
  /* Sequences: items[0..n). Mappings: n pairs, items[2i] a key (a scalar), items[2i+1] its value. */
  struct atoll_ynode **items;
  uint32_t n;
} atoll_ynode;

/* Parses src->text. *root is NULL for an empty document. col_offset is added to the column of
 * marks on the first line (used for --set values parsed out of a longer argument). Nesting, the
 * number of values and the length of a scalar are bounded (include/atoll/limits.h). */
int atoll_ytree_parse(atoll_arena *a, const atoll_source *src, uint32_t col_offset, atoll_ynode **root,
                      atoll_diag *d);
/* Reads a whole file into the arena as a source named by path; a file larger than
 * ATOLL_MAX_INPUT_BYTES is an error located where it passes the limit. */
int atoll_source_read_file(atoll_arena *a, const char *path, atoll_source *out, atoll_diag *d);
/* Reads a whole file into a new arena-owned source (*src), for loaders that keep the source. */
int atoll_source_load_file(atoll_arena *a, const char *path, atoll_source **src, atoll_diag *d);
/* Reads and parses a file: *src (arena-owned) names it in later messages; *root is NULL for an
 * empty document. */
int atoll_ytree_load_file(atoll_arena *a, const char *path, atoll_source **src, atoll_ynode **root, atoll_diag *d);

/* Mapping lookup: the value for key, or NULL. */
const atoll_ynode *atoll_ymap_get(const atoll_ynode *map, const char *key);
bool atoll_yscalar_is(const atoll_ynode *n, const char *text);
/* Builders used by --set to graft values into a tree. ymap_put replaces the value of an existing
 * key or adds the pair. */
atoll_ynode *atoll_ynode_new(atoll_arena *a, atoll_ykind kind, const atoll_ynode *where);
int atoll_yseq_append(atoll_arena *a, atoll_ynode *seq, atoll_ynode *item);
int atoll_ymap_put(atoll_arena *a, atoll_ynode *map, atoll_ynode *key, atoll_ynode *value);

#endif
