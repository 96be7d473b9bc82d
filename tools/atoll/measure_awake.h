/* Keeping the CPUs out of their idle state while a native fit measures (`atoll fit inss --device
 * cpu`, docs/inss.md, "Native"). On a virtual machine an idle CPU is halted in the host, and a
 * thread woken on it waits for the host to run that CPU again: bench_wakeup measured a hand-off
 * between two CPUs at 28.6-32.8 us (median) after 200 us idle against 13.1-16.2 us with the CPUs
 * running. A CU alone on the device leaves the other CPUs idle for the length of its kernels, a
 * pair keeps them busy, so the fit's solo and co-located figures would differ by this cost and its
 * spread. One loop per CPU at the lowest priority (nice 19) keeps every CPU running; a measured
 * thread (nice -20 by default) that wakes there preempts it. The loops' occasional slice is a
 * disturbance like any other process's (inss_disturb.h): its batches are left out. */
#ifndef ATOLL_TOOLS_MEASURE_AWAKE_H
#define ATOLL_TOOLS_MEASURE_AWAKE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum { ATOLL_MEASURE_AWAKE_MAX = 256, ATOLL_MEASURE_AWAKE_NICE = 19 };

typedef struct atoll_measure_awake {
  pthread_t *threads;
  uint32_t n;         /* loops running */
  atomic_bool stop;
  int lowered;        /* loops that took nice 19 and ran (one that cannot lower itself stops) */
} atoll_measure_awake;

/* Starts n loops (at most ATOLL_MEASURE_AWAKE_MAX), each lowering its own nice value to 19 before
 * it spins; a->n says how many threads started (fewer only when the system refuses a thread). */
void atoll__measure_awake_start(uint32_t n, atoll_measure_awake *a);

/* Stops and joins the loops a started (none: nothing to do); a->n and a->lowered keep what ran. */
void atoll__measure_awake_stop(atoll_measure_awake *a);

/* Writes what ran, after a stop, without a newline: "N loops at nice 19 VERB the CPUs running
 * (--keep-awake)", and how many of the `asked` did not run. */
void atoll__measure_awake_print(FILE *out, const atoll_measure_awake *a, uint32_t asked, const char *verb);

#endif
