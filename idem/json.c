/* The JSON report (--json). */
#include "atoll/error.h"
#include "io/json_out.h"
#include "idem/badset.h"
#include "idem/report.h"

static void json_str(FILE *out, const char *s) { atoll_json_write_string(out, s); }

static void json_op(FILE *out, const idem_trace *t, const uint32_t *entry, const idem_summary *s, uint32_t i) {
  fprintf(out, "    {\"index\": %u, \"kind\": \"%s\", \"name\": ", i, idem_op_kind_name(t->ops[i].kind));
  json_str(out, t->ops[i].name);
  if (entry[i] == IDEM_NO_ENTRY)
    fputs(", \"idempotent\": false, \"group_entry\": null, \"group_size\": null, \"group_kernels\": null}", out);
  else
    fprintf(out, ", \"idempotent\": %s, \"group_entry\": %u, \"group_size\": %u, \"group_kernels\": %u}",
            entry[i] == i ? "true" : "false", entry[i], i - entry[i] + 1, idem_group_kernels(s, i, entry[i]));
}

static void json_summary(FILE *out, const idem_summary *s) {
  fprintf(out,
          "  \"summary\": {\"ops\": %u, \"kernels\": %u, \"memcpys\": %u, \"memsets\": %u, "
          "\"idempotent_kernels\": %u, \"group_restored_kernels\": %u, \"not_restorable_kernels\": %u, "
          "\"idempotent_ops\": %u, \"not_restorable_ops\": %u,\n",
          s->ops, s->kernels, s->memcpys, s->memsets, s->idempotent_kernels, s->group_kernels,
          s->not_restorable_kernels, s->idempotent_ops, s->not_restorable_ops);
  if (s->largest_op == IDEM_NO_ENTRY)
    fputs("    \"largest_group\": null,\n", out);
  else
    fprintf(out, "    \"largest_group\": {\"op\": %u, \"entry\": %u, \"ops\": %u, \"kernels\": %u},\n", s->largest_op,
            s->largest_entry, s->largest_ops, s->largest_kernels);
  fputs("    \"group_kernels_histogram\": [", out);
  for (uint32_t k = 0; k < s->n_hist; k++)
    fprintf(out, "%s{\"kernels\": %u, \"count\": %u}", k ? ", " : "", s->hist[k].kernels, s->hist[k].count);
  fputs("]}\n", out);
}

int idem_write_json(FILE *out, const char *name, idem_format f, const idem_trace *t, const uint32_t *entry,
                    const idem_summary *s) {
  fputs("{\n  \"trace\": ", out);
  json_str(out, name);
  fprintf(out, ",\n  \"format\": \"%s\",\n  \"ops\": [\n", idem_format_name(f));
  for (uint32_t i = 0; i < t->n_ops; i++) {
    json_op(out, t, entry, s, i);
    fputs(i + 1 < t->n_ops ? ",\n" : "\n", out);
  }
  fputs("  ],\n", out);
  json_summary(out, s);
  fputs("}\n", out);
  return ferror(out) ? ATOLL_EIO : ATOLL_OK;
}
