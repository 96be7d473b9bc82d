/* Fuzz target: idem_checker's text trace reader (idem/read_text.c) and what idem_checker
 * runs on the trace it reads (fuzz_idem.c). */
#include "fuzz.h"
#include "fuzz_idem.h"
#include "readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) { return fuzz_idem_run(data, size, idem_read_text); }
