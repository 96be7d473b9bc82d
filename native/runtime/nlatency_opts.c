/* Parsing of the preemption-latency options (nrun.h atoll_nlatency_parse; docs/native-gpu.md,
 * "Preemption latency options"). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/suggest.h"
#include "native/runtime/nrun.h"

/* The number after NAME= in [p, p + n), within [lo, hi]; false when absent or out of range. */
static bool value_of(const char *p, size_t n, size_t name_len, long lo, long hi, long *out) {
  if (n <= name_len + 1 || p[name_len] != '=')
    return false;
  char buf[24];
  size_t len = n - name_len - 1;
  if (len >= sizeof buf)
    return false;
  memcpy(buf, p + name_len + 1, len);
  buf[len] = '\0';
  char *end;
  long v = strtol(buf, &end, 10);
  if (*end != '\0' || v < lo || v > hi)
    return false;
  *out = v;
  return true;
}

int atoll_nlatency_parse(const char *text, atoll_npreempt_tuning *tuning, uint32_t *rt_reserve_cus, char *err,
                         size_t err_len) {
  static const char *const names[] = {"dense-points", "kill-poll", "top-priority", "rt-sm-reserve", "persistent-be"};
  atoll_npreempt_tuning t = {0};
  uint32_t reserve = 0;
  const char *p = text ? text : "";
  if (*p == '\0') {
    snprintf(err, err_len, "empty option list: expected dense-points, kill-poll=S, top-priority, rt-sm-reserve=N");
    return ATOLL_EINVAL;
  }
  while (*p) {
    const size_t n = strcspn(p, ",");
    const size_t name_len = strcspn(p, ",=");
    long v = 0;
    if (n == 12 && strncmp(p, "dense-points", 12) == 0) {
      t.dense_points = 1;
    } else if (n == 12 && strncmp(p, "top-priority", 12) == 0) {
      t.top_priority = 1;
    } else if (n == 13 && strncmp(p, "persistent-be", 13) == 0) {
      t.persistent_be = 1;
    } else if (name_len == 9 && strncmp(p, "kill-poll", 9) == 0) {
      if (!value_of(p, n, 9, 0, 8, &v)) {
        snprintf(err, err_len, "'%.*s': kill-poll=S wants S from 0 to 8 (poll 2^S times as often)", (int)n, p);
        return ATOLL_EINVAL;
      }
      t.kill_poll_shift = (uint8_t)v;
    } else if (name_len == 13 && strncmp(p, "rt-sm-reserve", 13) == 0) {
      if (!value_of(p, n, 13, 1, 4096, &v)) {
        snprintf(err, err_len, "'%.*s': rt-sm-reserve=N wants N CUs from 1", (int)n, p);
        return ATOLL_EINVAL;
      }
      reserve = (uint32_t)v;
    } else {
      char name[64], hint[64];
      snprintf(name, sizeof name, "%.*s", (int)(name_len < sizeof name ? name_len : sizeof name - 1), p);
      snprintf(err, err_len, "unknown option '%.*s'%s (expected dense-points, kill-poll=S, top-priority, "
               "rt-sm-reserve=N, persistent-be)", (int)n, p, atoll_suggest_text(hint, sizeof hint, name, names, 5));
      return ATOLL_EINVAL;
    }
    p += n;
    if (*p == ',') {
      p++;
      if (*p == '\0') {
        snprintf(err, err_len, "an option is missing after the last ','");
        return ATOLL_EINVAL;
      }
    }
  }
  *tuning = t;
  *rt_reserve_cus = reserve;
  return 0;
}
