/* atoll model info PROFILE: counts and totals of a model profile. */
#include <stdbool.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"

const atoll_subcommand atoll_cmd_model_def = {
    "model", atoll_cmd_model, "inspect model profiles (model info PROFILE)",
    "usage: atoll model info PROFILE.yaml [--gpu PRESET]\n"
    "\n"
    "Prints a model profile's op counts (kernels, copies, distinct kernels), tensor sizes, total\n"
    "blocks, the sum of kernel times and the measured model latency, which fields were derived,\n"
    "and what is known of each kernel's idempotence. Fields the profile omits are derived with the\n"
    "GPU preset it names (or --gpu PRESET, a preset name or file).\n"
    "\n"
    "exit: 0 ok; 2 bad input.\n"};

static void print_info(const char *path, const atoll_model *m) {
  atoll_model_stats st;
  atoll_model_stats_compute(m, &st);
  char a[32], b[32];
  /* A profile generated from layer shapes (tools/gen-layer-models.py) says so in its source; its
   * times are predictions for the GPU, not measurements on it. */
  bool generated = m->source && strstr(m->source, "not measured");
  printf("model      %s (%s %s)\n", m->name, generated ? "generated for" : "measured on", m->gpu);
  printf("profile    %s\n", path);
  if (m->source)
    printf("source     %s\n", m->source);
  printf("ops        %u: %u kernels (%u distinct, %u multi-version), %u memcpy, %u memset\n", m->n_ops, st.kernels,
         st.distinct_kernels, st.multi_version_kernels, st.memcpys, st.memsets);
  atoll_fmt_bytes(a, sizeof a, st.tensor_bytes);
  atoll_fmt_bytes(b, sizeof b, st.weight_bytes);
  printf("tensors    %u, %s (weights %s)\n", m->n_tensors, a, b);
  printf("blocks     %llu in all kernels\n", (unsigned long long)st.total_blocks);
  atoll_fmt_ns(a, sizeof a, st.sum_kernel_time_ns);
  printf("kernels    sum of standalone kernel times %s\n", a);
  if (m->measured_latency_ns > 0) {
    atoll_fmt_ns(a, sizeof a, m->measured_latency_ns);
    printf("latency    %s %s (model standalone)\n", a, generated ? "given by the profile, not measured" : "measured");
  } else {
    printf("latency    not measured\n");
  }
  printf("derived    block time for %u kernels, registers for %u kernels\n", st.derived_block_time,
         st.derived_registers);
  printf("idempotent %u kernels alone, %u restored from a group entry, %u not restorable, %u unknown\n",
         st.idempotent, st.group_restored, st.not_restorable, st.idem_unknown);
}

int atoll_cmd_model(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_model_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--gpu"};
  const char *gpu_arg;
  int rc = atoll_cli_parse(cmd, argc, argv, &o, extra, &gpu_arg, 1, false);
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  if (o.n_positional < 1 || strcmp(o.positional[0], "info") != 0)
    return atoll_cli_usage_error(cmd, "expected 'info PROFILE.yaml'");
  if (o.n_positional != 2)
    return atoll_cli_usage_error(cmd, "expected one PROFILE.yaml after 'info'");
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  atoll_gpu gpu, *gp = NULL;
  atoll_model m;
  rc = 0;
  if (gpu_arg) {
    const char *path = strchr(gpu_arg, '/') ? gpu_arg : atoll_gpu_find_preset(&a, gpu_arg, ".");
    if (!path) {
      const char *near = atoll_gpu_suggest_preset(&a, gpu_arg, ".");
      char hint[96] = "";
      if (near)
        snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
      int urc = atoll_cli_usage_error(cmd, "unknown GPU preset '%s'%s", gpu_arg, hint);
      atoll_arena_free(&a);
      return urc;
    }
    rc = atoll_gpu_load_file(&a, path, &gpu, &d);
    gp = &gpu;
  }
  if (rc == 0)
    rc = atoll_model_load_file(&a, o.positional[1], gp, &m, &d);
  if (rc == 0)
    print_info(o.positional[1], &m);
  atoll_arena_free(&a);
  return rc == 0 ? ATOLL_EXIT_OK : atoll_cli_report(&d);
}
