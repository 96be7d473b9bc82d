/* atoll import reef-model DIR -o OUT.yaml | atoll import disb FILE.json --models DIR -o OUT.yaml
 *
 * Output goes to a temporary file renamed over OUT only when the conversion succeeded, so a failed
 * import never leaves a half-written profile or scenario behind. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/outputs.h"
#include "io/disb_import.h"
#include "io/suggest.h"
#include "io/idem_meta.h"
#include "io/model_write_checked.h"
#include "io/out_file.h"
#include "io/nsys_sqlite_import.h"
#include "io/profiler_csv_import.h"
#include "io/reef_import.h"
#include "io/torch_import.h"

const atoll_subcommand atoll_cmd_import_def = {
    "import", atoll_cmd_import, "convert REEF models, DISB workloads and GPU traces (torch-trace, nsys, rocprof)",
    "usage: atoll import reef-model DIR -o OUT.yaml [--gpu PRESET] [--idem METADATA.yaml]\n"
    "       atoll import disb FILE.json --models DIR -o OUT.yaml [--duration-ms N]\n"
    "       atoll import torch-trace TRACE.json[.gz] -o OUT.yaml [--iteration N] [--latency-us X] [--gpu PRESET]\n"
    "                                [--eager-latency-us Y] [--idem METADATA.yaml]\n"
    "       atoll import nsys EXPORT.sqlite|CUDA_GPU_TRACE.csv -o OUT.yaml [same options as torch-trace]\n"
    "       atoll import rocprof KERNEL_TRACE.csv -o OUT.yaml [same options; GPU mi50 unless --gpu]\n"
    "\n"
    "reef-model  converts a REEF model directory (DIR/<m>.json, <m>.profile.json, <m>.params.json)\n"
    "            into an atoll model profile (docs/models.md). REEF measured its profiles on one\n"
    "            MI50, so the GPU is mi50 unless --gpu names another preset; derived fields (block\n"
    "            time, registers) use that preset. --idem fills each kernel's idempotence from\n"
    "            idem_checker's metadata (-o), which must list the same ops (docs/idempotence.md).\n"
    "disb        converts a DISB workload (REEF's JSON) into a scenario. DIR holds atoll profiles\n"
    "            named <model>.yaml (as scenarios/models/ does); the scenario refers to them by a\n"
    "            path relative to OUT's folder. RT clients keep their frequency or trace; BE\n"
    "            clients run closed loop. duration_ms is the file's time (in s) unless\n"
    "            --duration-ms N sets it; a note on stderr says which, and how many of each\n"
    "            trace's arrivals fall inside the run.\n"
    "torch-trace converts one inference iteration of a PyTorch profiler (Kineto) trace, plain or gzip\n"
    "            JSON, into a profile: one op per kernel and copy in device order, with its duration,\n"
    "            grid/block, occupancy from registers and shared memory against the preset's limits,\n"
    "            and the aten operator that launched it. Iterations are cut at ProfilerStep markers,\n"
    "            else where the op sequence repeats; --iteration N (0-based) picks one, default the\n"
    "            last. measured_latency_us is --latency-us, else the iteration's span on the device;\n"
    "            --eager-latency-us records the eager (launch-bound) latency as measured_eager_latency_us.\n"
    "            GPU h200 unless --gpu names another preset. Idempotence stays unknown unless --idem\n"
    "            (Kineto records no memory addresses). docs/import.md.\n"
    "nsys        the same from an Nsight Systems SQLite export (nsys export --type sqlite, told\n"
    "            apart by its header) or its cuda_gpu_trace report as CSV (nsys stats --report\n"
    "            cuda_gpu_trace --format csv); iterations by the period of the op sequence.\n"
    "rocprof     the same from rocprof's kernel trace CSV (rocprof --hip-trace results.csv, or\n"
    "            rocprofv2/v3 kernel_trace.csv). Columns read: docs/import.md.\n"
    "\n"
    "  -o OUT.yaml   where to write ('-' for standard output)\n"
    "\n"
    "exit: 0 converted; 2 bad input (FILE:LINE:COL: message on stderr).\n"};

typedef atoll_out_file out_file;


/* "unknown GPU preset 'X'; did you mean 'Y'?" as a usage error; frees the arena. */
static int unknown_preset(const atoll_subcommand *cmd, atoll_arena *a, const char *name) {
  const char *near = atoll_gpu_suggest_preset(a, name, ".");
  char hint[96] = "";
  if (near)
    snprintf(hint, sizeof hint, "; did you mean '%s'?", near);
  int rc = atoll_cli_usage_error(cmd, "unknown GPU preset '%s'%s", name, hint);
  atoll_arena_free(a);
  return rc;
}
static int out_open(out_file *o, const char *path) {
  if (atoll_out_file_open(o, path) == 0)
    return 0;
  perror(path);
  return ATOLL_EXIT_BAD_INPUT;
}

/* Commits the output on success, discards it otherwise (io/out_file.h). */
static int out_close(out_file *o, int ok) {
  if (atoll_out_file_close(o, ok) == 0)
    return 0;
  if (ok)
    perror(o->path);
  return ATOLL_EXIT_BAD_INPUT;
}

static const char *out_dir_of(atoll_arena *a, const char *path) {
  return strcmp(path, "-") == 0 ? "." : atoll_path_dir(a, path);
}

/* Writes the profile through atoll_model_write_checked, so a profile that would not read back as
 * the model imported is reported and nothing is written; then commits or discards the output. */
static int write_profile(out_file *f, const atoll_model *m, const char *header, const char *dir, const atoll_gpu *gpu,
                         atoll_diag *d) {
  atoll_diag_clear(d);
  const int wrc = atoll_model_write_checked(f->f, m, header, dir, gpu, d);
  if (wrc != 0 && !d->set)
    perror(f->path);
  const int rc = out_close(f, wrc == 0);
  return wrc != 0 && d->set ? atoll_cli_report(d) : rc;
}

static int import_reef_model(const atoll_subcommand *cmd, const atoll_run_opts *o, const char *out_path, const char *gpu_name,
                             const char *idem_path) {
  if (o->n_positional != 2)
    return atoll_cli_usage_error(cmd, "expected 'reef-model DIR -o OUT.yaml'");
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  const char *name = gpu_name ? gpu_name : "mi50";
  const char *preset = strchr(name, '/') ? name : atoll_gpu_find_preset(&a, name, ".");
  atoll_gpu gpu;
  atoll_model m;
  int rc;
  if (!preset)
    return unknown_preset(cmd, &a, name);
  rc = atoll_gpu_load_file(&a, preset, &gpu, &d);
  if (rc == 0)
    rc = atoll_reef_import(&a, o->positional[1], &gpu, &m, &d);
  uint32_t not_restorable = 0;
  if (rc == 0 && idem_path)
    rc = atoll_idem_meta_apply_file(&a, idem_path, &m, &not_restorable, &d);
  if (rc == 0 && not_restorable)
    fprintf(stderr, "note: %u kernels are not restorable (idempotent: false): a preemption waits for them\n",
            not_restorable);
  if (rc != 0) {
    atoll_arena_free(&a);
    return atoll_cli_report(&d);
  }
  out_file f;
  if ((rc = out_open(&f, out_path)) == 0) {
    char header[1024];
    snprintf(header, sizeof header,
             "Generated by `atoll import reef-model` from REEF's model directory '%s': do not edit by hand.\n"
             "Source: REEF's measured '%s' model (SJTU-IPADS/reef, resource/%s), measured on one AMD MI50.\n"
             "Licence: Apache License 2.0, (c) the REEF authors, Shanghai Jiao Tong University IPADS.\n"
             "Block time and registers are derived (docs/models.md, \"Derived fields\").",
             m.name, m.name, m.name);
    rc = write_profile(&f, &m, header, out_dir_of(&a, out_path), &gpu, &d);
  }
  atoll_arena_free(&a);
  return rc;
}

static int import_disb(const atoll_subcommand *cmd, const atoll_run_opts *o, const char *out_path, const char *models,
                       const char *duration_arg) {
  if (o->n_positional != 2 || !models)
    return atoll_cli_usage_error(cmd, "expected 'disb FILE.json --models DIR -o OUT.yaml'");
  atoll_disb_opts opts = {.notes = stderr};
  if (duration_arg) {
    /* From the simulator's 1 ns (a scenario shorter does not load); decimal only (not "0x10"). */
    if (!atoll_cli_parse_decimal(duration_arg, &opts.duration_ms) || !(opts.duration_ms >= 1e-6) ||
        opts.duration_ms > 1e10)
      return atoll_cli_usage_error(cmd, "--duration-ms wants a number of milliseconds from 1e-6 (1 ns) to 1e10, "
                                   "not '%s'", duration_arg);
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  out_file f;
  int rc = out_open(&f, out_path);
  if (rc == 0) {
    int irc = atoll_disb_import(&a, o->positional[1], models, out_dir_of(&a, out_path), &opts, f.f, &d);
    rc = out_close(&f, irc == 0);
    if (irc != 0)
      rc = atoll_cli_report(&d);
  }
  atoll_arena_free(&a);
  return rc;
}

static int parse_number(const atoll_subcommand *cmd, const char *opt, const char *text, double lo, double *out) {
  double v;
  *out = 0;
  if (!atoll_cli_parse_decimal(text, &v) || !(v >= lo) || v > 1e12)
    return atoll_cli_usage_error(cmd, "%s expects a number from %g to 1e12, got '%s'", opt, lo, text);
  *out = v;
  return 0;
}

/* torch-trace, nsys and rocprof: one iteration of a GPU trace into a profile. */
static int import_torch(const atoll_subcommand *cmd, const atoll_run_opts *o, const char *out_path, const char *gpu_name,
                        const char *idem_path, const char *iteration, const char *latency, const char *eager) {
  const char *kind = o->positional[0];
  bool torch = strcmp(kind, "torch-trace") == 0, nsys = strcmp(kind, "nsys") == 0;
  if (o->n_positional != 2)
    return atoll_cli_usage_error(cmd, "expected '%s FILE -o OUT.yaml'", kind);
  atoll_torch_opts to = {.iteration = -1};
  double v = 0;
  int rc;
  if (iteration) { /* (a double cast to int32_t past its range, as 3e9 was, is undefined) */
    uint64_t it;
    if (!atoll_cli_parse_uint(iteration, 0, INT32_MAX, &it))
      return atoll_cli_usage_error(cmd, "--iteration expects a whole number from 0 to %d, got '%s'", INT32_MAX,
                                   iteration);
    to.iteration = (int32_t)it;
  }
  if (latency) {
    if ((rc = parse_number(cmd, "--latency-us", latency, 0.001, &v)))
      return rc;
    to.latency_ns = (int64_t)(v * 1000 + 0.5);
  }
  if (eager) {
    if ((rc = parse_number(cmd, "--eager-latency-us", eager, 0.001, &v)))
      return rc;
    to.eager_latency_ns = (int64_t)(v * 1000 + 0.5);
  }
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_diag d;
  atoll_diag_clear(&d);
  /* rocprof traces come from AMD GPUs: the MI50 is the AMD preset atoll ships. */
  const char *name = gpu_name ? gpu_name : torch || nsys ? "h200" : "mi50";
  const char *preset = strchr(name, '/') ? name : atoll_gpu_find_preset(&a, name, ".");
  if (!preset)
    return unknown_preset(cmd, &a, name);
  atoll_gpu gpu;
  atoll_model m;
  atoll_torch_info info;
  rc = atoll_gpu_load_file(&a, preset, &gpu, &d);
  if (rc == 0 && torch)
    rc = atoll_torch_import(&a, o->positional[1], &gpu, &to, &m, &info, &d);
  else if (rc == 0 && nsys && atoll_is_sqlite_file(o->positional[1]))
    rc = atoll_nsys_sqlite_import(&a, o->positional[1], &gpu, &to, &m, &info, &d);
  else if (rc == 0)
    rc = atoll_csv_trace_import(&a, o->positional[1], nsys ? ATOLL_CSV_NSYS : ATOLL_CSV_ROCPROF, &gpu, &to, &m, &info,
                                &d);
  uint32_t not_restorable = 0;
  if (rc == 0 && idem_path)
    rc = atoll_idem_meta_apply_file(&a, idem_path, &m, &not_restorable, &d);
  if (rc != 0) {
    atoll_arena_free(&a);
    if (!d.set) { /* a failure with no located message (memory): its code, not an empty line */
      fprintf(stderr, "atoll import: %s: %s\n", o->positional[1], atoll_strerror(rc));
      return ATOLL_EXIT_BAD_INPUT;
    }
    return atoll_cli_report(&d);
  }
  if (info.trace_sms && info.trace_sms != gpu.cus)
    fprintf(stderr, "note: the trace's device has %u SMs, preset %s has %u\n", info.trace_sms, gpu.name, gpu.cus);
  /* The figures the acceptance check compares with the trace: on stderr, so '-o -' stays a profile. */
  fprintf(stderr, "%s: %u iterations (%s); imported iteration %u: %u kernels, %u copies, kernel time %.3f us, span %.3f us\n",
          o->positional[1], info.iterations,
          info.split == ATOLL_TORCH_BY_STEPS        ? "ProfilerStep markers"
          : info.split == ATOLL_TORCH_BY_REPETITION ? "repeating kernel sequence"
                                                    : "whole trace",
          info.iteration, info.kernels, info.copies, info.kernel_ns / 1e3, info.span_ns / 1e3);
  out_file f;
  if ((rc = out_open(&f, out_path)) == 0) {
    char header[1024];
    snprintf(header, sizeof header,
             "Generated by `atoll import %s` from '%s': do not edit by hand.\n"
             "Kernel times are device durations as the profiler measured them; occupancy is computed from registers\n"
             "and shared memory against %s's limits; block time is derived (docs/models.md). The trace records no\n"
             "memory addresses: tensors are the copies' own buffers and idempotence is unknown unless --idem gave it.",
             kind, o->positional[1], gpu.name);
    rc = write_profile(&f, &m, header, out_dir_of(&a, out_path), &gpu, &d);
  }
  atoll_arena_free(&a);
  return rc;
}

int atoll_cmd_import(int argc, char **argv) {
  const atoll_subcommand *cmd = &atoll_cmd_import_def;
  atoll_run_opts o;
  static const char *const extra[] = {"-o",          "--gpu",        "--models",          "--idem",
                                      "--iteration", "--latency-us", "--eager-latency-us", "--duration-ms"};
  const char *vals[8];
  int rc;
  if (!atoll_cli_parse_or_help(cmd, argc, argv, &o, extra, vals, 8, false, &rc))
    return rc;
  if (o.n_positional < 1)
    return atoll_cli_usage_error(cmd, "expected 'reef-model', 'disb', 'torch-trace', 'nsys' or 'rocprof'");
  if (!vals[0])
    return atoll_cli_usage_error(cmd, "-o OUT.yaml is required");
  /* Before the import: -o naming the input (or --idem's metadata, --gpu's preset file) replaced it
   * with the output; "-o --latency-us" wrote a file of that name; "-o ''" was said as an open's
   * error. */
  const char *inputs[] = {o.n_positional > 1 ? o.positional[1] : NULL, vals[3],
                          vals[1] && strchr(vals[1], '/') ? vals[1] : NULL};
  static const char *const out_opt[] = {"-o"};
  if ((rc = atoll_cli_check_outputs(cmd, vals, out_opt, 1, inputs, 3, NULL)))
    return rc;
  if (vals[7] && strcmp(o.positional[0], "disb") != 0)
    return atoll_cli_usage_error(cmd, "--duration-ms goes with 'disb'");
  if (strcmp(o.positional[0], "torch-trace") == 0 || strcmp(o.positional[0], "nsys") == 0 ||
      strcmp(o.positional[0], "rocprof") == 0) {
    if (vals[2])
      return atoll_cli_usage_error(cmd, "--models goes with 'disb'");
    return import_torch(cmd, &o, vals[0], vals[1], vals[3], vals[4], vals[5], vals[6]);
  }
  if (vals[4] || vals[5] || vals[6])
    return atoll_cli_usage_error(cmd, "--iteration, --latency-us and --eager-latency-us go with the trace importers");
  if (strcmp(o.positional[0], "reef-model") == 0) {
    if (vals[2])
      return atoll_cli_usage_error(cmd, "--models goes with 'disb'");
    return import_reef_model(cmd, &o, vals[0], vals[1], vals[3]);
  }
  if (strcmp(o.positional[0], "disb") == 0) {
    if (vals[1] || vals[3])
      return atoll_cli_usage_error(cmd, "--gpu and --idem go with the profile importers (reef-model, torch-trace, "
                                   "nsys, rocprof); disb writes a scenario");
    return import_disb(cmd, &o, vals[0], vals[2], vals[7]);
  }
  static const char *const kinds[] = {"reef-model", "disb", "torch-trace", "nsys", "rocprof"};
  char hint[96];
  return atoll_cli_usage_error(cmd, "unknown import kind '%s'%s (expected reef-model, disb, torch-trace, nsys or rocprof)",
                               o.positional[0], atoll_suggest_text(hint, sizeof hint, o.positional[0], kinds, 5));
}
