/* "Did you mean" for an unknown `expect:` field (expect_hint.h). */
#include "io/expect_hint.h"

#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/expect.h"
#include "io/suggest.h"

enum { FIELD_LEN = 128 };

/* The client the candidates name: the field's own client segment when it is one, else the client
 * closest to it; NULL when none is close (no field of the grammar could be meant). "" when the field
 * names no client. */
static const char *client_of(const char *field, const char *const *names, uint32_t n, char *seg, size_t size) {
  seg[0] = '\0';
  static const char prefix[] = "clients.";
  if (strncmp(field, prefix, sizeof prefix - 1) != 0)
    return seg;
  const char *s = field + sizeof prefix - 1, *dot = strchr(s, '.');
  size_t len = dot ? (size_t)(dot - s) : strlen(s);
  if (len >= size)
    return NULL;
  memcpy(seg, s, len);
  seg[len] = '\0';
  return atoll_suggest(seg, names, n); /* the name itself when it is a client (distance 0) */
}

const char *atoll_expect_hint(char *buf, size_t size, const char *field, const char *const *client_names,
                              uint32_t n_clients) {
  if (size)
    buf[0] = '\0';
  char seg[FIELD_LEN];
  const char *client = client_of(field, client_names, n_clients, seg, sizeof seg);
  if (!client)
    return buf;
  if (!client[0] && n_clients) /* a client's field typed without its client is offered with the first */
    client = client_names[0];
  uint32_t n = 0;
  char name[FIELD_LEN];
  while (atoll_expect_field_name(n, "", name, sizeof name) != ATOLL_ENOENT)
    n++;
  char (*fields)[FIELD_LEN] = calloc(n ? n : 1, sizeof *fields);
  const char **cands = calloc(n ? n : 1, sizeof *cands);
  uint32_t k = 0;
  for (uint32_t i = 0; fields && cands && i < n; i++)
    if (atoll_expect_field_name(i, client, fields[k], sizeof fields[k]) == ATOLL_OK)
      cands[k] = fields[k], k++;
  if (fields && cands)
    atoll_suggest_text(buf, size, field, cands, k);
  free(cands);
  free(fields);
  return buf;
}
