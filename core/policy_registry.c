/* The core's policy table and the option helpers, generated from the registry
 * (include/atoll/policies.h): nothing here names a policy. */
#include <string.h>

#include "core/policy.h"

#define ATOLL_POLICY_DECLARE(id, text, ops) extern const atoll_policy_ops atoll__policy_##ops;
ATOLL_POLICY_LIST(ATOLL_POLICY_DECLARE)
#undef ATOLL_POLICY_DECLARE

static const atoll_policy_ops *const table[ATOLL_POLICY_COUNT] = {
#define ATOLL_POLICY_ENTRY(id, text, ops) [ATOLL_POLICY_##id] = &atoll__policy_##ops,
    ATOLL_POLICY_LIST(ATOLL_POLICY_ENTRY)
#undef ATOLL_POLICY_ENTRY
};

const atoll_policy_ops *atoll__policy_ops(atoll_policy_kind kind) {
  return (unsigned)kind < ATOLL_POLICY_COUNT ? table[kind] : NULL;
}

bool atoll_policy_place(const atoll_scenario *s, atoll_client *clients) {
  const atoll_policy_ops *p = atoll__policy_ops(s->policy.kind);
  return p && p->place && p->place(s, clients);
}

const char *atoll_policy_own_batches(atoll_policy_kind k) {
  const atoll_policy_ops *p = atoll__policy_ops(k);
  return p ? p->own_batches : NULL;
}

bool atoll_policy_queue_per_client(atoll_policy_kind kind) {
  const atoll_policy_ops *p = atoll__policy_ops(kind);
  return p && p->queue_per_client;
}

static const char *const rt_queue_names[] = {"fifo", "edf"};

static const atoll_policy_option common[] = {
    /* 0 leaves the depth to the policy (setup_queue), else to the device. */
    {.key = "dq_capacity", .type = ATOLL_OPT_U32, .store = ATOLL_STORE_U32, .offset = ATOLL_OPTION_AT(dq_capacity),
     .def = 0, .min = 1, .max = 1 << 20},
    {.key = "rt_queue", .type = ATOLL_OPT_ENUM, .store = ATOLL_STORE_U32, .offset = ATOLL_OPTION_AT(rt_queue),
     .def = ATOLL_RT_QUEUE_FIFO, .min = 0, .max = 1, .names = rt_queue_names, .what = "RT queue order"},
};

const atoll_policy_option *atoll_policy_common_options(uint32_t *n) {
  *n = sizeof common / sizeof common[0];
  return common;
}

const atoll_policy_option *atoll_policy_options(atoll_policy_kind k, uint32_t *n) {
  const atoll_policy_ops *p = atoll__policy_ops(k);
  *n = p ? p->n_options : 0;
  return p ? p->options : NULL;
}

int64_t atoll_policy_option_get(const atoll_policy_cfg *p, const atoll_policy_option *o) {
  const unsigned char *at = (const unsigned char *)p + o->offset;
  switch (o->store) {
  case ATOLL_STORE_BOOL: {
    bool v;
    memcpy(&v, at, sizeof v);
    return v;
  }
  case ATOLL_STORE_U32: {
    uint32_t v;
    memcpy(&v, at, sizeof v);
    return v;
  }
  default: {
    int64_t v;
    memcpy(&v, at, sizeof v);
    return v;
  }
  }
}

void atoll_policy_option_set(atoll_policy_cfg *p, const atoll_policy_option *o, int64_t v) {
  unsigned char *at = (unsigned char *)p + o->offset;
  if (o->store == ATOLL_STORE_BOOL) {
    bool b = v != 0;
    memcpy(at, &b, sizeof b);
  } else if (o->store == ATOLL_STORE_U32) {
    uint32_t u = (uint32_t)v;
    memcpy(at, &u, sizeof u);
  } else {
    memcpy(at, &v, sizeof v);
  }
}

atoll_policy_cfg atoll_policy_defaults(atoll_policy_kind k) {
  atoll_policy_cfg p = {.kind = k};
  uint32_t n = 0;
  const atoll_policy_option *o = atoll_policy_common_options(&n);
  for (uint32_t i = 0; i < n; i++)
    atoll_policy_option_set(&p, &o[i], o[i].def);
  o = atoll_policy_options(k, &n);
  for (uint32_t i = 0; i < n; i++)
    atoll_policy_option_set(&p, &o[i], o[i].def);
  return p;
}

uint32_t atoll_policy_batch_limit(const atoll_scenario *s, uint32_t client) {
  const atoll_policy_ops *p = atoll__policy_ops(s->policy.kind);
  uint32_t n = s->clients[client].batch_max > 1 ? s->clients[client].batch_max : 1;
  uint32_t own = p && p->batch_limit ? p->batch_limit(s, client) : 0;
  return own > n ? own : n;
}

const char *atoll_policy_finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  const atoll_policy_ops *p = atoll__policy_ops(s->policy.kind);
  return p && p->finish_options ? p->finish_options(s, given, bad) : NULL;
}
