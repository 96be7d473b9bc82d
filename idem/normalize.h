/* One operation's access lines reduced to what the group search needs.
 *
 * Within one op, each byte's first access decides (docs/idempotence.md): a byte first read is an
 * input of the op, a byte first written is produced by it. The search needs three disjoint lists:
 *   read_only    first access a read, never written by the op;
 *   in_place     first access a read, written afterwards: the op clobbers its own input;
 *   write_first  first access a write (reads after it see the op's own output).
 * Most ops touch each byte once; that case is found by sorting the lines and needs no set algebra.
 * Otherwise the lines are replayed in order on core/ds interval sets (seen, first-read, written). */
#ifndef ATOLL_IDEM_NORMALIZE_H
#define ATOLL_IDEM_NORMALIZE_H

#include <stdint.h>

#include "core/ds/ivset.h"
#include "idem/ivbuf.h"
#include "idem/trace.h"

typedef struct idem_rlist {
  struct atoll_interval *r; /* disjoint ranges, in no particular order */
  uint32_t n, cap;
} idem_rlist;

typedef struct idem_norm {
  idem_rlist read_only, in_place, write_first;
  /* Scratch, kept between ops so a long trace allocates only while its ops keep growing. */
  idem_access *sorted;
  uint32_t cap_sorted;
  idem_ivbuf seen, first_read, written, one, tmp, out;
} idem_norm;

int idem_norm_init(idem_norm *nm);
void idem_norm_free(idem_norm *nm);
/* Fills the three lists from acc[0..n), given in the tracer's order. */
int idem_norm_op(idem_norm *nm, const idem_access *acc, uint32_t n);

#endif
