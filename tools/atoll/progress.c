/* The progress line (progress.h). */
#include "tools/atoll/progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { REDRAW_MS = 200, DEFAULT_DELAY_MS = 2000 };

static double monotonic_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(const atoll_progress *p) { return p->clock ? p->clock() : monotonic_s(); }

bool atoll_progress_wanted(bool quiet) { return !quiet && isatty(STDERR_FILENO); }

void atoll_progress_start(atoll_progress *p, FILE *out, const char *label, const char *unit, double total) {
  double (*clock)(void) = p->clock;
  *p = (atoll_progress){.out = out, .label = label, .unit = unit, .total = total, .clock = clock};
  const char *env = getenv("ATOLL_PROGRESS_DELAY_MS");
  long ms = env && *env ? strtol(env, NULL, 10) : DEFAULT_DELAY_MS;
  p->delay_s = (double)(ms < 0 ? 0 : ms) / 1000.0;
  p->start_s = p->last_s = out ? now_s(p) : 0;
}

/* A duration for humans: "850 ms", "12.5 s", "3 min 20 s", "2 h 05 min". */
static void fmt_duration(char *buf, size_t size, double s) {
  if (s < 1)
    snprintf(buf, size, "%.0f ms", s * 1000);
  else if (s < 60)
    snprintf(buf, size, "%.1f s", s);
  else if (s < 3600)
    snprintf(buf, size, "%d min %02d s", (int)(s / 60), (int)s % 60);
  else
    snprintf(buf, size, "%d h %02d min", (int)(s / 3600), (int)(s / 60) % 60);
}

static bool is_whole(double v) { return v < 1e15 && v > -1e15 && v == (double)(long long)v; }

/* A count: integers as such, fractions with two decimals (both of a pair alike). */
static void fmt_count(char *buf, size_t size, double v, bool whole) {
  if (whole)
    snprintf(buf, size, "%lld", (long long)v);
  else
    snprintf(buf, size, "%.2f", v);
}

const char *atoll_progress_format(char *buf, size_t size, const char *label, const char *unit, double done,
                                  double total, double elapsed_s) {
  char d[32], t[32], eta[32];
  bool whole = is_whole(done) && (total <= 0 || is_whole(total));
  fmt_count(d, sizeof d, done, whole);
  int n;
  if (total > 0) {
    fmt_count(t, sizeof t, total, whole);
    n = snprintf(buf, size, "%s: %s/%s %s (%.0f%%)", label, d, t, unit, 100.0 * done / total);
  } else {
    n = snprintf(buf, size, "%s: %s %s", label, d, unit);
  }
  if (n < 0 || (size_t)n >= size || elapsed_s <= 0)
    return buf;
  double rate = done / elapsed_s;
  /* The rate's unit is the count's first word per second ("s simulated" -> "s/s"). */
  char word[16];
  snprintf(word, sizeof word, "%.*s", (int)strcspn(unit, " "), unit);
  n += snprintf(buf + n, size - (size_t)n, rate >= 100 ? "  %.0f %s/s" : "  %.3g %s/s", rate, word);
  if (total > 0 && rate > 0 && done < total && (size_t)n < size) {
    fmt_duration(eta, sizeof eta, (total - done) / rate);
    snprintf(buf + n, size - (size_t)n, "  ETA %s", eta);
  }
  return buf;
}

void atoll_progress_update(atoll_progress *p, double done) {
  if (!p->out)
    return;
  double now = now_s(p);
  /* The first line waits only for the delay; later ones are at most every REDRAW_MS. */
  if (now - p->start_s < p->delay_s || (p->shown && now - p->last_s < REDRAW_MS / 1000.0))
    return;
  p->last_s = now;
  char line[160];
  atoll_progress_format(line, sizeof line, p->label, p->unit, done, p->total, now - p->start_s);
  /* Back to the line's start, the text, then erase what a longer previous line left. */
  fprintf(p->out, "\r%s\033[K", line);
  fflush(p->out);
  p->shown = true;
}

void atoll_progress_end(atoll_progress *p) {
  if (p->out && p->shown) {
    fputs("\r\033[K", p->out);
    fflush(p->out);
  }
  p->shown = false;
}
