/* bench_wakeup: what waking a thread on another CPU costs here (docs/inss.md, "Native").
 *
 * The native CPU device's threads (command processor, CU workers, the runtime's scheduler) hand
 * work to each other through a mutex and a condition variable, several times per kernel. This
 * times that hand-off alone: two threads pinned to two CPUs, the first wakes the second, which
 * wakes the first back; one round trip is two wake-ups. Between round trips the first thread
 * sleeps `gap` us, so that, with nothing else running, both CPUs go idle before each round trip,
 * as they do between a fit's batches. On a virtual machine an idle CPU is halted in the host, and
 * waking it goes through the host; with other work running on the CPUs a wake-up is a preemption.
 * Run it alone and beside busy loops to compare (docs/inss.md gives the commands).
 *
 *   bench_wakeup [--round-trips N] [--gap-us G]   (defaults 4000 and 200)
 *
 * Prints the round trip's 10th, 50th, 90th and 99th percentiles in us, and the two CPUs used. */
#define _GNU_SOURCE /* pthread_setaffinity_np, CPU_SET */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int turn; /* 1: the partner's, 0: the timer's; guarded by mu */
static long round_trips = 4000;

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* The k-th CPU this process may run on, or -1. */
static int allowed_cpu(int k) {
  cpu_set_t s;
  if (sched_getaffinity(0, sizeof s, &s) != 0)
    return -1;
  for (int c = 0, seen = 0; c < CPU_SETSIZE; c++)
    if (CPU_ISSET(c, &s) && seen++ == k)
      return c;
  return -1;
}

static int pin(int cpu) {
  cpu_set_t s;
  CPU_ZERO(&s);
  CPU_SET(cpu, &s);
  return pthread_setaffinity_np(pthread_self(), sizeof s, &s);
}

static void *partner(void *arg) {
  if (pin(*(const int *)arg) != 0)
    fprintf(stderr, "bench_wakeup: could not pin the partner thread\n");
  for (long i = 0; i < round_trips; i++) {
    pthread_mutex_lock(&mu);
    while (turn != 1)
      pthread_cond_wait(&cv, &mu);
    turn = 0;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
  }
  return NULL;
}

static int by_value(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static int whole(const char *text, long lo, long hi, long *out) {
  char *end;
  long v = strtol(text, &end, 10);
  if (!*text || *end || v < lo || v > hi)
    return -1;
  *out = v;
  return 0;
}

int main(int argc, char **argv) {
  long gap_us = 200;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--round-trips") == 0 && i + 1 < argc && whole(argv[i + 1], 100, 10000000, &round_trips) == 0)
      i++;
    else if (strcmp(argv[i], "--gap-us") == 0 && i + 1 < argc && whole(argv[i + 1], 0, 1000000, &gap_us) == 0)
      i++;
    else {
      fprintf(stderr, "usage: bench_wakeup [--round-trips 100..10000000] [--gap-us 0..1000000]\n");
      return 2;
    }
  }
  int cpu[2] = {allowed_cpu(0), allowed_cpu(1)};
  if (cpu[0] < 0 || cpu[1] < 0) {
    fprintf(stderr, "bench_wakeup: needs two CPUs to run on, this process may use fewer\n");
    return 2;
  }
  long long *rt = malloc((size_t)round_trips * sizeof *rt);
  pthread_t t;
  if (!rt || pin(cpu[0]) != 0 || pthread_create(&t, NULL, partner, &cpu[1]) != 0) {
    fprintf(stderr, "bench_wakeup: cannot set up the two threads\n");
    free(rt);
    return 1;
  }
  for (long i = 0; i < round_trips; i++) {
    struct timespec gap = {.tv_sec = gap_us / 1000000, .tv_nsec = (gap_us % 1000000) * 1000};
    nanosleep(&gap, NULL);
    long long t0 = now_ns();
    pthread_mutex_lock(&mu);
    turn = 1;
    pthread_cond_broadcast(&cv);
    while (turn != 0)
      pthread_cond_wait(&cv, &mu);
    pthread_mutex_unlock(&mu);
    rt[i] = now_ns() - t0;
  }
  pthread_join(t, NULL);
  qsort(rt, (size_t)round_trips, sizeof *rt, by_value);
  printf("wake-up round trip between CPUs %d and %d, %ld round trips %ld us apart: "
         "p10 %.1f us, p50 %.1f us, p90 %.1f us, p99 %.1f us\n",
         cpu[0], cpu[1], round_trips, gap_us, rt[round_trips / 10] / 1e3, rt[round_trips / 2] / 1e3,
         rt[round_trips * 9 / 10] / 1e3, rt[round_trips * 99 / 100] / 1e3);
  free(rt);
  return 0;
}
