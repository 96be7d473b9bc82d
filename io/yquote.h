/* Strings written into YAML so that they read back byte for byte, and the UTF-8 check behind it.
 *
 * YAML text is UTF-8, may not hold most control characters raw, and folds the line breaks it
 * knows (U+0085, U+2028, U+2029) inside a quoted scalar; the writer escapes all of those, so any
 * valid UTF-8 string survives a write and a read. Readers of formats that are not YAML (trace
 * files) check names with atoll_utf8_valid() so that what they pass on can be written. */
#ifndef ATOLL_IO_YQUOTE_H
#define ATOLL_IO_YQUOTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether s[0..len) is valid UTF-8 (shortest forms, no surrogates, at most U+10FFFF); when not,
 * *bad (may be NULL) is the offset of the first byte of the first invalid sequence. */
bool atoll_utf8_valid(const char *s, size_t len, size_t *bad);
/* Writes s as a YAML double-quoted scalar. Bytes that are not valid UTF-8 are written as U+FFFD
 * (the one case that does not read back unchanged). */
void atoll_yaml_write_quoted(FILE *f, const char *s);
/* Writes s as a plain scalar when YAML reads it back unchanged as a string (an identifier that
 * starts with a letter or '_' and is no reserved word such as null or yes), else as
 * atoll_yaml_write_quoted does: the names of written profiles and presets stay plain where they can. */
void atoll_yaml_write_str(FILE *f, const char *s);
/* Writes a file path as a plain scalar when it holds a '/', only letters, digits and "_./-", and
 * does not start with '-' (the '/' keeps YAML from reading it as a number, boolean or null), else
 * as atoll_yaml_write_str does: generated scenarios name their model files plainly. */
void atoll_yaml_write_path(FILE *f, const char *path);

#endif
