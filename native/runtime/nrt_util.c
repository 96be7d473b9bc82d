/* Small thread helpers of the native runtime: pinning, the RT class and monotonic condition variables. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>

#include "atoll/error.h"
#include "native/runtime/nrt_internal.h"

static atomic_bool rt_fifo_allowed = true;

void atoll_nrt_set_rt_fifo(bool try_fifo) { atomic_store(&rt_fifo_allowed, try_fifo); }

/* SCHED_FIFO at ATOLL_NRT_FIFO_PRIO, else the highest RT priority below it that RLIMIT_RTPRIO lets
 * an unprivileged process use; false (the thread keeps its normal priority) where none is allowed. */
bool atoll__nrt_take_rt_class(void) {
  if (!atomic_load(&rt_fifo_allowed))
    return false;
  for (int prio = ATOLL_NRT_FIFO_PRIO; prio >= 1; prio--) {
    struct sched_param sp = {.sched_priority = prio};
    if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp) == 0)
      return true;
  }
  return false;
}

/* The index-th CPU of `allowed` (modulo their number): how a CPU "index" given to the runtime
 * (cfg.sched_cpu) names a CPU this process may use. -1 if there is none. */
static int nth_cpu(const cpu_set_t *allowed, int index) {
  int n = CPU_COUNT(allowed), want = index % (n > 0 ? n : 1), seen = 0;
  for (int c = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, allowed) && seen++ == want)
      return c;
  return -1;
}

/* Pins a thread to one CPU (modulo the CPUs this process may use). Benchmarks pin so that the CU
 * worker and the host threads do not trade places between measurements. */
int atoll__nrt_pin(pthread_t t, int cpu) {
  cpu_set_t allowed, one;
  if (cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || (cpu = nth_cpu(&allowed, cpu)) < 0)
    return ATOLL_EINVAL;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  return pthread_setaffinity_np(t, sizeof one, &one) == 0 ? 0 : ATOLL_EINVAL;
}

void atoll_nrt_keep_off_sched_cpu(const atoll_nrt *r, pthread_t t) {
  cpu_set_t allowed;
  if (r->cfg.sched_cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2)
    return;
  int cpu = nth_cpu(&allowed, r->cfg.sched_cpu); /* where atoll__nrt_pin put the scheduler */
  if (cpu < 0)
    return;
  CPU_CLR(cpu, &allowed);
  pthread_setaffinity_np(t, sizeof allowed, &allowed);
}

/* Names a thread "atoll-WHAT" or "atoll-WHATi" (i >= 0), as ps, top, gdb and perf show it: a
 * timeline of the runtime's threads (perf sched timehist) says which thread ran where. Best effort:
 * the name is cut to the 15 characters Linux keeps. */
void atoll_nrt_name_thread(pthread_t t, const char *what, int i) {
  char name[64];
  if (i >= 0)
    snprintf(name, sizeof name, "atoll-%s%d", what, i);
  else
    snprintf(name, sizeof name, "atoll-%s", what);
  name[15] = '\0';
  pthread_setname_np(t, name);
}

/* Condition variables time out against CLOCK_MONOTONIC, the runtime's clock. */
int atoll__nrt_cond_init(pthread_cond_t *cv) {
  pthread_condattr_t a;
  if (pthread_condattr_init(&a) != 0)
    return ATOLL_ENOMEM;
  int rc = pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
  if (rc == 0)
    rc = pthread_cond_init(cv, &a);
  pthread_condattr_destroy(&a);
  return rc == 0 ? 0 : ATOLL_ENOMEM;
}
