/* Loops that keep the CPUs running during a native measurement (measure_awake.h). */
#define _GNU_SOURCE /* gettid */
#include "tools/atoll/measure_awake.h"

#include <stdbool.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static void *spin(void *arg) {
  atoll_measure_awake *a = arg;
  /* Linux gives each thread its own nice value: this one alone goes to the lowest priority. At
   * the measurement's own priority a loop would take half a CPU from it: then it does not run. */
  if (setpriority(PRIO_PROCESS, (id_t)gettid(), ATOLL_MEASURE_AWAKE_NICE) != 0)
    return NULL;
  __atomic_fetch_add(&a->lowered, 1, __ATOMIC_RELAXED);
  while (!atomic_load_explicit(&a->stop, memory_order_relaxed))
    for (int i = 0; i < 1024; i++)
      __asm__ __volatile__("" ::: "memory"); /* a step the compiler cannot drop */
  return NULL;
}

void atoll__measure_awake_start(uint32_t n, atoll_measure_awake *a) {
  a->n = 0;
  a->lowered = 0;
  atomic_init(&a->stop, false);
  if (n > ATOLL_MEASURE_AWAKE_MAX)
    n = ATOLL_MEASURE_AWAKE_MAX;
  a->threads = n ? calloc(n, sizeof *a->threads) : NULL;
  for (uint32_t i = 0; a->threads && i < n; i++) {
    if (pthread_create(&a->threads[a->n], NULL, spin, a) != 0)
      break;
    a->n++;
  }
}

void atoll__measure_awake_print(FILE *out, const atoll_measure_awake *a, uint32_t asked, const char *verb) {
  const uint32_t ran = (uint32_t)a->lowered;
  fprintf(out, "%u loop%s at nice %d %s the CPUs running (--keep-awake)", ran, ran == 1 ? "" : "s",
          ATOLL_MEASURE_AWAKE_NICE, verb);
  if (ran < asked)
    fprintf(out, ", %u more asked for did not run (no thread, or its priority could not be lowered)", asked - ran);
}

void atoll__measure_awake_stop(atoll_measure_awake *a) {
  atomic_store(&a->stop, true);
  for (uint32_t i = 0; i < a->n; i++)
    pthread_join(a->threads[i], NULL);
  free(a->threads);
  a->threads = NULL; /* n and lowered stay: what ran, for the report */
}
