/* Policy options: every policy declares its own (core/policy_*.c), with type, default and range,
 * and readers (io/) and printers go through this table instead of naming any policy. */
#ifndef ATOLL_POLICY_H
#define ATOLL_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "atoll/scenario.h"

typedef enum atoll_option_type {
  ATOLL_OPT_BOOL, /* true | false */
  ATOLL_OPT_U32,  /* an integer in [min, max] */
  ATOLL_OPT_ENUM, /* one of names[0 .. max], stored as its index */
  ATOLL_OPT_PREDICTOR, /* a latency-predictor file, relative to the scenario: io/ reads it into
                         atoll_scenario.predictor and stores 1 (given) in the slot */
  ATOLL_OPT_INSS_MODEL /* InSS's fitted latency model (docs/inss.md), relative to the scenario: io/
                          reads it into atoll_scenario.inss and stores 1 (given) in the slot */
} atoll_option_type;

/* Where the value lives in atoll_policy_cfg: a named field's C type, or a param[] slot. */
typedef enum atoll_option_store { ATOLL_STORE_BOOL, ATOLL_STORE_U32, ATOLL_STORE_I64 } atoll_option_store;

typedef struct atoll_policy_option {
  const char *key;
  atoll_option_type type;
  atoll_option_store store;
  size_t offset;         /* into atoll_policy_cfg */
  int64_t def, min, max; /* default, and the range of a U32 (an ENUM's max is its last index) */
  const char *const *names; /* ENUM: the values' names */
  const char *what;         /* ENUM: what the value is, for messages ("RT queue order") */
} atoll_policy_option;

/* REEF's device queue depth (§4.2): reset and reef restrict the DQ to it, and reef keeps as many
 * RT kernels in flight under padding. The one place the number is written. */
enum { ATOLL_REEF_DQ_DEPTH = 4 };

#define ATOLL_OPTION_AT(field) offsetof(atoll_policy_cfg, field)

/* The options every policy takes (dq_capacity, rt_queue; `name` is the loader's own). */
const atoll_policy_option *atoll_policy_common_options(uint32_t *n);
/* The policy's own options; NULL with *n = 0 for none or an unknown kind. */
const atoll_policy_option *atoll_policy_options(atoll_policy_kind k, uint32_t *n);
int64_t atoll_policy_option_get(const atoll_policy_cfg *p, const atoll_policy_option *o);
void atoll_policy_option_set(atoll_policy_cfg *p, const atoll_policy_option *o, int64_t v);
/* A configuration of kind k with every option (common and own) at its default. */
atoll_policy_cfg atoll_policy_defaults(atoll_policy_kind k);
/* After the reader set the options it was given (bit i of `given`: own option i), applies the
 * policy's defaults that depend on the scenario and its rules across options. Returns NULL, or an
 * error message about own option *bad. */
const char *atoll_policy_finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad);
/* The most requests one model run of client `client` may hold under the scenario's policy: the
 * client's batch: maximum, or the larger batch the policy forms itself (gslice's SLAB and AIMD up to
 * its max_batch); at least 1. A device sizes a client's per-request buffers by it. */
uint32_t atoll_policy_batch_limit(const atoll_scenario *s, uint32_t client);
/* Why a client's batch: does not apply under policy k (gslice, inss and gpulet size their batches
 * themselves, abacus runs one query at a time), or NULL where the scenario's batcher works. */
const char *atoll_policy_own_batches(atoll_policy_kind k);
/* Before a run of several GPUs: the policy's own placement of the clients whose gpu: was not
 * given (inss), into clients (a copy of s's). true when a client moved. */
bool atoll_policy_place(const atoll_scenario *s, atoll_client *clients);

#endif
