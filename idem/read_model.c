/* Whole-tensor traces from models: REEF model directories and atoll profiles, and the dispatch
 * from a format name to its reader. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "io/load.h"
#include "idem/readers.h"
#include "io/reef_import.h"

/* Tensors are laid out one after the other from this address, each aligned as a device allocator
 * would align it; any disjoint layout gives the same answers, this one just looks like a GPU's. */
enum { MODEL_BASE = 0x10000, MODEL_ALIGN = 256 };

static const char *const format_names[] = {"text", "nvbit", "reef-model", "profile"};

int idem_format_parse(const char *name) {
  for (int f = 0; f < (int)(sizeof format_names / sizeof *format_names); f++)
    if (strcmp(name, format_names[f]) == 0)
      return f;
  return -1;
}

const char *idem_format_name(idem_format f) {
  return (unsigned)f < sizeof format_names / sizeof *format_names ? format_names[f] : "?";
}

static int add_tensor(idem_trace *t, const uint64_t *base, uint32_t tensor, uint64_t bytes, bool write) {
  return idem_trace_add_access(t, write, base[tensor], base[tensor] + bytes);
}

static int add_list(idem_trace *t, const uint64_t *base, const atoll_model *m, const uint32_t *list, uint32_t n,
                    bool write) {
  int rc = ATOLL_OK;
  for (uint32_t k = 0; k < n && rc == ATOLL_OK; k++)
    rc = add_tensor(t, base, list[k], m->tensors[list[k]].bytes, write);
  return rc;
}

static int add_op(idem_trace *t, const uint64_t *base, const atoll_model *m, const atoll_op *op) {
  int rc;
  if (op->kind == ATOLL_OP_KERNEL) {
    rc = idem_trace_add_op(t, IDEM_OP_KERNEL, op->name, strlen(op->name), 0);
    /* Reads, then each readwrite as a read followed by a write (the whole-tensor view cannot know
     * which comes first per element, so it must assume the read), then writes. */
    if (rc == ATOLL_OK)
      rc = add_list(t, base, m, op->reads, op->n_reads, false);
    for (uint32_t k = 0; k < op->n_readwrites && rc == ATOLL_OK; k++) {
      uint32_t x = op->readwrites[k];
      rc = add_tensor(t, base, x, m->tensors[x].bytes, false);
      if (rc == ATOLL_OK)
        rc = add_tensor(t, base, x, m->tensors[x].bytes, true);
    }
    if (rc == ATOLL_OK)
      rc = add_list(t, base, m, op->writes, op->n_writes, true);
    return rc;
  }
  const char *tensor = m->tensors[op->tensor].name;
  idem_op_kind kind = op->kind == ATOLL_OP_MEMSET ? IDEM_OP_MEMSET : IDEM_OP_MEMCPY;
  rc = idem_trace_add_op(t, kind, tensor, strlen(tensor), 0);
  /* A host-to-device copy and a memset produce the tensor; a device-to-host copy reads it. */
  if (rc == ATOLL_OK)
    rc = add_tensor(t, base, op->tensor, op->bytes, op->kind != ATOLL_OP_MEMCPY_D2H);
  return rc;
}

int idem_trace_from_model(const atoll_model *m, idem_trace *t, uint64_t *base_out) {
  uint64_t *base = base_out;
  if (!base && !(base = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *base)))
    return ATOLL_ENOMEM;
  uint64_t at = MODEL_BASE;
  int rc = ATOLL_OK;
  for (uint32_t k = 0; k < m->n_tensors && rc == ATOLL_OK; k++) {
    base[k] = at;
    uint64_t bytes = m->tensors[k].bytes;
    uint64_t room = UINT64_MAX - at;
    if (bytes > room || room - bytes < MODEL_ALIGN)
      rc = ATOLL_ERANGE;
    else
      at = (at + bytes + MODEL_ALIGN - 1) / MODEL_ALIGN * MODEL_ALIGN;
  }
  for (uint32_t i = 0; i < m->n_ops && rc == ATOLL_OK; i++)
    rc = add_op(t, base, m, &m->ops[i]);
  if (base != base_out)
    free(base);
  return rc;
}

static int model_to_trace(const atoll_model *m, const char *path, idem_trace *t, atoll_diag *d) {
  int rc = idem_trace_from_model(m, t, NULL);
  if (rc) {
    atoll_source named = {.name = path};
    atoll_diag_set(d, &named, 0, 0, NULL, "%s", rc == ATOLL_ERANGE ? "the tensors do not fit in a 64-bit address space"
                                                                   : "out of memory");
  }
  return rc;
}

int idem_read_reef_model(const char *dir, idem_trace *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  /* The importer derives block times and registers from a GPU preset; the trace uses none of it,
   * but REEF measured on an MI50, so that is the preset it gets. */
  const char *preset = atoll_gpu_find_preset(&a, "mi50", ".");
  atoll_gpu gpu;
  atoll_model m;
  int rc;
  if (!preset) {
    atoll_diag_set(d, NULL, 0, 0, NULL, "the mi50 GPU preset (scenarios/gpus/mi50.yaml) was not found");
    rc = ATOLL_ENOENT;
  } else {
    rc = atoll_gpu_load_file(&a, preset, &gpu, d);
  }
  if (rc == ATOLL_OK)
    rc = atoll_reef_import(&a, dir, &gpu, &m, d);
  if (rc == ATOLL_OK)
    rc = model_to_trace(&m, dir, t, d);
  atoll_arena_free(&a);
  return rc;
}

int idem_read_profile(const char *path, idem_trace *t, atoll_diag *d) {
  atoll_arena a;
  atoll_arena_init(&a);
  atoll_model m;
  int rc = atoll_model_load_file(&a, path, NULL, &m, d);
  if (rc == ATOLL_OK)
    rc = model_to_trace(&m, path, t, d);
  atoll_arena_free(&a);
  return rc;
}

int idem_read_path(idem_format f, const char *path, idem_trace *t, atoll_diag *d) {
  if (f == IDEM_FMT_REEF_MODEL)
    return idem_read_reef_model(path, t, d);
  if (f == IDEM_FMT_PROFILE)
    return idem_read_profile(path, t, d);
  bool is_stdin = strcmp(path, "-") == 0;
  FILE *in = is_stdin ? stdin : fopen(path, "r");
  if (!in) {
    atoll_source named = {.name = path};
    atoll_diag_set(d, &named, 0, 0, NULL, "cannot open: %s", strerror(errno));
    return ATOLL_ENOENT;
  }
  const char *name = is_stdin ? "<stdin>" : path;
  int rc = f == IDEM_FMT_NVBIT ? idem_read_nvbit(in, name, t, d) : idem_read_text(in, name, t, d);
  if (!is_stdin)
    fclose(in);
  return rc;
}
