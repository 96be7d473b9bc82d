/* Timeline trace writer: Chrome trace-event JSON, streamed event by event.
 *
 * The file is the object form {"traceEvents":[...],"displayTimeUnit":"ns"}, one event per line.
 * A track group is a process (pid = group) and a track a thread (tid = index). A group's
 * process_name is written the first time the group is used or named, so a trace lists only the
 * groups it has. Times are integer nanoseconds printed as microseconds with exactly three
 * decimals by integer division, so no floating-point rounding can move an event. */
#include "run/trace.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <string.h>

#include "atoll/error.h"
#include "io/json_out.h"

static bool is_open(const atoll_trace *t) { return t && t->f; }

/* Whether [a, b] touches the window [from, to); with no window, everything does. */
static bool touches(const atoll_trace *t, int64_t a, int64_t b) {
  return t->to_ns <= t->from_ns || (b >= t->from_ns && a < t->to_ns);
}

int atoll_trace_wants(const atoll_trace *t, int64_t start_ns, int64_t end_ns) {
  return is_open(t) && touches(t, start_ns, end_ns);
}

void atoll_trace_set_window(atoll_trace *t, int64_t from_ns, int64_t to_ns) {
  if (t)
    t->from_ns = from_ns, t->to_ns = to_ns;
}

/* Every write goes through these two, which remember a failure for atoll_trace_close. */
static void put(atoll_trace *t, const char *s) {
  if (fputs(s, t->f) == EOF)
    t->failed = 1;
}

static void putf(atoll_trace *t, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (vfprintf(t->f, fmt, ap) < 0)
    t->failed = 1;
  va_end(ap);
}

/* A JSON string, escaped by the writer every JSON output shares (io/json_out.h). */
static void put_string(atoll_trace *t, const char *s) {
  if (atoll_json_write_string(t->f, s) == EOF)
    t->failed = 1;
}

/* ,"key":U.UUU with U.UUU the time in microseconds. The magnitude is taken in unsigned
 * arithmetic so that even INT64_MIN prints correctly. */
static void put_us(atoll_trace *t, const char *key, int64_t ns) {
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  putf(t, ",\"%s\":%s%" PRIu64 ".%03" PRIu64, key, ns < 0 ? "-" : "", mag / 1000, mag % 1000);
}

/* The process a group of the current GPU is drawn as. */
static uint64_t pid_of(const atoll_trace *t, atoll_track_group g) {
  return (uint64_t)t->gpu * ATOLL_TRACE_PIDS_PER_GPU + (unsigned)g;
}

/* Starts an event line: the separator, then {"ph":PH,"pid":P,"tid":I. */
static void event_begin(atoll_trace *t, const char *ph, atoll_track_group g, uint32_t index) {
  put(t, t->first ? "\n" : ",\n");
  t->first = 0;
  putf(t, "{\"ph\":\"%s\",\"pid\":%" PRIu64 ",\"tid\":%" PRIu32, ph, pid_of(t, g), index);
}

static const char *group_name(atoll_track_group g) {
  switch (g) {
  case ATOLL_TRACK_CU:
    return "CUs";
  case ATOLL_TRACK_STREAM:
    return "streams";
  case ATOLL_TRACK_CLIENT:
    return "clients";
  case ATOLL_TRACK_SCHED:
    return "scheduler";
  case ATOLL_TRACK_QUEUES:
    return "queues";
  }
  return NULL;
}

/* Whether the process_name of pid p is to be written now, and remembers it written. Pids of 64
 * and above (groups outside the enum, GPUs past the eighth) are not remembered and get their name
 * again on each use, which is still valid. */
static bool first_naming(atoll_trace *t, uint64_t p) {
  if (p < 32) {
    uint32_t bit = 1u << p;
    bool first = !(t->named_groups & bit);
    t->named_groups |= bit;
    return first;
  }
  if (p < 64) {
    uint64_t bit = (uint64_t)1 << p;
    bool first = !(t->named_pids & bit);
    t->named_pids |= bit;
    return first;
  }
  return true;
}

/* Writes the group's process_name once per GPU. Groups outside the enum are named "group N"; a
 * run of several GPUs names the GPU first ("GPU 1: CUs"). */
static void name_group(atoll_trace *t, atoll_track_group g) {
  if (!first_naming(t, pid_of(t, g)))
    return;
  char fallback[32], labelled[64];
  const char *name = group_name(g);
  if (!name) {
    snprintf(fallback, sizeof fallback, "group %u", (unsigned)g);
    name = fallback;
  }
  if (t->several_gpus) {
    snprintf(labelled, sizeof labelled, "GPU %" PRIu32 ": %s", t->gpu, name);
    name = labelled;
  }
  event_begin(t, "M", g, 0);
  put(t, ",\"name\":\"process_name\",\"args\":{\"name\":");
  put_string(t, name);
  put(t, "}}");
}

void atoll_trace_set_gpu(atoll_trace *t, uint32_t gpu, int of_several) {
  if (t)
    t->gpu = gpu, t->several_gpus = of_several != 0;
}

int atoll_trace_open_part(atoll_trace *part, const atoll_trace *whole) {
  memset(part, 0, sizeof *part);
  if (!is_open(whole))
    return ATOLL_OK;
  part->f = tmpfile();
  if (!part->f)
    return ATOLL_EIO;
  part->owns_file = 1;
  part->first = 1;
  part->from_ns = whole->from_ns, part->to_ns = whole->to_ns;
  return ATOLL_OK;
}

int atoll_trace_append_part(atoll_trace *whole, atoll_trace *part) {
  if (!is_open(part))
    return ATOLL_OK;
  int rc = part->failed || fflush(part->f) == EOF || fseek(part->f, 0, SEEK_SET) != 0 ? ATOLL_EIO : ATOLL_OK;
  if (rc == ATOLL_OK && is_open(whole) && !part->first) {
    /* The part's first event starts with a line break and no comma: it had no event before it. */
    if (!whole->first)
      put(whole, ",");
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, part->f)) > 0)
      if (fwrite(buf, 1, n, whole->f) != n)
        whole->failed = 1;
    if (ferror(part->f))
      rc = ATOLL_EIO;
    whole->first = 0;
  }
  fclose(part->f);
  part->f = NULL;
  return rc ? rc : whole && whole->failed ? ATOLL_EIO : ATOLL_OK;
}

/* The file's opening, on t->f. */
static int start(atoll_trace *t) {
  t->first = 1;
  put(t, "{\"traceEvents\":[");
  if (!t->failed)
    return ATOLL_OK;
  if (t->owns_file)
    fclose(t->f);
  t->f = NULL;
  return ATOLL_EIO;
}

int atoll_trace_open_stream(atoll_trace *t, FILE *f) {
  memset(t, 0, sizeof *t);
  t->f = f;
  return start(t);
}

int atoll_trace_open(atoll_trace *t, const char *path) {
  memset(t, 0, sizeof *t);
  if (strcmp(path, "-") == 0) {
    t->f = stdout;
  } else {
    t->f = fopen(path, "w");
    if (!t->f)
      return ATOLL_EIO;
    t->owns_file = 1;
  }
  return start(t);
}

void atoll_trace_name_track(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name) {
  if (!is_open(t))
    return;
  name_group(t, g);
  event_begin(t, "M", g, index);
  put(t, ",\"name\":\"thread_name\",\"args\":{\"name\":");
  put_string(t, name);
  put(t, "}}");
}

/* The fields every span and instant share after the timestamps. */
static void event_tail(atoll_trace *t, const char *name, const char *category, const char *args_json) {
  put(t, ",\"name\":");
  put_string(t, name);
  if (category) {
    put(t, ",\"cat\":");
    put_string(t, category);
  }
  if (args_json) {
    put(t, ",\"args\":{");
    put(t, args_json);
    put(t, "}");
  }
  put(t, "}");
}

void atoll_trace_span(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name, const char *category,
                      int64_t start_ns, int64_t dur_ns, const char *args_json) {
  if (!is_open(t) || !touches(t, start_ns, start_ns + dur_ns))
    return;
  name_group(t, g);
  event_begin(t, "X", g, index);
  put_us(t, "ts", start_ns);
  put_us(t, "dur", dur_ns);
  event_tail(t, name, category, args_json);
}

void atoll_trace_instant(atoll_trace *t, atoll_track_group g, uint32_t index, const char *name,
                         const char *category, int64_t at_ns, const char *args_json) {
  if (!is_open(t) || !touches(t, at_ns, at_ns))
    return;
  name_group(t, g);
  event_begin(t, "i", g, index);
  put_us(t, "ts", at_ns);
  /* Thread scope: the instant is drawn on its own track, not across the whole process. */
  put(t, ",\"s\":\"t\"");
  event_tail(t, name, category, args_json);
}

void atoll_trace_counter(atoll_trace *t, atoll_track_group g, const char *name, const char *series, int64_t at_ns,
                         int64_t value) {
  if (!is_open(t) || !touches(t, at_ns, at_ns))
    return;
  name_group(t, g);
  event_begin(t, "C", g, 0);
  put_us(t, "ts", at_ns);
  put(t, ",\"name\":");
  put_string(t, name);
  put(t, ",\"args\":{");
  put_string(t, series);
  putf(t, ":%" PRId64 "}}", value);
}

/* The fields of an async event after its phase: time, name, category and the id, as a string
 * (the format's ids are strings or numbers; a hex string keeps all 64 bits exact in readers that
 * hold numbers as doubles). */
static void async_event(atoll_trace *t, const char *ph, atoll_track_group g, const char *name, const char *category,
                        uint64_t id, int64_t at_ns, const char *args_json) {
  name_group(t, g);
  event_begin(t, ph, g, 0);
  put_us(t, "ts", at_ns);
  putf(t, ",\"id\":\"0x%" PRIx64 "\"", id);
  event_tail(t, name, category ? category : "async", args_json);
}

void atoll_trace_async_begin(atoll_trace *t, atoll_track_group g, const char *name, const char *category,
                             uint64_t id, int64_t at_ns, const char *args_json) {
  if (is_open(t))
    async_event(t, "b", g, name, category, id, at_ns, args_json);
}

void atoll_trace_async_end(atoll_trace *t, atoll_track_group g, const char *name, const char *category, uint64_t id,
                           int64_t at_ns) {
  if (is_open(t))
    async_event(t, "e", g, name, category, id, at_ns, NULL);
}

void atoll_trace_async(atoll_trace *t, atoll_track_group g, const char *name, const char *category, uint64_t id,
                       int64_t start_ns, int64_t end_ns, const char *args_json) {
  if (!atoll_trace_wants(t, start_ns, end_ns))
    return;
  async_event(t, "b", g, name, category, id, start_ns, args_json);
  async_event(t, "e", g, name, category, id, end_ns, NULL);
}

int atoll_trace_close(atoll_trace *t) {
  if (!is_open(t))
    return ATOLL_OK;
  put(t, "\n],\"displayTimeUnit\":\"ns\"}\n");
  if (fflush(t->f) == EOF || ferror(t->f))
    t->failed = 1;
  if (t->owns_file && fclose(t->f) == EOF)
    t->failed = 1;
  t->f = NULL;
  return t->failed ? ATOLL_EIO : ATOLL_OK;
}
