/* selftest.h — `atoll selftest --device NAME`: the first command to run on a GPU machine.
 *
 * It drives a native back-end through its interface (native/backend.h) alone — no runtime, no
 * scheduler — and checks the mechanism the runtime builds on: every kernel of the library against
 * the CPU build, eviction by the preempt flag, the kill of started launches, the execution index,
 * restore after a preemption at every op of every native model (bit-exact against the
 * uninterrupted run), padded launches (outputs and completion order), and it measures preemption
 * latency and the padded launch's overhead. The same checks run on the CPU back-end, which is how
 * the test itself is tested on machines without a GPU.
 *
 * This header is the harness shared by cmd_selftest.c (the command), selftest_dev.c (completions,
 * launches, model runs) and the checks: selftest_kernels.c (the device report, every kernel against
 * the CPU build), selftest_preempt.c (eviction, kill, restore) and selftest_pad.c (padded
 * launches). */
#ifndef ATOLL_TOOLS_SELFTEST_H
#define ATOLL_TOOLS_SELFTEST_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "native/backend.h"
#include "native/models/nmodel.h"

#define ST_MAX_TAGS 4096u     /* launches per experiment */
#define ST_WAIT_TIMEOUT_S 120 /* a launch that never completes is a failure, not a hang */

typedef struct st_dev {
  const atoll_nbackend_ops *ops;
  void *be;
  atoll_nbackend_info info;
  uint32_t reps;

  /* Completions of the current experiment: tags are (epoch << 32) | index, so a completion of an
   * earlier experiment cannot be counted in this one. */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint32_t epoch;
  uint32_t n_done;
  uint8_t done[ST_MAX_TAGS];
  uint8_t status[ST_MAX_TAGS];
  uint32_t order[ST_MAX_TAGS]; /* indices in completion order */
  int64_t done_ns[ST_MAX_TAGS];
  uint32_t stale;              /* completions of earlier experiments seen */

  uint32_t failures;
  /* The models the restore check preempts at every op: a NUL-terminated, comma-separated list of
   * catalogue names (--restore-models), or NULL for every model. */
  const char *restore_models;
} st_dev;

/* Opens the named back-end; on failure returns its error code with its message in err. */
int st_open(st_dev *d, const char *device, char *err, size_t err_len);
void st_close(st_dev *d);

/* Starts a new experiment: forgets every completion. */
void st_begin(st_dev *d);
uint64_t st_tag(const st_dev *d, uint32_t index);
/* Waits until `n` completions of this experiment arrived. 0, or -1 on timeout (reported). */
int st_wait(st_dev *d, uint32_t n);
int64_t st_now_ns(void);

/* Prints a check's outcome; counts failures. Returns ok. */
bool st_check(st_dev *d, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A native model's tensors on the device and on the host. */
typedef struct st_model {
  const atoll_nmodel *m;
  void **dev;        /* device tensors */
  void **host;       /* host tensors: weights filled, input made for request 1 */
  void *out;         /* host buffer of the D2H copy's destination */
  atoll_nqueue *q;
} st_model;

int st_model_open(st_dev *d, st_model *sm, const atoll_nmodel *m, uint32_t priority);
void st_model_close(st_dev *d, st_model *sm);
/* Uploads every host tensor, after filling the non-weight device tensors with a garbage pattern
 * first (so an op that did not run cannot go unnoticed). */
int st_model_reset(st_dev *d, st_model *sm);
/* The launch of op `op` (version `version`) with the experiment's tag `index`. */
void st_model_launch(const st_model *sm, uint32_t op, uint32_t version, uint64_t tag, atoll_nlaunch *l);
/* In a new experiment, submits ops [from, to) with at most `cap` in flight (a closed loop, as
 * REEF's DQ capacity; the op number is the tag index), waits for all and checks they completed OK.
 * Returns 0 or -1 (reported). */
int st_model_run(st_dev *d, st_model *sm, uint32_t from, uint32_t to, uint32_t cap);

/* Checks. Each prints its lines and counts failures in d->failures. */
void st_check_info(st_dev *d);
void st_check_kernels(st_dev *d);
void st_check_preemption(st_dev *d);
void st_check_restore(st_dev *d);
/* The next entry of a comma-separated list at *p: sets entry and len (an entry may be empty) and
 * moves *p past it and its comma; false at the list's end. */
bool st_list_next(const char **p, const char **entry, size_t *len);
/* Whether name is an entry of the comma-separated list (every name is when list is NULL). */
bool st_model_listed(const char *list, const char *name);
void st_check_padding(st_dev *d);

#endif
