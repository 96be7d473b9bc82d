/* The scheduling priority a native measurement runs at (`atoll fit inss --device`, docs/inss.md,
 * "Native"; `atoll native` and `atoll hil` with --nice, docs/native.md, "Priority"). Other
 * processes on the machine take the measuring threads' CPUs and lengthen what is measured; under
 * Linux's fair scheduler a thread's share of a contended CPU follows its nice value
 * (nice -20 weighs 88761 against nice 0's 1024), so a measurement raised to nice -20 keeps its
 * CPUs against ordinary load nearly whole. The process's threads created afterwards (the native
 * runtime's CU workers, command processor and clients) inherit the calling thread's nice value. */
#ifndef ATOLL_TOOLS_MEASURE_PRIORITY_H
#define ATOLL_TOOLS_MEASURE_PRIORITY_H

#include <stdbool.h>
#include <stddef.h>

typedef struct atoll_measure_priority {
  int before, now; /* the nice value found, and the one in force after the call */
  int wanted;
  /* Why `now` is not `wanted` (empty when it is): the system's refusal. */
  char why[96];
} atoll_measure_priority;

/* Sets the calling thread's nice value to `wanted` (-20..19); where the system refuses a raise
 * (no CAP_SYS_NICE), to the highest priority RLIMIT_NICE allows between the two. Fills p, whose
 * `why` says what failed (the text below prints it). */
void atoll__measure_priority_raise(int wanted, atoll_measure_priority *p);

/* Parses a --nice value, a whole number from -20 to 19; false for anything else. */
bool atoll__measure_nice_parse(const char *text, int *out);

/* "nice -20 (raised from 0)", "nice 0 (could not raise to -20: ...)", "nice 0 (as found)". */
void atoll__measure_priority_text(const atoll_measure_priority *p, char *out, size_t len);

#endif
