/* Fuzz target: idem_checker's NVBit mem_trace reader (idem/read_nvbit.c) and what
 * idem_checker runs on the trace it reads (fuzz_idem.c). */
#include "tests/fuzz/fuzz.h"
#include "tests/fuzz/fuzz_idem.h"
#include "idem/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_idem_run(data, size, idem_read_nvbit); }
