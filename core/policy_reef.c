/* reef: reset-based preemption plus dynamic kernel padding (§5, preempt.c and dkp.c): in real-time
 * mode the RT task's kernels are launched up to the RT DQ's depth at a time, each padded with BE
 * blocks from the BE tasks waiting at their restart points. Options dkp (default on),
 * multi_version (default on when some kernel has versions; it needs dkp) and pad_guard (default
 * on: atoll's guard that pads only with the RT client's measured slack, pad_guard.h). */
#include "core/preempt.h"

static const atoll_preempt_style style = {.reset_based = true, .padding = true};

enum { OPT_DKP, OPT_MULTI_VERSION, OPT_PAD_GUARD };
static const atoll_policy_option options[] = {
    [OPT_DKP] = {.key = "dkp", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL, .offset = ATOLL_OPTION_AT(dkp),
                 .def = 1, .max = 1},
    [OPT_MULTI_VERSION] = {.key = "multi_version", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_BOOL,
                           .offset = ATOLL_OPTION_AT(multi_version), .def = 0, .max = 1},
    /* atoll's padding guard (pad_guard.h): pad only with the slack the RT client has shown. */
    [OPT_PAD_GUARD] = {.key = "pad_guard", .type = ATOLL_OPT_BOOL, .store = ATOLL_STORE_I64,
                       .offset = ATOLL_OPTION_AT(param[ATOLL_PREEMPT_PAD_GUARD_PARAM]), .def = 1, .max = 1},
    ATOLL_PREEMPT_RESET_OPTIONS,
};

static bool any_versions(const atoll_scenario *s) {
  for (uint32_t m = 0; m < s->n_models; m++)
    for (uint32_t i = 0; i < s->models[m].model.n_ops; i++)
      if (s->models[m].model.ops[i].n_versions > 0)
        return true;
  return false;
}

static const char *finish_options(atoll_scenario *s, uint64_t given, uint32_t *bad) {
  atoll_policy_cfg *p = &s->policy;
  if (!(given & (1u << OPT_MULTI_VERSION)))
    p->multi_version = p->dkp && any_versions(s);
  if (p->multi_version && !p->dkp) {
    *bad = OPT_MULTI_VERSION;
    return "multi_version selects padding kernels: it needs dkp: true";
  }
  /* With no versions to choose from it changes nothing, yet the summary said "multi_version on". */
  if (p->multi_version && !any_versions(s)) {
    *bad = OPT_MULTI_VERSION;
    return "multi_version chooses among kernel versions, and no model here has any; leave it out";
  }
  /* The guard limits padding; with dkp off there is none, so a pad_guard given either way would
   * read as having an effect it has not. */
  if ((given & (1u << OPT_PAD_GUARD)) && !p->dkp) {
    *bad = OPT_PAD_GUARD;
    return "pad_guard limits padding: it needs dkp: true (or leave pad_guard out)";
  }
  return NULL;
}

ATOLL_PREEMPT_POLICY(reef, style, options, sizeof options / sizeof options[0], finish_options);
