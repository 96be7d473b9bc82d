/* Raising a native measurement's priority (measure_priority.h). */
#include "tools/atoll/measure_priority.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void atoll__measure_priority_raise(int wanted, atoll_measure_priority *p) {
  memset(p, 0, sizeof *p);
  p->wanted = wanted;
  errno = 0;
  p->before = p->now = getpriority(PRIO_PROCESS, 0); /* -1 is a valid nice value: errno tells */
  if (errno) {
    snprintf(p->why, sizeof p->why, "getpriority: %s", strerror(errno));
    return;
  }
  if (wanted == p->before)
    return;
  if (setpriority(PRIO_PROCESS, 0, wanted) == 0) {
    p->now = wanted;
    return;
  }
  const int refused = errno;
  /* Unprivileged, RLIMIT_NICE's soft limit r allows nice values down to 20 - r. */
  struct rlimit rl;
  int floor_nice = p->before;
  if (getrlimit(RLIMIT_NICE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur <= 40)
    floor_nice = 20 - (int)rl.rlim_cur;
  if (floor_nice > wanted && floor_nice < p->before && setpriority(PRIO_PROCESS, 0, floor_nice) == 0)
    p->now = floor_nice;
  snprintf(p->why, sizeof p->why, "%s", strerror(refused));
}

void atoll__measure_priority_text(const atoll_measure_priority *p, char *out, size_t len) {
  if (p->now == p->before && p->now == p->wanted)
    snprintf(out, len, "nice %d (as found)", p->now);
  else if (p->now == p->wanted)
    snprintf(out, len, "nice %d (%s from %d)", p->now, p->now < p->before ? "raised" : "lowered", p->before);
  else
    snprintf(out, len, "nice %d (could not raise to %d: %s)", p->now, p->wanted, p->why[0] ? p->why : "refused");
}

bool atoll__measure_nice_parse(const char *text, int *out) {
  /* Digits after an optional '-' only: strtol alone also took " 5" and "+5". */
  const char *digits = text[0] == '-' ? text + 1 : text;
  if (!*digits || strspn(digits, "0123456789") != strlen(digits))
    return false;
  char *end = NULL;
  errno = 0;
  long v = strtol(text, &end, 10);
  if (*end || errno || v < -20 || v > 19)
    return false;
  *out = (int)v;
  return true;
}
