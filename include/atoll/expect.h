/* `expect:` bounds: "FIELD OP NUMBER" over a run report's fields.
 *
 * The field grammar lives here, in one table, so the scenario loader can reject a misspelt field
 * before anything runs and the report writer can resolve the same names. */
#ifndef ATOLL_EXPECT_H
#define ATOLL_EXPECT_H

#include <stddef.h>
#include <stdint.h>

#include "atoll/scenario.h"

typedef struct atoll_expect_error {
  const char *msg;  /* static text */
  uint32_t offset;  /* 0-based byte offset in the expression where the problem starts */
} atoll_expect_error;

/* Splits text into field, comparison and value. The field is copied into field_buf. Returns 0, or
 * ATOLL_EPARSE with *err filled: also for a value outside a double's range, and for a bound no
 * report field can meet (<= below 0, < 0 or below: every field is at least 0). */
int atoll_expect_parse(const char *text, char *field_buf, size_t field_size, atoll_cmp *cmp, double *value,
                       atoll_expect_error *err);

/* Checks a field path against the report grammar: "rt.norm_latency.p99",
 * "clients.NAME.latency_us.max", "total_norm_throughput", ... client_names lists the scenario's
 * clients. Returns 0 or ATOLL_ENOENT with *err filled (offset into field). */
int atoll_expect_field_check(const char *field, const char *const *client_names, uint32_t n_clients,
                             atoll_expect_error *err);

/* The grammar's fields one by one, for "did you mean": writes field i (0-based; each pattern with
 * each of its statistics) into buf, its client segment "*" replaced by client. Returns 0, ATOLL_ENOENT
 * when i is past the last field, or ATOLL_EINVAL when the field does not fit in size bytes. */
int atoll_expect_field_name(uint32_t i, const char *client, char *buf, size_t size);

/* Whether value satisfies the bound; margin is how far inside (> 0) or outside (< 0) it is. */
int atoll_expect_holds(atoll_cmp cmp, double bound, double value, double *margin);

#endif
