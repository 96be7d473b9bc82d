/* DART's cost model, stage allocation and response-time test (core/dart.h, docs/dart.md). */
#include "core/dart.h"

#include <math.h>

double atoll_dart_cpu_speedup(uint32_t cores) {
  if (cores <= 1)
    return 1.0;
  return (double)cores / (1.0 + ATOLL_CPU_SERIAL_FRACTION * (double)(cores - 1));
}

double atoll_dart_op_flops(const atoll_model *m, uint32_t op) {
  if (m->op_flops && m->op_flops[op] > 0)
    return m->op_flops[op];
  const atoll_op *o = &m->ops[op];
  return o->kind == ATOLL_OP_KERNEL ? (double)o->shape.time_ns * ATOLL_GPU_EQUIV_FLOPS_PER_NS : 0.0;
}

int64_t atoll_dart_op_ns(const atoll_node *n, const atoll_model *m, uint32_t op, uint32_t batch) {
  const atoll_op *o = &m->ops[op];
  double b = batch ? (double)batch : 1.0;
  if (n->kind == ATOLL_NODE_GPU) {
    if (o->kind != ATOLL_OP_KERNEL)
      return (int64_t)llround((double)o->copy_time_ns * b);
    return (int64_t)llround((double)o->shape.time_ns * (1.0 + ATOLL_GPU_BATCH_SLOPE * (b - 1.0)));
  }
  if (o->kind != ATOLL_OP_KERNEL)
    return 0;
  /* Measured on one core of the native CPU device: the node's cores divide it as they divide FLOPs. */
  if (m->op_cpu_ns && m->op_cpu_ns[op] > 0)
    return (int64_t)llround((double)m->op_cpu_ns[op] * b / atoll_dart_cpu_speedup(n->cores));
  double gflops = n->gflops_per_core * atoll_dart_cpu_speedup(n->cores);
  return (int64_t)llround(atoll_dart_op_flops(m, op) * b / gflops);
}

/* Lexicographic: the most loaded node first, then the task's own summed utilization (its
 * latency), so that ties in the maximum -- frequent when other tasks already load one node most --
 * do not split a task across slow nodes for nothing. */
static bool better(double m, double own, double bm, double bown) {
  const double eps = 1e-12;
  if (m < bm - eps)
    return true;
  return m <= bm + eps && own < bown - eps;
}

double atoll_dart_partition(uint32_t L, uint32_t N, const double *u, const double *w, uint32_t *node_of,
                            double *M, uint32_t *arg, uint32_t scratch_n) {
  if (L == 0 || N == 0 || scratch_n < 2 * (L + 1) * N)
    return -1.0;
  /* M[n][k]: the most loaded node's utilization with layers 1..n on nodes 1..k, and OWN[n][k] the
   * task's own utilization summed over them; arg[n][k]: x, the layers 1..x on nodes 1..k-1 (x = n:
   * node k takes none). */
  double *OWN = M + (size_t)(L + 1) * N;
#define AT(n, k) ((size_t)(n) * N + (k))
  /* M counts every node's load, the task's and what the node carried before (w), so that it is the
   * most loaded node's utilization; the constant w changes no choice but the tie-break's. */
  for (uint32_t k = 0; k < N; k++)
    M[AT(0, k)] = k ? fmax(M[AT(0, k - 1)], w[k]) : w[0], OWN[AT(0, k)] = 0.0, arg[AT(0, k)] = 0;
  for (uint32_t n = 1; n <= L; n++) {
    /* k = 0: every layer so far on the first node. */
    double own = 0;
    for (uint32_t y = 0; y < n; y++)
      own += u[(size_t)y * N];
    M[AT(n, 0)] = w[0] + own, OWN[AT(n, 0)] = own, arg[AT(n, 0)] = 0;
    for (uint32_t k = 1; k < N; k++) {
      double best = fmax(M[AT(n, k - 1)], w[k]), best_own = OWN[AT(n, k - 1)]; /* node k takes no layer */
      uint32_t bx = n;
      double tail = 0;
      for (uint32_t x = n; x-- > 0;) { /* node k takes layers x+1..n */
        tail += u[(size_t)x * N + k];
        double v = fmax(M[AT(x, k - 1)], w[k] + tail), vo = OWN[AT(x, k - 1)] + tail;
        if (better(v, vo, best, best_own))
          best = v, best_own = vo, bx = x;
      }
      M[AT(n, k)] = best, OWN[AT(n, k)] = best_own, arg[AT(n, k)] = bx;
    }
  }
  double result = M[AT(L, N - 1)];
  uint32_t n = L;
  for (uint32_t k = N; k-- > 0;) {
    uint32_t x = k == 0 ? 0 : arg[AT(n, k)];
    for (uint32_t y = x; y < n; y++)
      node_of[y] = k;
    n = x;
  }
#undef AT
  return result;
}

uint32_t atoll_dart_be_batch(const atoll_scenario *s, uint32_t client) {
  const atoll_client *c = &s->clients[client];
  if (c->cls != ATOLL_CLASS_BE || (s->policy.kind != ATOLL_POLICY_DART && s->policy.kind != ATOLL_POLICY_BASE_GPU))
    return 1;
  if (c->batch_max > 1)
    return c->batch_max;
  return s->policy.param[0] > 1 ? (uint32_t)s->policy.param[0] : 1;
}
