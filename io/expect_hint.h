/* "Did you mean" for an `expect:` bound whose field the report grammar does not know. */
#ifndef ATOLL_IO_EXPECT_HINT_H
#define ATOLL_IO_EXPECT_HINT_H

#include <stddef.h>
#include <stdint.h>

/* Writes "; did you mean 'F'?" into buf, F the grammar's field (atoll_expect_field_name) closest to
 * field, or "" when none is close enough to be a typo. A client's field is offered with the
 * field's own client, or the client closest to it when the scenario has none of that name, so
 * "clients.cma.latency_us.max" becomes "clients.cam.latency_us.max". Returns buf. */
const char *atoll_expect_hint(char *buf, size_t size, const char *field, const char *const *client_names,
                              uint32_t n_clients);

#endif
