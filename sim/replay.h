/* A schedule as a list of choices, its file format, and a chooser that replays one.
 *
 * A schedule is what every choice point of one run answered (choice.h), in the order they were
 * asked. The explorer writes the schedule of a violating run (its witness) and `atoll sim --replay`
 * runs it again. The file is text, one choice per line, "KIND OPTION/COUNT", where KIND is
 * duration, serve, jitter or tie, OPTION the answer (0-based) and COUNT how many options there
 * were; '#' starts a comment. Past the end of the list every choice takes option 0 (the nominal
 * one), so a schedule cut short at a state the explorer had seen still replays in full. */
#ifndef ATOLL_SIM_REPLAY_H
#define ATOLL_SIM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/choice.h"

typedef struct atoll_choice_rec {
  uint8_t kind;    /* atoll_choice_kind */
  uint32_t option; /* in [0, n) */
  uint32_t n;
} atoll_choice_rec;

/* Writes the choices, after the comment lines of `header` (each line gets "# "), to f. 0 or ATOLL_EIO. */
int atoll_replay_write(FILE *f, const char *header, const atoll_choice_rec *recs, uint32_t n);
/* Reads a schedule; *recs is malloc'd. On bad input returns ATOLL_EPARSE with "LINE:COL: message"
 * in err; ATOLL_EIO when the file cannot be read; ATOLL_ENOMEM. */
int atoll_replay_read(const char *path, atoll_choice_rec **recs, uint32_t *n, char *err, size_t err_len);

/* A chooser that answers from a list; it notes the first choice point that does not match the list
 * (another kind or count: the schedule belongs to another scenario or version). */
typedef struct atoll_replay {
  const atoll_choice_rec *recs;
  uint32_t n, pos;
  bool diverged;
  uint32_t diverged_at;
} atoll_replay;

void atoll_replay_init(atoll_replay *r, const atoll_choice_rec *recs, uint32_t n);
atoll_chooser atoll_replay_chooser(atoll_replay *r);

#endif
