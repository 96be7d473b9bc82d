/* Helpers shared by the idem_checker tests: traces from text, entries compared op by op with
 * both values printed, and a per-byte brute-force checker that shares no code with the library. */
#ifndef ATOLL_IDEM_TEST_H
#define ATOLL_IDEM_TEST_H

#include "tests/ds/ds_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "idem/badset.h"
#include "idem/grow.h"
#include "idem/readers.h"
#include "idem/sweep.h"
#include "idem/trace.h"

#define NONE IDEM_NO_ENTRY

/* Reads a text trace held in a string; fails the test on a read error, printing the diag. */
static inline void trace_from_text(idem_trace *t, const char *text) {
  idem_trace_init(t);
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = idem_read_text(f, "test", t, &d);
  fclose(f);
  if (rc != ATOLL_OK)
    atoll_diag_print(&d, stderr);
  assert_rc(rc, ATOLL_OK);
}

/* The diag a bad text trace gives: "LINE:COL: message". */
static inline void text_error(const char *text, char *out, size_t size) {
  idem_trace t;
  idem_trace_init(&t);
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  assert_non_null(f);
  atoll_diag d;
  atoll_diag_clear(&d);
  int rc = idem_read_text(f, "t", &t, &d);
  fclose(f);
  idem_trace_free(&t);
  assert_rc(rc, ATOLL_EPARSE);
  snprintf(out, size, "%u:%u: %s", d.line, d.col, d.msg);
}

static inline void check_entries(const uint32_t *got, const uint32_t *want, uint32_t n, const char *what) {
  for (uint32_t i = 0; i < n; i++) {
    if (got[i] != want[i]) {
      print_error("%s: op %u has entry %s%d, expected %s%d\n", what, i, got[i] == NONE ? "none " : "",
                  got[i] == NONE ? -1 : (int)got[i], want[i] == NONE ? "none " : "", want[i] == NONE ? -1 : (int)want[i]);
      fail();
    }
  }
}

/* Searches a text trace with both the sweep and REEF's growth and checks each against want. */
static inline void expect_entries(const char *text, const uint32_t *want, uint32_t n) {
  idem_trace t;
  trace_from_text(&t, text);
  assert_u64(t.n_ops, n);
  uint32_t *got = malloc((size_t)n * sizeof *got);
  assert_non_null(got);
  assert_rc(idem_search(&t, got), ATOLL_OK);
  check_entries(got, want, n, "sweep");
  assert_rc(idem_search_grow(&t, got), ATOLL_OK);
  check_entries(got, want, n, "grow");
  free(got);
  idem_trace_free(&t);
}

/* The definition, byte by byte over [base, base + space): group j..i is idempotent iff no byte's
 * first access in it is a read while the group also writes it; entry[i] is the largest such j. */
static inline void brute_entries(const idem_trace *t, uint64_t base, uint32_t space, uint32_t *entry) {
  signed char *first = malloc(space);
  unsigned char *written = malloc(space);
  assert_true(first && written);
  for (uint32_t i = 0; i < t->n_ops; i++) {
    entry[i] = NONE;
    for (uint32_t j = i + 1; j-- > 0;) {
      memset(first, 0, space); /* 0 none, 1 read, 2 write */
      memset(written, 0, space);
      for (uint32_t k = j; k <= i; k++) {
        const idem_op *op = &t->ops[k];
        for (uint32_t a = 0; a < op->n_acc; a++) {
          const idem_access *x = &t->acc[op->first + a];
          for (uint64_t b = x->lo; b < x->hi; b++) {
            uint64_t at = b - base;
            if (!first[at])
              first[at] = x->write ? 2 : 1;
            if (x->write)
              written[at] = 1;
          }
        }
      }
      int ok = 1;
      for (uint32_t b = 0; b < space && ok; b++)
        ok = !(first[b] == 1 && written[b]);
      if (ok) {
        entry[i] = j;
        break;
      }
    }
  }
  free(first);
  free(written);
}

/* xorshift64*: a fixed-seed generator, so every randomised case replays identically. */
static inline uint64_t rng_next(uint64_t *s) {
  *s ^= *s >> 12;
  *s ^= *s << 25;
  *s ^= *s >> 27;
  return *s * 0x2545F4914F6CDD1DULL;
}
static inline uint32_t rng_below(uint64_t *s, uint32_t n) { return (uint32_t)(rng_next(s) % n); }

/* Prints a trace in the text format, to reproduce a failing random case by hand. */
static inline void print_trace(FILE *out, const idem_trace *t) {
  for (uint32_t i = 0; i < t->n_ops; i++) {
    fprintf(out, "%s %s   # op %u\n", idem_op_kind_name(t->ops[i].kind), t->ops[i].name, i);
    for (uint32_t a = 0; a < t->ops[i].n_acc; a++) {
      const idem_access *x = &t->acc[t->ops[i].first + a];
      fprintf(out, "%c 0x%llx %llu\n", x->write ? 'w' : 'r', (unsigned long long)x->lo,
              (unsigned long long)(x->hi - x->lo));
    }
  }
}

#endif
