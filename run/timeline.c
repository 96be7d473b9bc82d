/* The timeline vocabulary (timeline.h) written with the trace writer (trace.h).
 *
 * Track layout, so that every trace reads the same: the scheduler group's track 0 holds the
 * preemptions and mode-switch instants (the runner names it after the policy), track 1 the
 * real-time periods, and tracks STEP_TRACK + step the preemption steps. A BE part slot of a padded
 * launch gets stream track PART_TRACK + owner * MAX_PARTS + slot: consecutive padded launches of
 * one stream reuse the slots, and their spans never overlap, since a launch completes only when
 * all its parts have. */
#include "run/timeline.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

enum { MODE_TRACK = 1, STEP_TRACK = 2, PARTITION_TRACK = 20, PART_TRACK = 100000 };

static const char *const step_names[ATOLL_STEP_COUNT] = {"HQ reset", "preempt flag", "DQ eviction", "CU reset",
                                                         "restore"};

static bool on(const atoll_timeline *tl) { return tl && tl->trace && tl->trace->f; }

/* s as the inside of a JSON string, cut to fit in out. Names come from scenario files. */
static const char *json_text(char *out, size_t size, const char *s) {
  size_t k = 0;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p && k + 7 < size; p++) {
    if (*p == '"' || *p == '\\')
      k += (size_t)snprintf(out + k, size - k, "\\%c", *p);
    else if (*p < 0x20)
      k += (size_t)snprintf(out + k, size - k, "\\u%04x", *p);
    else
      out[k++] = (char)*p;
  }
  out[k] = '\0';
  return out;
}

void atoll_timeline_init(atoll_timeline *tl, atoll_trace *trace) {
  memset(tl, 0, sizeof *tl);
  tl->trace = trace;
  for (uint32_t s = 0; s < ATOLL_TIMELINE_MAX_STREAMS; s++)
    tl->hq[s] = tl->dq[s] = -1;
  if (!on(tl))
    return;
  atoll_trace_name_track(trace, ATOLL_TRACK_SCHED, MODE_TRACK, "mode");
}

void atoll_timeline_stream(atoll_timeline *tl, uint32_t stream, const char *name) {
  if (on(tl))
    atoll_trace_name_track(tl->trace, ATOLL_TRACK_STREAM, stream, name);
}

void atoll_timeline_kernel(atoll_timeline *tl, uint32_t stream, const char *name, bool rt, int64_t start_ns,
                           int64_t end_ns, const char *args_json) {
  if (on(tl))
    atoll_trace_span(tl->trace, ATOLL_TRACK_STREAM, stream, name, rt ? "rt" : "be", start_ns, end_ns - start_ns,
                     args_json);
}

/* One counter track per (stream, queue), named so that a stream's two queues sort together. */
static void depth_sample(atoll_timeline *tl, const char *queue, const char *stream_name, int64_t now, uint32_t v) {
  char name[96];
  snprintf(name, sizeof name, "%s %s", stream_name ? stream_name : "stream", queue);
  atoll_trace_counter(tl->trace, ATOLL_TRACK_QUEUES, name, "commands", now, v);
}

void atoll_timeline_queue_depth(atoll_timeline *tl, uint32_t stream, const char *stream_name, uint32_t hq,
                                uint32_t dq, int64_t now) {
  if (!on(tl))
    return;
  bool known = stream < ATOLL_TIMELINE_MAX_STREAMS;
  if (!known || tl->hq[stream] != (int32_t)hq)
    depth_sample(tl, "HQ", stream_name, now, hq);
  if (!known || tl->dq[stream] != (int32_t)dq)
    depth_sample(tl, "DQ", stream_name, now, dq);
  if (known)
    tl->hq[stream] = (int32_t)hq, tl->dq[stream] = (int32_t)dq;
}

void atoll_timeline_preempt_step(atoll_timeline *tl, atoll_preempt_step step, const char *stream_name,
                                 uint32_t count, int64_t start_ns, int64_t end_ns) {
  if (!on(tl) || (unsigned)step >= ATOLL_STEP_COUNT)
    return;
  if (!(tl->steps_named & (1u << step))) {
    tl->steps_named |= (uint8_t)(1u << step);
    atoll_trace_name_track(tl->trace, ATOLL_TRACK_SCHED, STEP_TRACK + (uint32_t)step, step_names[step]);
  }
  char args[200], name[128];
  if (stream_name)
    snprintf(args, sizeof args, "\"stream\":\"%s\",\"count\":%" PRIu32, json_text(name, sizeof name, stream_name),
             count);
  else
    snprintf(args, sizeof args, "\"count\":%" PRIu32, count);
  if (end_ns > start_ns)
    atoll_trace_span(tl->trace, ATOLL_TRACK_SCHED, STEP_TRACK + (uint32_t)step, step_names[step], "preempt", start_ns,
                     end_ns - start_ns, args);
  else
    atoll_trace_instant(tl->trace, ATOLL_TRACK_SCHED, STEP_TRACK + (uint32_t)step, step_names[step], "preempt",
                        start_ns, args);
}

void atoll_timeline_preemption(atoll_timeline *tl, int64_t at_ns, int64_t latency_ns, int64_t hq_reset_ns,
                               int64_t dq_evict_ns, int64_t cu_kill_ns, uint32_t evicted_kernels) {
  if (!on(tl))
    return;
  char args[200];
  snprintf(args, sizeof args,
           "\"hq_reset_us\":%.3f,\"dq_evict_us\":%.3f,\"cu_kill_us\":%.3f,\"evicted_kernels\":%" PRIu32,
           (double)hq_reset_ns / 1e3, (double)dq_evict_ns / 1e3, (double)cu_kill_ns / 1e3, evicted_kernels);
  atoll_trace_span(tl->trace, ATOLL_TRACK_SCHED, 0, "preemption", "preempt", at_ns, latency_ns, args);
}

void atoll_timeline_pad_part(atoll_timeline *tl, uint32_t owner, const char *owner_name, int32_t part,
                             const char *kernel, const char *model, uint32_t op, uint32_t blocks, uint32_t cu_lo,
                             uint32_t cu_hi, int64_t start_ns, int64_t end_ns) {
  if (!on(tl))
    return;
  char args[256], text[128];
  snprintf(args, sizeof args,
           "\"model\":\"%s\",\"op\":%" PRIu32 ",\"blocks\":%" PRIu32 ",\"cus\":\"%" PRIu32 "-%" PRIu32 "\"",
           json_text(text, sizeof text, model), op, blocks, cu_lo, cu_hi > cu_lo ? cu_hi - 1 : cu_lo);
  if (part < 0) {
    atoll_trace_span(tl->trace, ATOLL_TRACK_STREAM, owner, "RT part", "rt", start_ns, end_ns - start_ns, args);
    return;
  }
  uint32_t slot = (uint32_t)part % ATOLL_TIMELINE_MAX_PARTS;
  uint32_t track = PART_TRACK + owner * ATOLL_TIMELINE_MAX_PARTS + slot;
  if (owner < ATOLL_TIMELINE_MAX_STREAMS && !(tl->part_named[owner] & (1u << slot))) {
    tl->part_named[owner] |= (uint16_t)(1u << slot);
    char name[96];
    snprintf(name, sizeof name, "%s padding %" PRIu32, owner_name ? owner_name : "stream", slot);
    atoll_trace_name_track(tl->trace, ATOLL_TRACK_STREAM, track, name);
  }
  atoll_trace_span(tl->trace, ATOLL_TRACK_STREAM, track, kernel, "be", start_ns, end_ns - start_ns, args);
}

void atoll_timeline_share(atoll_timeline *tl, const char *client_name, uint32_t pct, uint32_t batch, int64_t now) {
  if (!on(tl))
    return;
  char name[96];
  snprintf(name, sizeof name, "%s GPU%%", client_name);
  atoll_trace_counter(tl->trace, ATOLL_TRACK_SCHED, name, "pct", now, pct);
  snprintf(name, sizeof name, "%s batch", client_name);
  atoll_trace_counter(tl->trace, ATOLL_TRACK_SCHED, name, "batch", now, batch);
}

void atoll_timeline_partition(atoll_timeline *tl, uint32_t step, const char *client_name, uint32_t pct,
                              int64_t start_ns, int64_t end_ns) {
  static const char *const names[] = {"shadow load", "share switch", "share refused (memory)"};
  if (!on(tl) || step > 2)
    return;
  /* Bit 7 of steps_named (the preemption steps use bits 0-4): the track is named. */
  if (!(tl->steps_named & 0x80u)) {
    tl->steps_named |= 0x80u;
    atoll_trace_name_track(tl->trace, ATOLL_TRACK_SCHED, PARTITION_TRACK, "re-partition");
  }
  char args[160], name[96];
  snprintf(args, sizeof args, "\"client\":\"%s\",\"pct\":%" PRIu32, json_text(name, sizeof name, client_name), pct);
  if (end_ns > start_ns)
    atoll_trace_span(tl->trace, ATOLL_TRACK_SCHED, PARTITION_TRACK, names[step], "partition", start_ns,
                     end_ns - start_ns, args);
  else
    atoll_trace_instant(tl->trace, ATOLL_TRACK_SCHED, PARTITION_TRACK, names[step], "partition", start_ns, args);
}

void atoll_timeline_mode(atoll_timeline *tl, bool realtime, int64_t now) {
  if (!on(tl))
    return;
  atoll_trace_instant(tl->trace, ATOLL_TRACK_SCHED, 0, realtime ? "real-time mode" : "normal mode", "mode", now, NULL);
  if (realtime && !tl->realtime) {
    tl->realtime_since_ns = now;
  } else if (!realtime && tl->realtime) {
    atoll_trace_span(tl->trace, ATOLL_TRACK_SCHED, MODE_TRACK, "real-time", "mode", tl->realtime_since_ns,
                     now - tl->realtime_since_ns, NULL);
  }
  tl->realtime = realtime;
}

void atoll_timeline_request(atoll_timeline *tl, uint32_t client, const char *client_name, const char *model, bool rt,
                            uint64_t request, int64_t arrival_ns, int64_t start_ns, int64_t done_ns) {
  if (!on(tl) || !atoll_trace_wants(tl->trace, arrival_ns, done_ns))
    return;
  /* The id names the request: client in the top 24 bits, its sequence number below. */
  uint64_t id = ((uint64_t)client << 40) | (request & ((1ull << 40) - 1));
  const char *cat = rt ? "rt" : "be";
  char args[224], text[128];
  snprintf(args, sizeof args, "\"request\":%" PRIu64 ",\"latency_us\":%.3f,\"model\":\"%s\"", request,
           (double)(done_ns - arrival_ns) / 1e3, json_text(text, sizeof text, model));
  atoll_trace_async_begin(tl->trace, ATOLL_TRACK_CLIENT, client_name, cat, id, arrival_ns, args);
  if (start_ns >= arrival_ns && start_ns <= done_ns) {
    atoll_trace_async_begin(tl->trace, ATOLL_TRACK_CLIENT, "queued", cat, id, arrival_ns, NULL);
    atoll_trace_async_end(tl->trace, ATOLL_TRACK_CLIENT, "queued", cat, id, start_ns);
    atoll_trace_async_begin(tl->trace, ATOLL_TRACK_CLIENT, "running", cat, id, start_ns, NULL);
    atoll_trace_async_end(tl->trace, ATOLL_TRACK_CLIENT, "running", cat, id, done_ns);
  }
  atoll_trace_async_end(tl->trace, ATOLL_TRACK_CLIENT, client_name, cat, id, done_ns);
}

void atoll_timeline_finish(atoll_timeline *tl, int64_t now) {
  if (on(tl) && tl->realtime)
    atoll_trace_span(tl->trace, ATOLL_TRACK_SCHED, MODE_TRACK, "real-time", "mode", tl->realtime_since_ns,
                     now - tl->realtime_since_ns, NULL);
  if (tl)
    tl->realtime = false;
}
