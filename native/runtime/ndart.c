/* dart's stage pipeline for the native runner (ndart.h). */
#include "native/runtime/ndart.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"

bool atoll_ndart_wanted(const atoll_scenario *s) {
  return s->policy.kind == ATOLL_POLICY_DART && (s->n_nodes > 0 || s->node_search_cores > 0);
}

int atoll_ndart_build(const atoll_scenario *s, uint32_t cus, atoll_ndart *d, char *err, size_t err_len) {
  memset(d, 0, sizeof *d);
  int rc = atoll_dart_plan_for(s, &d->plan);
  if (rc) {
    snprintf(err, err_len, "dart: no stage plan over the scenario's nodes (%s)",
             rc == ATOLL_EINVAL ? "no configuration passes the response-time test" : "out of memory");
    return rc;
  }
  uint32_t next = 0;
  for (uint32_t k = 0; k < d->plan.n_nodes; k++) {
    const atoll_node *n = &d->plan.nodes[k];
    memset(&d->pipe.node_cus[k], 0, sizeof d->pipe.node_cus[k]); /* empty */
    if (n->kind != ATOLL_NODE_CPU)
      continue; /* a GPU node: the whole device's queues */
    if (next + n->cores > cus) {
      snprintf(err, err_len, "dart: the CPU nodes need %u CUs or more, the device has %u (--cus)", next + n->cores,
               cus);
      atoll_ndart_free(d);
      return ATOLL_EINVAL;
    }
    atoll_cuset_add_range(&d->pipe.node_cus[k], next, next + n->cores - 1);
    next += n->cores;
  }
  uint32_t nc = s->n_clients;
  d->wcet_ns = calloc((size_t)(nc ? nc : 1) * ATOLL_DART_MAX_NODES, sizeof *d->wcet_ns);
  d->period_ns = calloc(nc ? nc : 1, sizeof *d->period_ns);
  if (!d->wcet_ns || !d->period_ns) {
    atoll_ndart_free(d);
    snprintf(err, err_len, "dart: out of memory");
    return ATOLL_ENOMEM;
  }
  for (uint32_t c = 0; c < nc; c++) {
    d->period_ns[c] = atoll_dart_period_ns(&s->clients[c]);
    for (uint32_t st = 0; st < d->plan.clients[c].n_stages; st++) {
      double planned = (double)atoll_dart_stage_ns(s, &d->plan, c, st, 1);
      d->wcet_ns[(size_t)c * ATOLL_DART_MAX_NODES + st] =
          (int64_t)(planned * ATOLL_NDART_WCET_FACTOR) + ATOLL_NDART_WCET_SLACK_NS;
    }
  }
  d->pipe.n_nodes = d->plan.n_nodes;
  d->pipe.clients = d->plan.clients;
  d->pipe.wcet_ns = d->wcet_ns;
  d->pipe.period_ns = d->period_ns;
  return 0;
}

void atoll_ndart_free(atoll_ndart *d) {
  atoll_dart_plan_free(&d->plan);
  free(d->wcet_ns);
  free(d->period_ns);
  d->wcet_ns = d->period_ns = NULL;
}
