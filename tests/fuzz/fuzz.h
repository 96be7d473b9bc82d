/* Shared pieces of the fuzz harnesses (docs/fuzzing.md).
 *
 * Each fuzz_<target>.c defines LLVMFuzzerTestOneInput. Built with ATOLL_FUZZ=ON (clang) it links
 * libFuzzer; otherwise driver.c supplies main(), which replays corpus files through the same
 * function, so the committed corpora are checked by every build (ctest label fuzz-regress).
 *
 * Besides "no crash, no leak, no undefined behaviour", each harness checks the loaders' error
 * contract: a failed load records one error with a message, a located error has a file name and a
 * column, and (where FUZZ_CHECK_LOCATED says so) every parse error is located. */
#ifndef ATOLL_FUZZ_H
#define ATOLL_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "io/diag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts (a finding) with the condition's text when cond is false. */
#define FUZZ_CHECK(cond)                                                                                      \
  do {                                                                                                        \
    if (!(cond))                                                                                              \
      fuzz_fail(#cond, __FILE__, __LINE__);                                                                   \
  } while (0)

_Noreturn void fuzz_fail(const char *what, const char *file, int line);

/* A NUL-terminated heap copy of data (callers free it). */
char *fuzz_text(const uint8_t *data, size_t size);
/* Whether data holds a NUL byte (inputs that a command line cannot carry). */
bool fuzz_has_nul(const uint8_t *data, size_t size);

/* Checks the error contract for a call that returned rc with diag d; located_parse_errors demands
 * a FILE:LINE:COL for every ATOLL_EPARSE. The diag is also printed (to /dev/null) so the printer
 * runs on every error. */
void fuzz_check_diag(const atoll_diag *d, int rc, bool located_parse_errors);

/* A stream that discards what is written to it (opened once). */
FILE *fuzz_null_stream(void);

#endif
