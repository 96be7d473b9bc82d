/* Limits on input, in one place (docs/limits.md explains each and its memory cost).
 *
 * Every reader of a file or a command-line value refuses input beyond these with a located error
 * (FILE:LINE:COL: message) instead of exhausting the stack, the memory or the CPU. Each limit sits
 * far above anything a real scenario, profile or trace needs; raising one means checking the
 * memory figure docs/limits.md gives for it. */
#ifndef ATOLL_LIMITS_H
#define ATOLL_LIMITS_H

enum {
  /* Files read whole: scenarios, profiles, GPU presets, idempotence metadata, REEF and DISB JSON,
   * arrival trace files. (idem_checker's text and NVBit traces are read line by line instead.) */
  ATOLL_MAX_INPUT_BYTES = 64 << 20,
  /* YAML/JSON: collections inside one another; values (scalars, lists, mappings) in one file; the
   * bytes of one scalar. */
  ATOLL_MAX_NESTING = 64,
  ATOLL_MAX_NODES = 1 << 21,
  ATOLL_MAX_SCALAR_BYTES = 1 << 16,
  /* A name: GPU, model, client, tensor (names end up in file names, report paths and messages). */
  ATOLL_MAX_NAME_BYTES = 128,
  /* Memory one load may take in its arena: a scenario with every preset, profile and trace file it
   * names, a profile, a REEF import. Per-file limits alone would let a scenario naming many large
   * files add up without bound. */
  ATOLL_MAX_LOAD_BYTES = 256 << 20,
  /* Scenarios (and DISB workloads): */
  ATOLL_MAX_MODELS = 256,
  ATOLL_MAX_CLIENTS = 4096,
  ATOLL_MAX_EXPECTS = 1024,
  ATOLL_MAX_ARRIVALS = 1 << 20, /* arrival times of one client's trace */
  ATOLL_MAX_GPUS = 64,          /* gpu_count */
  /* Model profiles (and REEF models): */
  ATOLL_MAX_OPS = 1 << 16,      /* kernels + copies */
  ATOLL_MAX_TENSORS = 1 << 16,
  ATOLL_MAX_OP_TENSORS = 1024,  /* tensors one op lists (reads, writes, ...); a REEF launch's args */
  ATOLL_MAX_VERSIONS = 64,      /* versions of one kernel */
  ATOLL_MAX_BATCH_TIMES = 64,   /* points of one kernel's batch_time_us table */
  /* idem_checker traces: */
  ATOLL_MAX_TRACE_OPS = 1 << 20,
  ATOLL_MAX_TRACE_ACCESSES = 1 << 24,
  ATOLL_MAX_LINE_BYTES = 1 << 20, /* one line of a text or NVBit trace */
};

#endif
