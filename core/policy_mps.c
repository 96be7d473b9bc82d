/* mps-default and mps-static: every client a process of its own under CUDA MPS (docs/gslice.md),
 * so each has its own stream and hardware channel (atoll_stream_cfg.own_channel: no stream-switch
 * cost between them, unlike `streams`, whose clients are streams of one process), all running
 * concurrently. mps-default gives every client the whole GPU (MPS without provisioning: a
 * client's share: or cus: is not applied); mps-static binds each to the fixed share the scenario
 * gives it (share: or cus:, MPS with CUDA_MPS_ACTIVE_THREAD_PERCENTAGE), for the whole run (a
 * scenario that binds none gets equal shares; at most 16 clients are split so). Both
 * take the scenario's fixed batching (client batch:) as it is. */
#include "core/gslice.h"
#include "core/policy.h"

static void run_queue(atoll_core *c, uint32_t q, int64_t now) {
  (void)now;
  if (atoll__queue_activate(c, q))
    atoll__launch_rest(c, q);
}

static void setup_default(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  (void)c, (void)q;
  cfg->cus = (atoll_cuset){0};
  cfg->own_channel = true;
}

/* A scenario that binds none of a GPU's clients gets equal shares (100 / n %, GSLICE's Fig. 1
 * explicit allocation), so the one scenario runs under every policy; otherwise each client keeps
 * what it was given (an unbound one the whole GPU). */
static void setup_static(const atoll_core *c, uint32_t q, atoll_stream_cfg *cfg) {
  cfg->own_channel = true;
  const atoll_scenario *s = c->s;
  uint32_t client = q, g = s->clients[client].gpu, n = 0;
  for (uint32_t i = 0; i < s->n_clients; i++) {
    if (s->clients[i].gpu != g)
      continue;
    if (!atoll_cuset_is_empty(&s->clients[i].cus))
      return;
    n++;
  }
  uint32_t pcts[ATOLL_GSLICE_MAX_IFS] = {0};
  if (n == 0 || s->n_clients > ATOLL_GSLICE_MAX_IFS)
    return;
  for (uint32_t i = 0; i < s->n_clients; i++)
    pcts[i] = 100 / n;
  cfg->cus = atoll_gslice_layout(s, pcts, client);
}

const atoll_policy_ops atoll__policy_mps_default = {
    .queue_per_client = true,
    .setup_queue = setup_default,
    .on_queued = run_queue,
    .on_task_done = run_queue,
};

/* With several GPUs the report gives every client's share (docs/inss.md, "Report"): the shares are
 * told from a timer due at the start (the runner's recorder exists only once the core does). One
 * GPU's runs keep their events as they were (explore's schedules among them). */
static void init_static(atoll_core *c) {
  if (atoll_scenario_gpus(c->s) > 1)
    atoll__timer_set(c, c->dev.ops->now(c->dev.ctx), 0);
}

static void tell_shares(atoll_core *c, uint64_t cookie, int64_t now) {
  (void)cookie;
  for (uint32_t q = 0; q < c->n_queues && q < c->n_clients; q++) {
    if (!atoll_core_client_active(c, q))
      continue;
    atoll_stream_cfg cfg = {0};
    setup_static(c, q, &cfg);
    /* The equal split when setup_static made one, else the client's own share:/cus: (or all). */
    const atoll_cuset *set = atoll_cuset_is_empty(&cfg.cus) ? &c->s->clients[q].cus : &cfg.cus;
    uint32_t n = atoll_cuset_count(set), cus = c->s->gpu.cus ? c->s->gpu.cus : 1;
    uint32_t batch = c->s->clients[q].batch_max ? c->s->clients[q].batch_max : 1;
    atoll__share_changed(c, q, n ? (n * 100 + cus - 1) / cus : 100, batch, now);
  }
}

const atoll_policy_ops atoll__policy_mps_static = {
    .queue_per_client = true,
    .setup_queue = setup_static,
    .init = init_static,
    .on_queued = run_queue,
    .on_task_done = run_queue,
    .on_timer = tell_shares,
};
