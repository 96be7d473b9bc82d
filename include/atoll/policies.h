/* The policy registry: one line per policy, giving its enum id, the name scenarios use and its
 * ops table (an `atoll_policy_ops atoll__policy_<ops>` defined in core/policy_<file>.c, which
 * core/CMakeLists.txt picks up by name). The enum, the name table and the core's ops table are all
 * generated from this list, so a new policy is its source file and one line here. The order fixes
 * the enum values: new policies go at the end, each line ending in a backslash, so adding one
 * adds a line and changes none. */
#ifndef ATOLL_POLICIES_H
#define ATOLL_POLICIES_H

#define ATOLL_POLICY_LIST(X)            \
  X(RT_ONLY, "rt-only", rt_only)        \
  X(SEQ, "seq", seq)                    \
  X(STREAMS, "streams", streams)        \
  X(WAIT, "wait", wait)                 \
  X(ORION, "orion", orion)              \
  X(REEF, "reef", reef)                 \
  X(RESET, "reset", reset)              \
  X(EDF, "edf", edf)                    \
  X(FCFS, "fcfs", fcfs)                 \
  X(SJF, "sjf", sjf)                    \
  X(ABACUS, "abacus", abacus)           \
  X(DART, "dart", dart)                 \
  X(BASE_GPU, "base-gpu", base_gpu)     \
  X(BASE_CPU, "base-cpu", base_cpu)     \
  X(MPS_DEFAULT, "mps-default", mps_default) \
  X(MPS_STATIC, "mps-static", mps_static) \
  X(GSLICE, "gslice", gslice)           \
  X(INSS, "inss", inss)                 \
  X(GPULET, "gpulet", gpulet)           \
  /* a new policy: one line above this one */

/* Every policy's name, each after a space, as one string literal (" rt-only seq ..."): for help
 * texts, so that they list the policies there are. */
#define ATOLL_POLICY_NAME_WORD(id, name, ops) " " name
#define ATOLL_POLICY_NAMES ATOLL_POLICY_LIST(ATOLL_POLICY_NAME_WORD)

#endif
