/* The simulated device's hooks drawn on a timeline (see trace_hooks.h). */
#include "sim/trace_hooks.h"

static void queue_depth(void *ctx, uint32_t stream, const char *name, uint32_t hq, uint32_t dq, int64_t now) {
  atoll_trace_hooks *h = ctx;
  atoll_timeline_queue_depth(h->tl, stream, name, hq, dq, now);
}

static void preempt_step(void *ctx, atoll_preempt_step step, uint32_t stream, const char *name, uint32_t count,
                         int64_t start_ns, int64_t end_ns) {
  atoll_trace_hooks *h = ctx;
  (void)stream;
  atoll_timeline_preempt_step(h->tl, step, name, count, start_ns, end_ns);
}

static void pad_part(void *ctx, uint32_t owner, const char *owner_name, int32_t part, const atoll_cmd *cmd,
                     uint32_t blocks, uint32_t cu_lo, uint32_t cu_hi, int64_t start_ns, int64_t end_ns) {
  atoll_trace_hooks *h = ctx;
  const char *kernel = NULL, *model = NULL;
  if (cmd->model < h->s->n_models && cmd->op < h->s->models[cmd->model].model.n_ops) {
    model = h->s->models[cmd->model].name;
    kernel = h->s->models[cmd->model].model.ops[cmd->op].name;
  }
  atoll_timeline_pad_part(h->tl, owner, owner_name, part, kernel ? kernel : "kernel", model, cmd->op, blocks, cu_lo,
                          cu_hi, start_ns, end_ns);
}

void atoll_trace_hooks_init(atoll_trace_hooks *h, atoll_timeline *tl, const atoll_scenario *s) {
  h->hooks = (atoll_simdev_hooks){.ctx = h, .queue_depth = queue_depth, .preempt_step = preempt_step,
                                  .pad_part = pad_part};
  h->tl = tl;
  h->s = s;
}
