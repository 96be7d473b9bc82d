/* atoll selftest --device NAME: checks a native back-end on this machine (selftest.h). Without the
 * device or its driver it exits 4 with the runtime's own error text. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/models/nmodel.h"
#include "tools/atoll/cli.h"
#include "tools/atoll/selftest.h"

const atoll_subcommand atoll_cmd_selftest_def = {
    "selftest", atoll_cmd_selftest, "check a native back-end (cpu, cuda, hip) on this machine",
    "usage: atoll selftest --device NAME [--reps N] [--restore-models LIST]\n"
    "\n"
    "The first command to run on a GPU machine. Opens the back-end NAME (cpu, cuda or hip) and\n"
    "checks, through the back-end interface alone:\n"
    "  - the device: name, compute units, occupancy, CU reset, padded launches;\n"
    "  - every kernel of the library, in every version the native models use, against the CPU\n"
    "    build (bit for bit; softmax and gelu, which call the platform's expf/tanhf, within\n"
    "    1e-6 + 1e-5 |x|);\n"
    "  - preemption in each phase: launches queued behind the flag are evicted, a running launch\n"
    "    completes under the flag alone and is killed by reset_cus, the execution index names it;\n"
    "    with the latencies of the flag write, of reset_cus and until the BE work is gone;\n"
    "  - preemption after every op of every native model and restore from the restart point, the\n"
    "    output bit-exact against the uninterrupted run;\n"
    "  - a padded launch (RT kernel + BE parts): both models' outputs bit-exact, parts completing\n"
    "    before the launch, and its time against the RT kernel alone.\n"
    "\n"
    "  --device NAME   the back-end: cpu, cpu-gpu (the CPU back-end behaving as a GPU's), cuda or\n"
    "                  hip (loadable modules built with -DATOLL_CUDA=ON / -DATOLL_HIP=ON; see\n"
    "                  docs/native-gpu.md)\n"
    "  --reps N        repetitions of each timed measurement (default 5)\n"
    "  --restore-models LIST\n"
    "                  preempt and restore at every op of these native models only (comma-\n"
    "                  separated catalogue names; default every model): a shorter first run\n"
    "\n"
    "environment: ATOLL_GPU_DEVICE (device number, default 0), ATOLL_GPU_CU_RESET (a patched\n"
    "driver's CU reset, docs/native-gpu.md), ATOLL_BACKEND_PATH (where the modules are).\n"
    "\n"
    "exit: 0 every check passed; 1 a check failed; 2 bad usage; 4 the device or its driver is\n"
    "unavailable (the runtime's message on stderr).\n"};

/* Every entry of a --restore-models list names a catalogue model, and there is at least one. */
static bool restore_models_known(const char *list) {
  if (!*list || list[strlen(list) - 1] == ',')
    return false;
  const char *entry;
  size_t len;
  while (st_list_next(&list, &entry, &len)) {
    char name[64]; /* an empty entry (",,", a leading comma) names nothing */
    if (len == 0 || len >= sizeof name)
      return false;
    memcpy(name, entry, len);
    name[len] = '\0';
    if (!atoll_nmodel_find(name))
      return false;
  }
  return true;
}

int atoll_cmd_selftest(int argc, char **argv) {
  const char *device = NULL, *restore_models = NULL;
  uint64_t reps = 5;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      atoll_cli_print_help(&atoll_cmd_selftest_def, stdout);
      return ATOLL_EXIT_OK;
    }
    bool valued = strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--reps") == 0 ||
                  strcmp(argv[i], "--restore-models") == 0;
    /* "--device --reps 3" took "--reps" as the device, then said "unexpected argument '3'". */
    if (valued && i + 1 < argc && strncmp(argv[i + 1], "--", 2) == 0)
      return atoll_cli_usage_error(&atoll_cmd_selftest_def, "%s needs a value before %s", argv[i], argv[i + 1]);
    if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
      device = argv[++i];
    } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
      if (!atoll_cli_parse_uint(argv[++i], 1, 64, &reps))
        return atoll_cli_usage_error(&atoll_cmd_selftest_def, "--reps: expected 1..64, got '%s'", argv[i]);
    } else if (strcmp(argv[i], "--restore-models") == 0 && i + 1 < argc) {
      restore_models = argv[++i];
      if (!restore_models_known(restore_models)) {
        char names[256] = "";
        for (uint32_t m = 0; m < atoll_nmodel_count(); m++)
          snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", m ? "," : "", atoll_nmodel_at(m)->name);
        return atoll_cli_usage_error(&atoll_cmd_selftest_def,
                                     "--restore-models: '%s' is not a list of native models (the catalogue: %s)",
                                     restore_models, names);
      }
    } else if (strcmp(argv[i], "--device") == 0 || strcmp(argv[i], "--reps") == 0 ||
               strcmp(argv[i], "--restore-models") == 0) {
      return atoll_cli_usage_error(&atoll_cmd_selftest_def, "%s needs a value", argv[i]);
    } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
      return atoll_cli_unknown_option(&atoll_cmd_selftest_def, argv[i]);
    } else {
      return atoll_cli_usage_error(&atoll_cmd_selftest_def, "unexpected argument '%s'", argv[i]);
    }
  }
  if (!device)
    return atoll_cli_usage_error(&atoll_cmd_selftest_def, "--device NAME is required (cpu, cpu-gpu, cuda or hip)");

  st_dev *d = calloc(1, sizeof *d);
  if (!d) {
    fprintf(stderr, "atoll selftest: out of memory\n");
    return ATOLL_EXIT_NO_DEVICE;
  }
  d->reps = (uint32_t)reps;
  d->restore_models = restore_models;
  char err[512] = "";
  int rc = st_open(d, device, err, sizeof err);
  if (rc) {
    fprintf(stderr, "atoll selftest: %s: %s\n", device, err[0] ? err : atoll_strerror(rc));
    st_close(d);
    free(d);
    return rc == ATOLL_ENOENT ? ATOLL_EXIT_BAD_INPUT : ATOLL_EXIT_NO_DEVICE;
  }
  st_check_info(d);
  st_check_kernels(d);
  st_check_preemption(d);
  st_check_restore(d);
  st_check_padding(d);
  const uint32_t failures = d->failures;
  st_close(d);
  free(d);
  printf("%s: %u check%s failed\n", failures ? "FAIL" : "PASS", failures, failures == 1 ? "" : "s");
  return failures ? ATOLL_EXIT_VIOLATED : ATOLL_EXIT_OK;
}
