/* Typed reading of a YAML tree, with errors that say where and what.
 *
 * A reader keeps the path of keys from the root to the node being read ("clients[1].arrival"),
 * so every error names both its location in the file and its place in the document. Readers
 * accept exactly what the formats document: only plain scalars are numbers or booleans, unknown
 * keys are errors, numbers are range-checked. */
#ifndef ATOLL_IO_YREAD_H
#define ATOLL_IO_YREAD_H

#include <stdbool.h>
#include <stdint.h>

#include "io/arena.h"
#include "io/diag.h"
#include "io/ytree.h"

enum { ATOLL_YREAD_MAX_PATH = 16 };

typedef struct atoll_yread {
  atoll_arena *arena;
  atoll_diag *diag;
  const char *seg[ATOLL_YREAD_MAX_PATH];
  int32_t idx[ATOLL_YREAD_MAX_PATH]; /* used where seg is NULL: an index, printed "[i]" */
  int depth;
} atoll_yread;

void atoll_yread_init(atoll_yread *r, atoll_arena *a, atoll_diag *d);
void atoll_yread_push_key(atoll_yread *r, const char *key);
void atoll_yread_push_index(atoll_yread *r, uint32_t i);
void atoll_yread_pop(atoll_yread *r);
/* Error at node n (or at no location when n is NULL); always returns ATOLL_EPARSE. */
int atoll_yread_error(atoll_yread *r, const atoll_ynode *n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Checks that n is a mapping whose keys are all in keys[0..nkeys) and fills vals[i] with the value
 * of keys[i] or NULL. what names the mapping in messages ("client", "arrival"). */
int atoll_yread_map(atoll_yread *r, const atoll_ynode *n, const char *what, const char *const *keys,
                    uint32_t nkeys, const atoll_ynode **vals);
/* An allocation failed while reading n: the error at n says why (atoll_arena_failure()). */
int atoll_yread_oom(atoll_yread *r, const atoll_ynode *n);
/* Error "missing required key" at the mapping unless v is set. */
int atoll_yread_require(atoll_yread *r, const atoll_ynode *map, const atoll_ynode *v, const char *key);
int atoll_yread_seq(atoll_yread *r, const atoll_ynode *n, const char *what);
/* Error at n (a list or mapping) when it holds more than max items: "more than MAX WHAT". */
int atoll_yread_count(atoll_yread *r, const atoll_ynode *n, const char *what, uint32_t max);

int atoll_yread_str(atoll_yread *r, const atoll_ynode *n, const char **out);
/* [A-Za-z0-9_.-]+, at most ATOLL_MAX_NAME_BYTES long */
int atoll_yread_name(atoll_yread *r, const atoll_ynode *n, const char **out);
int atoll_yread_bool(atoll_yread *r, const atoll_ynode *n, bool *out);
int atoll_yread_u64(atoll_yread *r, const atoll_ynode *n, uint64_t min, uint64_t max, uint64_t *out);
int atoll_yread_u32(atoll_yread *r, const atoll_ynode *n, uint32_t min, uint32_t max, uint32_t *out);
/* A finite number in [min, max]; min_exclusive makes the lower bound strict. */
int atoll_yread_double(atoll_yread *r, const atoll_ynode *n, double min, double max, bool min_exclusive,
                       double *out);
/* One year bounds every time atoll reads (atoll_yread_time_ns): far beyond any run, far inside
 * int64 nanoseconds. The trace importers hold what they write to it. */
#define ATOLL_YREAD_MAX_TIME_NS (365.0 * 24 * 3600 * 1e9)
/* A time in the unit scale_ns (1000 for _us, 1e6 for _ms), rounded to whole nanoseconds, at most
 * ATOLL_YREAD_MAX_TIME_NS. */
int atoll_yread_time_ns(atoll_yread *r, const atoll_ynode *n, double scale_ns, bool allow_zero, int64_t *out);
/* One of names[0..count): *out is the index. what names the field ("policy", "arrival kind"). */
int atoll_yread_enum(atoll_yread *r, const atoll_ynode *n, const char *what, const char *const *names,
                     uint32_t count, uint32_t *out);
/* Evaluates expr with key pushed on r's path, so errors inside it name the key; assigns and
 * yields the result through the caller's `int rc`. */
#define WITH_KEY(r, key, expr) (atoll_yread_push_key((r), (key)), rc = (expr), atoll_yread_pop((r)), rc)

/* The path of keys as text, e.g. "clients[1].arrival.rate_hz". */
void atoll_yread_path(const atoll_yread *r, char *buf, size_t size);

#endif
