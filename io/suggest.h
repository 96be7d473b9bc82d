/* "Did you mean": the known name closest to a mistyped one, by edit distance, for every
 * "unknown X" message (keys, policies, presets, clients, commands). */
#ifndef ATOLL_IO_SUGGEST_H
#define ATOLL_IO_SUGGEST_H

#include <stddef.h>
#include <stdint.h>

/* Optimal-string-alignment distance (insertions, deletions, substitutions and swaps of adjacent
 * characters each cost 1), compared case-insensitively; names longer than 63 bytes count as far. */
uint32_t atoll_edit_distance(const char *a, const char *b);

/* The candidate closest to word, or NULL when none is close enough to be a typo: at most 1 edit
 * for words up to 4 bytes, 2 up to 8, and 3 beyond. Ties go to the first candidate. */
const char *atoll_suggest(const char *word, const char *const *candidates, uint32_t n);

/* Writes "; did you mean 'X'?" into buf when atoll_suggest finds X, else "". Returns buf. */
const char *atoll_suggest_text(char *buf, size_t size, const char *word, const char *const *candidates, uint32_t n);

#endif
