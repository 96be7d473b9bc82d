/* Writing a model as a profile in the format of docs/models.md.
 *
 * The output is deterministic (same model, same bytes) so that converted profiles can be shipped
 * and diffed, and it loads back to the same model: times are written in microseconds with up to
 * three decimals, which is exact for whole nanoseconds. */
#ifndef ATOLL_IO_MODEL_WRITE_H
#define ATOLL_IO_MODEL_WRITE_H

#include <stdint.h>
#include <stdio.h>

#include "atoll/model.h"

/* Writes m to out. header_comment (may be NULL) is written first, each of its lines as a
 * "# ..." comment: provenance and licence of converted data belong there. Returns 0,
 * ATOLL_EINVAL when m is not a valid model (atoll_model_is_valid), or ATOLL_EIO when the
 * stream reports an error. */
int atoll_model_write_yaml(FILE *out, const atoll_model *m, const char *header_comment);

/* Writes text (may be NULL) as YAML comment lines, "# " and each of its lines ("#" for an empty
 * one, a trailing CR dropped): the provenance header of a written profile or preset. */
void atoll_write_comment_lines(FILE *f, const char *text);

/* Formats a time in ns as microseconds, "240", "12.5", "0.001": integer part, then up to three
 * decimals with trailing zeros trimmed. buf needs 32 bytes. Returns buf. */
char *atoll_format_us(int64_t ns, char *buf, size_t size);

#endif
