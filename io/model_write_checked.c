/* model_write_checked.c — a profile is written only once its text reads back as the same model
 * (model_write_checked.h says why). */
#include "io/model_write_checked.h"

#include <inttypes.h>
#include <string.h>

#include "atoll/error.h"
#include "atoll/limits.h"
#include "io/arena.h"
#include "io/load.h"
#include "io/model_write.h"
#include "io/write_checked.h"

/* Two optional strings agree when both are absent or both hold the same text. */
static bool same_text(const char *a, const char *b) {
  return a == b || (a && b && strcmp(a, b) == 0);
}

bool atoll_model_first_difference(const atoll_model *a, const atoll_model *b, char *buf, size_t size) {
  if (!same_text(a->name, b->name)) {
    snprintf(buf, size, "name '%s', read back '%s'", atoll__shown(a->name), atoll__shown(b->name));
    return true;
  }
  if (!same_text(a->source, b->source)) {
    snprintf(buf, size, "source differs");
    return true;
  }
  if (a->n_ops != b->n_ops || a->n_tensors != b->n_tensors) {
    snprintf(buf, size, "%" PRIu32 " ops and %" PRIu32 " tensors, read back %" PRIu32 " and %" PRIu32, a->n_ops,
             a->n_tensors, b->n_ops, b->n_tensors);
    return true;
  }
  for (uint32_t i = 0; i < a->n_ops; i++) {
    const atoll_op *x = &a->ops[i], *y = &b->ops[i];
    /* Texts first (the kind by its name), then numbers. */
    const char *what = NULL, *was_text = NULL, *now_text = NULL;
    if (x->kind != y->kind)
      what = "kind", was_text = atoll_op_kind_name(x->kind), now_text = atoll_op_kind_name(y->kind);
    else if (!same_text(x->name, y->name))
      what = "name", was_text = x->name, now_text = y->name;
    else if (x->operator_name && !same_text(x->operator_name, y->operator_name))
      what = "operator", was_text = x->operator_name, now_text = y->operator_name;
    if (what) {
      snprintf(buf, size, "op %" PRIu32 " (%s): %s '%s', read back '%s'", i, atoll__shown(x->name), what,
               atoll__shown(was_text), atoll__shown(now_text));
      return true;
    }
    int64_t was = 0, now = 0;
    if (x->kind == ATOLL_OP_KERNEL && x->shape.time_ns != y->shape.time_ns)
      what = "time (ns)", was = x->shape.time_ns, now = y->shape.time_ns;
    else if (x->kind == ATOLL_OP_KERNEL && x->shape.occupancy != y->shape.occupancy)
      what = "occupancy", was = x->shape.occupancy, now = y->shape.occupancy;
    else if (x->kind != ATOLL_OP_KERNEL && x->copy_time_ns != y->copy_time_ns)
      what = "copy time (ns)", was = x->copy_time_ns, now = y->copy_time_ns;
    if (what) {
      snprintf(buf, size, "op %" PRIu32 " (%s): %s %" PRId64 ", read back %" PRId64, i, atoll__shown(x->name), what,
               was, now);
      return true;
    }
  }
  for (uint32_t i = 0; i < a->n_tensors; i++) {
    const atoll_tensor *x = &a->tensors[i], *y = &b->tensors[i];
    if (!same_text(x->name, y->name) || x->bytes != y->bytes) {
      snprintf(buf, size, "tensor %" PRIu32 " '%s' (%" PRIu64 " bytes), read back '%s' (%" PRIu64 " bytes)", i,
               atoll__shown(x->name), x->bytes, atoll__shown(y->name), y->bytes);
      return true;
    }
  }
  return false;
}

/* The model and what its loader needs, for the callbacks of atoll__write_checked. */
typedef struct model_job {
  const atoll_model *m;
  const char *header_comment, *dir;
  const atoll_gpu *gpu;
} model_job;

static int write_model(FILE *out, const void *obj) {
  const model_job *j = obj;
  return atoll_model_write_yaml(out, j->m, j->header_comment);
}

static int check_model(const atoll_source *src, const void *obj, atoll_diag *d, char *diff, size_t size) {
  const model_job *j = obj;
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model back;
  int rc = atoll_model_load_source(&a, src, j->dir, j->gpu, &back, d);
  if (rc == 0 && atoll_model_first_difference(j->m, &back, diff, size))
    rc = ATOLL_EINVAL;
  atoll_arena_free(&a);
  return rc;
}

int atoll_model_write_checked(FILE *out, const atoll_model *m, const char *header_comment, const char *dir,
                              const atoll_gpu *gpu, atoll_diag *d) {
  const model_job job = {.m = m, .header_comment = header_comment, .dir = dir, .gpu = gpu};
  char subject[ATOLL_MAX_NAME_BYTES + 32];
  snprintf(subject, sizeof subject, "profile of model '%s'", atoll__shown(m->name));
  const atoll__checked_write w = {.subject = subject,
                                  .what = "the model",
                                  .made_from = "the model it was made from",
                                  .report = "the input",
                                  .obj = &job,
                                  .write = write_model,
                                  .check = check_model};
  return atoll__write_checked(out, &w, d);
}
