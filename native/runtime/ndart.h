/* dart's stage pipeline for the native runner (docs/dart.md, "Native"): the plan of Eq. 7-8 over
 * the scenario's nodes (run/dart_plan.h), each CPU node given CUs of the device of its own, and
 * every RT stage a WCET budget, handed to the core (atoll_core_limits.dart). */
#ifndef ATOLL_NATIVE_RUNTIME_NDART_H
#define ATOLL_NATIVE_RUNTIME_NDART_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/dart.h"
#include "run/dart_plan.h"

/* An RT stage's budget: its planned time times this, plus the slack below. The planned time is
 * the profile's (measured on the device where `cpu_us:` is given, else the cost model's), and a
 * real device's stage varies around it with the machine's load. */
#define ATOLL_NDART_WCET_FACTOR 1.5
#define ATOLL_NDART_WCET_SLACK_NS 1000000

typedef struct atoll_ndart {
  atoll_dart_plan plan;
  atoll_dart_pipeline pipe;
  int64_t *wcet_ns;   /* [client * ATOLL_DART_MAX_NODES + stage] */
  int64_t *period_ns; /* per client */
} atoll_ndart;

/* Whether s runs dart's pipeline natively: policy dart with `nodes:`. */
bool atoll_ndart_wanted(const atoll_scenario *s);
/* Builds the pipeline for s on a device of `cus` CUs: CPU nodes take consecutive CUs in node
 * order (cores CUs each), a GPU node the whole device. ATOLL_EINVAL with a message when the CPU
 * nodes need more CUs than the device has or the plan cannot be built. Free with atoll_ndart_free. */
int atoll_ndart_build(const atoll_scenario *s, uint32_t cus, atoll_ndart *out, char *err, size_t err_len);
void atoll_ndart_free(atoll_ndart *d);

#endif
