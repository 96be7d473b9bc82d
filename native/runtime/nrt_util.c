/* Small thread helpers of the native runtime: pinning and monotonic condition variables. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#include "atoll/error.h"
#include "nrt_internal.h"

/* Pins a thread to one CPU (modulo the CPUs this process may use). Benchmarks pin so that the CU
 * worker and the host threads do not trade places between measurements. */
int atoll__nrt_pin(pthread_t t, int cpu) {
  cpu_set_t allowed;
  if (cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0)
    return ATOLL_EINVAL;
  int n = CPU_COUNT(&allowed), want = cpu % (n > 0 ? n : 1), seen = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (!CPU_ISSET(c, &allowed))
      continue;
    if (seen++ == want) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(c, &one);
      return pthread_setaffinity_np(t, sizeof one, &one) == 0 ? 0 : ATOLL_EINVAL;
    }
  }
  return ATOLL_EINVAL;
}

void atoll_nrt_keep_off_sched_cpu(const atoll_nrt *r, pthread_t t) {
  cpu_set_t allowed;
  if (r->cfg.sched_cpu < 0 || sched_getaffinity(0, sizeof allowed, &allowed) != 0 || CPU_COUNT(&allowed) < 2)
    return;
  /* The scheduler's CPU, found as atoll__nrt_pin finds it: the sched_cpu-th allowed one, modulo. */
  int n = CPU_COUNT(&allowed), want = r->cfg.sched_cpu % n, seen = 0;
  for (int c = 0; c < CPU_SETSIZE; c++) {
    if (CPU_ISSET(c, &allowed) && seen++ == want) {
      CPU_CLR(c, &allowed);
      break;
    }
  }
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
