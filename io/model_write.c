/* Model profile writer (docs/models.md). Field order follows the documented example so that a
 * converted profile reads like a hand-written one. */
#include "io/model_write.h"

#include <stdbool.h>
#include <string.h>

#include "atoll/error.h"
#include "io/yquote.h"

char *atoll_format_us(int64_t ns, char *buf, size_t size) {
  /* Integer arithmetic on the ns value, not printf of a double: the text must load back (times
   * 1000, rounded) to exactly ns, and whole nanoseconds are exactly three decimals of a us. */
  const char *sign = ns < 0 ? "-" : "";
  uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
  uint64_t whole = mag / 1000, frac = mag % 1000;
  if (frac == 0) {
    snprintf(buf, size, "%s%llu", sign, (unsigned long long)whole);
    return buf;
  }
  char digits[4];
  snprintf(digits, sizeof digits, "%03u", (unsigned)frac);
  for (int i = 2; i > 0 && digits[i] == '0'; i--)
    digits[i] = '\0';
  snprintf(buf, size, "%s%llu.%s", sign, (unsigned long long)whole, digits);
  return buf;
}

void atoll_write_comment_lines(FILE *f, const char *text) {
  if (!text)
    return;
  const char *p = text;
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if (len > 0 && p[len - 1] == '\r')
      len--;
    if (len == 0)
      fputs("#\n", f);
    else
      fprintf(f, "# %.*s\n", (int)len, p);
    p += nl ? (size_t)(nl - p) + 1 : strlen(p);
  }
}

/* Writes "key: value" pairs either as block mapping lines of an op (indented under "  - ") or
 * inside a one-line flow mapping, so a kernel and its versions share one field writer. */
typedef struct emitter {
  FILE *f;
  bool flow;
  bool first;
} emitter;

static void key(emitter *e, const char *k) {
  if (e->flow)
    fputs(e->first ? "" : ", ", e->f);
  else
    fputs("\n    ", e->f);
  e->first = false;
  fprintf(e->f, "%s: ", k);
}

static void write_time(FILE *f, int64_t ns) {
  char buf[32];
  fputs(atoll_format_us(ns, buf, sizeof buf), f);
}

static void write_dim3(emitter *e, const char *k, atoll_dim3 d) {
  key(e, k);
  fprintf(e->f, "[%u, %u, %u]", d.x, d.y, d.z);
}

static void write_shape(emitter *e, const atoll_kernel_shape *s) {
  write_dim3(e, "grid", s->grid);
  write_dim3(e, "block", s->block);
  key(e, "occupancy");
  fprintf(e->f, "%u", s->occupancy);
  key(e, "time_us");
  write_time(e->f, s->time_ns);
  if (s->n_time_per_occupancy > 0) {
    key(e, "time_per_occupancy_us");
    fputc('[', e->f);
    for (uint32_t i = 0; i < s->n_time_per_occupancy; i++) {
      fputs(i ? ", " : "", e->f);
      write_time(e->f, s->time_per_occupancy_ns[i]);
    }
    fputc(']', e->f);
  }
  /* Block time and registers are always written, derived or not, so the file states the values
   * the simulator uses; `derived:` records which of them a formula produced. */
  key(e, "block_time_us");
  write_time(e->f, s->block_time_ns);
  key(e, "registers");
  fprintf(e->f, "%u", s->registers);
  if (s->shared_bytes > 0) {
    key(e, "shared_bytes");
    fprintf(e->f, "%u", s->shared_bytes);
  }
}

static void write_derived(emitter *e, uint32_t bits) {
  static const char *const names[] = {"block_time", "registers", "time", "occupancy"};
  if (bits == 0)
    return;
  key(e, "derived");
  fputc('[', e->f);
  bool first = true;
  for (uint32_t i = 0; i < 4; i++) {
    if (bits & (1u << i)) {
      fprintf(e->f, "%s%s", first ? "" : ", ", names[i]);
      first = false;
    }
  }
  fputc(']', e->f);
}

static void write_tensor_list(emitter *e, const atoll_model *m, const char *k, const uint32_t *idx, uint32_t n) {
  if (n == 0)
    return;
  key(e, k);
  fputc('[', e->f);
  for (uint32_t i = 0; i < n; i++) {
    fputs(i ? ", " : "", e->f);
    atoll_yaml_write_str(e->f, m->tensors[idx[i]].name);
  }
  fputc(']', e->f);
}

static void write_versions(FILE *f, const atoll_op *op) {
  if (op->n_versions == 0)
    return;
  fputs("\n    versions:", f);
  for (uint32_t v = 0; v < op->n_versions; v++) {
    emitter e = {.f = f, .flow = true, .first = true};
    fputs("\n      - {", f);
    write_shape(&e, &op->versions[v]);
    write_derived(&e, op->versions[v].derived);
    fputc('}', f);
  }
}

static void write_kernel(FILE *f, const atoll_model *m, const atoll_op *op, int64_t cpu_ns, uint64_t bytes_per_block) {
  emitter e = {.f = f, .flow = false, .first = true};
  fputs("  - kernel: ", f);
  atoll_yaml_write_str(f, op->name);
  write_shape(&e, &op->shape);
  write_tensor_list(&e, m, "reads", op->reads, op->n_reads);
  write_tensor_list(&e, m, "writes", op->writes, op->n_writes);
  write_tensor_list(&e, m, "readwrites", op->readwrites, op->n_readwrites);
  write_derived(&e, op->shape.derived);
  if (op->idem == ATOLL_IDEM_YES) {
    key(&e, "idempotent");
    fputs("true", f);
  } else if (op->idem == ATOLL_IDEM_GROUP) {
    key(&e, "group_entry");
    fprintf(f, "%u", op->group_entry);
  } else if (op->idem == ATOLL_IDEM_NONE) {
    key(&e, "idempotent"); /* false with no group entry: not restorable */
    fputs("false", f);
  }
  write_versions(f, op);
  fputc('\n', f);
  if (op->operator_name) {
    fputs("    operator: ", f);
    atoll_yaml_write_quoted(f, op->operator_name);
    fputc('\n', f);
  }
  if (op->n_batch_times) {
    fputs("    batch_time_us: [", f);
    for (uint32_t i = 0; i < op->n_batch_times; i++)
      fprintf(f, "%s[%u, %.17g]", i ? ", " : "", op->batch_times[i].batch, (double)op->batch_times[i].time_ns / 1e3);
    fputs("]\n", f);
  }
  if (cpu_ns > 0)
    fprintf(f, "    cpu_us: %.17g\n", (double)cpu_ns / 1e3);
  if (bytes_per_block)
    fprintf(f, "    bytes_per_block: %llu\n", (unsigned long long)bytes_per_block);
}

static void write_copy(FILE *f, const atoll_model *m, const atoll_op *op) {
  const atoll_tensor *t = &m->tensors[op->tensor];
  if (op->kind == ATOLL_OP_MEMSET) {
    fputs("  - memset: ", f);
    atoll_yaml_write_str(f, t->name);
  } else {
    fprintf(f, "  - memcpy: %s\n    tensor: ", op->kind == ATOLL_OP_MEMCPY_H2D ? "h2d" : "d2h");
    atoll_yaml_write_str(f, t->name);
  }
  fputc('\n', f);
  /* bytes defaults to the tensor's size and time_us to "derive from the GPU's copy costs". */
  if (op->bytes != t->bytes)
    fprintf(f, "    bytes: %llu\n", (unsigned long long)op->bytes);
  if (op->copy_time_ns > 0) {
    fputs("    time_us: ", f);
    write_time(f, op->copy_time_ns);
    fputc('\n', f);
  }
  if (op->operator_name) {
    fputs("    operator: ", f);
    atoll_yaml_write_quoted(f, op->operator_name);
    fputc('\n', f);
  }
}

static void write_tensors(FILE *f, const atoll_model *m) {
  if (m->n_tensors == 0) {
    fputs("tensors: []\n", f);
    return;
  }
  fputs("tensors:\n", f);
  for (uint32_t i = 0; i < m->n_tensors; i++) {
    const atoll_tensor *t = &m->tensors[i];
    fputs("  - {name: ", f);
    atoll_yaml_write_str(f, t->name);
    fprintf(f, ", bytes: %llu, kind: %s", (unsigned long long)t->bytes, atoll_tensor_kind_name(t->kind));
    if (t->dtype) {
      fputs(", dtype: ", f);
      atoll_yaml_write_str(f, t->dtype);
    }
    fputs("}\n", f);
  }
}

int atoll_model_write_yaml(FILE *out, const atoll_model *m, const char *header_comment) {
  /* A valid model has every tensor index in range, so the writer can name tensors blindly. */
  if (!out || !atoll_model_is_valid(m))
    return ATOLL_EINVAL;
  atoll_write_comment_lines(out, header_comment);
  fputs("atoll_model: 1\nname: ", out);
  atoll_yaml_write_str(out, m->name);
  fputs("\ngpu: ", out);
  atoll_yaml_write_str(out, m->gpu);
  fputc('\n', out);
  if (m->source) {
    fputs("source: ", out);
    atoll_yaml_write_quoted(out, m->source);
    fputc('\n', out);
  }
  if (m->native) {
    fputs("native: ", out);
    atoll_yaml_write_str(out, m->native);
    fputc('\n', out);
  }
  if (m->measured_latency_ns > 0) {
    fputs("measured_latency_us: ", out);
    write_time(out, m->measured_latency_ns);
    fputc('\n', out);
  }
  if (m->measured_eager_latency_ns > 0) {
    fputs("measured_eager_latency_us: ", out);
    write_time(out, m->measured_eager_latency_ns);
    fputc('\n', out);
  }
  if (m->footprint_known)
    fprintf(out, "footprint: {weights_mb: %.17g, activations_mb_per_batch: %.17g}\n", m->weights_mb,
            m->activations_mb_per_batch);
  if (m->instance_load_ns > 0) {
    fputs("instance_load_ms: ", out);
    fprintf(out, "%.17g\n", (double)m->instance_load_ns / 1e6);
  }
  write_tensors(out, m);
  fputs("ops:\n", out);
  for (uint32_t i = 0; i < m->n_ops; i++) {
    const atoll_op *op = &m->ops[i];
    if (op->kind == ATOLL_OP_KERNEL)
      write_kernel(out, m, op, m->op_cpu_ns ? m->op_cpu_ns[i] : 0, atoll_op_bytes_per_block(m, i));
    else
      write_copy(out, m, op);
  }
  return ferror(out) ? ATOLL_EIO : 0;
}
