/* atoll-nmodel — the native models from the command line: list them, time their reference run,
 * write their memory-access trace (idem_checker's text format) or their model profile.
 *
 *   atoll-nmodel list
 *   atoll-nmodel run NAME [--repeat N]            median reference time on this thread, output hash
 *   atoll-nmodel trace NAME [-o FILE]             trace of one uninterrupted run (request 0)
 *   atoll-nmodel profile NAME [-o FILE] [--gpu PRESET] [--repeat N]
 *       the profile with single-thread CPU times measured here (one core as one CU at occupancy 1)
 *       and idempotence from the model's own trace; scenarios/models/native/ holds its output.
 *
 * Exit codes: 0 ok, 1 a run or trace failed, 2 bad usage or unknown model. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/out_file.h"
#include "atoll/error.h"
#include "native/models/nmodel_profile.h"
#include "io/suggest.h"

static const char usage_text[] = "usage: atoll-nmodel list\n"
                                 "       atoll-nmodel run NAME [--repeat N]\n"
                                 "       atoll-nmodel trace NAME [-o FILE]\n"
                                 "       atoll-nmodel profile NAME [-o FILE] [--gpu PRESET] [--repeat N]\n";

static int usage(const char *msg) {
  if (msg)
    fprintf(stderr, "atoll-nmodel: %s\n", msg);
  fputs(usage_text, stderr);
  return 2;
}

/* --help: the usage and what each command does, on stdout (help2man makes the man page of it). */
static int help(void) {
  printf("%s\n"
         "The native models (the CPU back-end's kernels, docs/native.md) from the command line.\n"
         "\n"
         "  list      the models, one per line\n"
         "  run       the median time of the model's reference run on this thread (--repeat N runs,\n"
         "            default 21) and its output's hash\n"
         "  trace     the memory-access trace of one uninterrupted run, in idem_checker's text format\n"
         "  profile   the model profile: single-thread CPU times measured here (one core as one CU at\n"
         "            occupancy 1, --repeat N runs, default 21) and idempotence from the model's own\n"
         "            trace; --gpu names the preset (default cpu)\n"
         "\n"
         "  -o FILE   where to write (default: standard output), whole or not at all\n"
         "\n"
         "exit: 0 ok; 1 a run or trace failed; 2 bad usage or unknown model.\n",
         usage_text);
  return fflush(stdout) == 0 ? 0 : 2;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void *x, const void *y) {
  int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

static void list(void) {
  printf("%-12s %5s %8s %8s %9s %12s\n", "model", "ops", "kernels", "multi", "tensors", "weights_B");
  for (uint32_t i = 0; i < atoll_nmodel_count(); i++) {
    const atoll_nmodel *m = atoll_nmodel_at(i);
    uint32_t kernels = 0, multi = 0;
    uint64_t wbytes = 0;
    for (uint32_t o = 0; o < m->n_ops; o++) {
      kernels += m->ops[o].kind == ATOLL_OP_KERNEL;
      multi += m->ops[o].n_versions > 1;
    }
    for (uint32_t t = 0; t < m->n_tensors; t++)
      wbytes += m->tensors[t].kind == ATOLL_TENSOR_WEIGHT ? m->tensors[t].bytes : 0;
    printf("%-12s %5u %8u %8u %9u %12llu\n", m->name, m->n_ops, kernels, multi, m->n_tensors,
           (unsigned long long)wbytes);
  }
}

static int run(const atoll_nmodel *m, uint32_t repeats) {
  void **t = atoll_nmodel_alloc_host(m);
  int64_t *s = malloc(repeats * sizeof *s);
  if (!t || !s)
    return 1;
  m->make_input(0, t[m->input]);
  int rc = 0;
  for (uint32_t r = 0; rc == 0 && r < repeats; r++) {
    int64_t t0 = now_ns();
    rc = atoll_nmodel_run_reference(m, t);
    s[r] = now_ns() - t0;
  }
  if (rc == 0) {
    qsort(s, repeats, sizeof *s, cmp_i64);
    /* FNV-1a over the output bytes: equal hashes on two runs or machines mean equal bits. */
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p = t[m->output];
    for (uint64_t i = 0; i < m->tensors[m->output].bytes; i++)
      h = (h ^ p[i]) * 1099511628211ull;
    printf("%s: reference run median %.3f ms (min %.3f, max %.3f, %u runs), output %llu B, fnv1a %016llx\n",
           m->name, (double)s[repeats / 2] / 1e6, (double)s[0] / 1e6, (double)s[repeats - 1] / 1e6, repeats,
           (unsigned long long)m->tensors[m->output].bytes, (unsigned long long)h);
  } else {
    fprintf(stderr, "atoll-nmodel: %s: reference run failed: %s\n", m->name, atoll_strerror(rc));
  }
  free(s);
  atoll_nmodel_free_host(m, t);
  return rc ? 1 : 0;
}

/* -o PATH ('-' or none: stdout), written whole or not at all (io/out_file.h): a failed write left
 * a cut profile or trace. */
static FILE *open_out(atoll_out_file *o, const char *path) {
  if (atoll_out_file_open(o, path ? path : "-") != 0) {
    perror(path);
    return NULL;
  }
  return o->f;
}

static int close_out(atoll_out_file *o, int rc) {
  if (atoll_out_file_close(o, rc == 0) != 0) {
    if (rc == 0)
      perror(o->path);
    return 1;
  }
  return rc;
}

static int profile(const atoll_nmodel *m, const char *gpu, uint32_t repeats, const char *out_path) {
  atoll_nmodel_vtime *vt = calloc((size_t)m->n_ops * ATOLL_NMODEL_MAX_VERSIONS, sizeof *vt);
  int64_t latency = 0;
  int rc = vt ? atoll__nmodel_measure_cpu(m, repeats, vt, &latency) : ATOLL_ENOMEM;
  if (rc) {
    fprintf(stderr, "atoll-nmodel: %s: measuring failed: %s\n", m->name, atoll_strerror(rc));
    free(vt);
    return 1;
  }
  char header[512];
  snprintf(header, sizeof header,
           "Native model '%s' (native/models), written by `atoll-nmodel profile %s --gpu %s`.\n"
           "Times: single-thread CPU runs of each launch (fastest of %u), one core as one CU at occupancy 1.\n"
           "Idempotence: idem_checker's group search on the model's own memory-access trace.\n"
           "`atoll native --profile` rewrites this with times measured on the native device.",
           m->name, m->name, gpu, repeats);
  atoll_nmodel_times times = {.gpu = gpu, .cus = 1, .source = "native model, single-thread CPU times",
                              .latency_ns = latency, .vt = vt};
  atoll_out_file o;
  FILE *f = open_out(&o, out_path);
  if (!f) {
    free(vt);
    return 1;
  }
  rc = atoll__nmodel_write_profile(m, &times, header, f);
  if (rc)
    fprintf(stderr, "atoll-nmodel: %s: writing the profile failed: %s\n", m->name, atoll_strerror(rc));
  free(vt);
  return close_out(&o, rc ? 1 : 0);
}

/* "unknown command 'X'; did you mean 'Y'?" */
static int unknown_command(const char *cmd) {
  static const char *const commands[] = {"list", "run", "trace", "profile"};
  char msg[160], hint[64];
  snprintf(msg, sizeof msg, "unknown command '%s'%s", cmd, atoll_suggest_text(hint, sizeof hint, cmd, commands, 4));
  return usage(msg);
}

int main(int argc, char **argv) {
  if (argc < 2)
    return usage(NULL);
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
    return help();
  if (strcmp(cmd, "list") != 0 && strcmp(cmd, "run") != 0 && strcmp(cmd, "trace") != 0 && strcmp(cmd, "profile") != 0)
    return unknown_command(cmd);
  if (strcmp(cmd, "list") == 0) {
    if (argc != 2)
      return usage("list takes no arguments");
    list();
    return 0;
  }
  if (argc < 3)
    return usage("missing model name");
  const atoll_nmodel *m = atoll_nmodel_find(argv[2]);
  const char *out = NULL, *gpu = "cpu";
  uint32_t repeats = 0;
  bool gpu_given = false;
  for (int i = 3; i < argc; i++) {
    if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
      out = argv[++i];
    else if (strcmp(argv[i], "--gpu") == 0 && i + 1 < argc)
      gpu = argv[++i], gpu_given = true;
    else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      char *end;
      unsigned long v = strtoul(argv[++i], &end, 10);
      if (*end || v == 0 || v > 100000)
        return usage("--repeat takes a count from 1 to 100000");
      repeats = (uint32_t)v;
    } else {
      static const char *const options[] = {"-o", "--gpu", "--repeat"};
      char hint[64];
      if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--gpu") == 0 || strcmp(argv[i], "--repeat") == 0)
        fprintf(stderr, "atoll-nmodel: %s needs a value\n", argv[i]);
      else
        fprintf(stderr, "atoll-nmodel: unknown option '%s'%s\n", argv[i],
                atoll_suggest_text(hint, sizeof hint, argv[i], options, 3));
      return usage(NULL);
    }
  }
  if (!m) {
    const char *names[64];
    uint32_t n = 0;
    for (uint32_t i = 0; i < atoll_nmodel_count() && n < 64; i++)
      names[n++] = atoll_nmodel_at(i)->name;
    char hint[96];
    fprintf(stderr, "atoll-nmodel: no native model named '%s'%s (atoll-nmodel list)\n", argv[2],
            atoll_suggest_text(hint, sizeof hint, argv[2], names, n));
    return 2;
  }
  /* Each command's options only: the others were taken and ignored with exit 0. */
  if (strcmp(cmd, "run") == 0 && (out || gpu_given))
    return usage("run prints its figures: -o and --gpu are profile's and trace's options");
  if (strcmp(cmd, "trace") == 0 && (gpu_given || repeats))
    return usage("trace runs request 0 once: --gpu and --repeat are profile's and run's options");
  if (strcmp(cmd, "run") == 0)
    return run(m, repeats ? repeats : 21);
  if (strcmp(cmd, "profile") == 0)
    return profile(m, gpu, repeats ? repeats : 21, out);
  if (strcmp(cmd, "trace") == 0) {
    atoll_out_file o;
    FILE *f = open_out(&o, out);
    if (!f)
      return 1;
    int rc = atoll__ntrace_model(m, 0, f);
    if (rc)
      fprintf(stderr, "atoll-nmodel: %s: tracing failed: %s\n", m->name, atoll_strerror(rc));
    return close_out(&o, rc ? 1 : 0);
  }
  return unknown_command(cmd);
}
