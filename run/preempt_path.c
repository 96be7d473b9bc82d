/* preempt_path.c — a preemption's critical path from device timestamps (preempt_path.h). */
#include "run/preempt_path.h"

static int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

bool atoll_preempt_path(int64_t at, int64_t flag, int64_t drain, int64_t kill, int64_t rt_start,
                        int64_t out[ATOLL_PATH_STEPS]) {
  for (int i = 0; i < ATOLL_PATH_STEPS; i++)
    out[i] = 0;
  if (flag <= 0 || rt_start <= at || rt_start < flag)
    return false;
  const int64_t f = clamp(flag, at, rt_start);
  /* A step not seen ends with the flag: it adds nothing. */
  const int64_t d = drain > 0 ? clamp(drain, f, rt_start) : f;
  const int64_t k = kill > 0 ? clamp(kill, f, rt_start) : f;
  const int64_t first = d < k ? d : k, last = d < k ? k : d;
  out[ATOLL_PATH_FLAG] = f - at;
  /* The step that ended first holds the path from the flag; the other from there to its end. */
  out[d <= k ? ATOLL_PATH_DRAIN : ATOLL_PATH_KILL] = first - f;
  out[d <= k ? ATOLL_PATH_KILL : ATOLL_PATH_DRAIN] = last - first;
  out[ATOLL_PATH_DISPATCH] = rt_start - last;
  return true;
}

const char *atoll_preempt_path_name(int step) {
  static const char *names[ATOLL_PATH_STEPS] = {"flag write", "DQ drain", "kill", "RT dispatch"};
  return step >= 0 && step < ATOLL_PATH_STEPS ? names[step] : "?";
}
