/* Small thread helpers of the native runtime: pinning and monotonic condition variables. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "atoll/error.h"
#include "native/runtime/nrt_internal.h"

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
