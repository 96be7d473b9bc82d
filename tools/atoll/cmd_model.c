/* atoll model info PROFILE: counts and totals of a model profile; atoll model knee PROFILE: its
 * latency and throughput over GPU% shares, and the knee (sim/knee.h, docs/gslice.md). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_gpu_fit.h"
#include "io/json_out.h"
#include "sim/knee.h"

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "tools/atoll/report_out.h"
#include "io/suggest.h"

const atoll_subcommand atoll_cmd_model_def = {
    "model", atoll_cmd_model, "inspect model profiles (model info PROFILE, model knee PROFILE)",
    "usage: atoll model info PROFILE.yaml [--gpu PRESET]\n"
    "       atoll model knee PROFILE.yaml --gpu PRESET [--batch B] [--json FILE|-] [--plot]\n"
    "\n"
    "info prints a model profile's op counts (kernels, copies, distinct kernels), tensor sizes, total\n"
    "blocks, the sum of kernel times and the measured model latency, which fields were derived,\n"
    "and what is known of each kernel's idempotence. Fields the profile omits are derived with the\n"
    "GPU preset it names, looked up as a scenario looks it up; --gpu PRESET (a preset name or file)\n"
    "supplies that preset from elsewhere: a profile is of the GPU it was measured on, and another\n"
    "GPU's preset is refused.\n"
    "\n"
    "knee runs the model alone on the simulated GPU PRESET, one batch of B requests (default 1) at a\n"
    "time, bound to a share of 10, 15, ..., 100 % of its CUs (an MPS client), and prints the latency\n"
    "and throughput at each share and the knee: the smallest share whose throughput is within 10 %\n"
    "of the sweep's best (docs/gslice.md, \"Knee points\").\n"
    "  --json FILE|-   write {\"knee_pct\", \"batch\", \"curve\": [{\"pct\", \"latency_us\", \"throughput_rps\"}]}\n"
    "  --plot          draw the throughput curve as text, the knee marked\n"
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

static void print_knee(const char *name, uint32_t batch, const atoll_knee_point *k, uint32_t knee, bool plot) {
  printf("model %s, batch %u: latency and throughput alone on a share of the GPU\n", name, batch);
  printf("%5s %12s %14s\n", "GPU%", "latency us", "throughput/s");
  double best = 0;
  for (uint32_t i = 0; i < ATOLL_KNEE_POINTS; i++)
    best = k[i].throughput_rps > best ? k[i].throughput_rps : best;
  for (uint32_t i = 0; i < ATOLL_KNEE_POINTS; i++) {
    printf("%5u %12.1f %14.1f", k[i].pct, k[i].latency_us, k[i].throughput_rps);
    if (plot) {
      int bar = best > 0 ? (int)(50.0 * k[i].throughput_rps / best + 0.5) : 0;
      printf("  %.*s", bar, "##################################################");
    }
    printf("%s\n", k[i].pct == knee ? "  <- knee" : "");
  }
  printf("knee %u %% (the smallest share within %d %% of the best throughput)\n", knee, ATOLL_KNEE_TOL_PCT);
}

/* What write_knee_json writes (atoll_cli_write_file's callback). */
typedef struct knee_json {
  uint32_t batch, knee;
  const atoll_knee_point *k;
} knee_json;

static int write_knee_json(FILE *f, const void *ctx) {
  const knee_json *j = ctx;
  fprintf(f, "{\"knee_pct\": %u, \"batch\": %u, \"curve\": [", j->knee, j->batch);
  for (uint32_t i = 0; i < ATOLL_KNEE_POINTS; i++)
    fprintf(f, "%s{\"pct\": %u, \"latency_us\": %.3f, \"throughput_rps\": %.3f}", i ? ", " : "", j->k[i].pct,
            j->k[i].latency_us, j->k[i].throughput_rps);
  fprintf(f, "]}\n");
  return 0; /* a failed write is the caller's to say (atoll_cli_write_file) */
}

int atoll_cmd_model(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_model_def;
  atoll_run_opts o;
  static const char *const extra[] = {"--gpu", "--batch", "--json"};
  const char *vals[3];
  const char *gpu_arg;
  bool plot = false;
  /* --plot takes no value: taken out before the common parser sees it. */
  char **args = calloc((size_t)argc + 1, sizeof *args);
  int n_args = 0;
  for (int i = 0; args && i < argc; i++) {
    if (strcmp(argv[i], "--plot") == 0)
      plot = true;
    else
      args[n_args++] = argv[i];
  }
  if (!args)
    return ATOLL_EXIT_BAD_INPUT;
  int rc = atoll_cli_parse(cmd, n_args, args, &o, extra, vals, 3, false);
  free(args);
  gpu_arg = vals[0];
  if (rc == ATOLL_CLI_HELP) {
    atoll_cli_print_help(cmd, stdout);
    return ATOLL_EXIT_OK;
  }
  if (rc)
    return rc;
  if (o.n_positional < 1)
    return atoll_cli_usage_error(cmd, "expected 'info PROFILE.yaml' or 'knee PROFILE.yaml --gpu PRESET'");
  bool knee = strcmp(o.positional[0], "knee") == 0;
  if (!knee && strcmp(o.positional[0], "info") != 0) {
    static const char *const subcommands[] = {"info", "knee"};
    char hint[64];
    return atoll_cli_usage_error(cmd, "unknown subcommand '%s'%s (expected 'info' or 'knee')", o.positional[0],
                                 atoll_suggest_text(hint, sizeof hint, o.positional[0], subcommands, 2));
  }
  if (o.n_positional != 2)
    return atoll_cli_usage_error(cmd, "expected one PROFILE.yaml after '%s'", o.positional[0]);
  if (!knee && (vals[1] || vals[2] || plot))
    return atoll_cli_usage_error(cmd, "--batch, --json and --plot are knee's options");
  if (knee && !gpu_arg)
    return atoll_cli_usage_error(cmd, "knee needs --gpu PRESET (the GPU the shares are of)");
  uint32_t batch = 1;
  if (vals[1]) {
    uint64_t b;
    if (!atoll_cli_parse_uint(vals[1], 1, ATOLL_MAX_BATCH, &b))
      return atoll_cli_usage_error(cmd, "--batch takes 1..%d, not '%s'", ATOLL_MAX_BATCH, vals[1]);
    batch = (uint32_t)b;
  }
  /* Before the sweep: --json naming the profile or the preset file would replace it, and one that
   * cannot be written was found only after the table had been printed. */
  const char *inputs[] = {o.positional[1], gpu_arg && strchr(gpu_arg, '/') ? gpu_arg : NULL};
  static const char *const json_opt[] = {"--json"};
  if ((rc = atoll_cli_check_outputs(cmd, &vals[2], json_opt, 1, inputs, 2, NULL)))
    return rc;
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
  char why[256];
  if (rc == 0 && gp && atoll_model_gpu_misfit(&m, gp, why, sizeof why) != UINT32_MAX) {
    fprintf(stderr, "atoll model: %s: %s (no scenario on GPU '%s' can run it)\n", o.positional[1], why, gp->name);
    atoll_arena_free(&a);
    return ATOLL_EXIT_BAD_INPUT;
  }
  if (rc == 0 && !knee)
    print_info(o.positional[1], &m);
  if (rc == 0 && knee) {
    atoll_knee_point curve[ATOLL_KNEE_POINTS];
    uint32_t knee_pct;
    int krc = atoll_sim_knee(&gpu, m.name, &m, batch, curve, &knee_pct);
    if (krc == ATOLL_ERANGE) {
      fprintf(stderr, "atoll model knee: %s: a batch of %u did not complete within %.3g days of simulated time "
                      "on a share of the GPU: the model is too long to sweep\n",
              o.positional[1], batch, (double)atoll_knee_span_ns(&gpu) / 1e9 / 86400);
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    if (krc) {
      fprintf(stderr, "atoll model knee: %s\n", atoll_strerror(krc));
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    bool json_stdout = vals[2] && strcmp(vals[2], "-") == 0;
    /* The file first, whole or not at all (atoll_cli_write_file says why it failed): the table is
     * printed only for a run that succeeded. */
    knee_json j = {.batch = batch, .knee = knee_pct, .k = curve};
    if (vals[2] && atoll_cli_write_file(vals[2], write_knee_json, &j) != 0) {
      atoll_arena_free(&a);
      return ATOLL_EXIT_BAD_INPUT;
    }
    if (!json_stdout)
      print_knee(m.name, batch, curve, knee_pct, plot);
  }
  atoll_arena_free(&a);
  return rc == 0 ? ATOLL_EXIT_OK : atoll_cli_report(&d);
}
