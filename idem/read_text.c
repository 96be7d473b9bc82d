/* The text trace format (docs/idempotence.md, "Text format"):
 *
 *   # comment                  anywhere; '#' to the end of the line
 *   kernel conv1               op lines: kernel|memcpy|memset NAME
 *   r 0x7f0000001000 602112    access lines: r|w ADDRESS LENGTH, hex 0x.. or decimal, LENGTH > 0
 *   w 0x7f0000200000 3211264
 *
 * Operations are numbered from 0 in file order; access lines belong to the op above them, in the
 * order given. Anything else is an error at its line and column. */
#include <string.h>

#include "atoll/error.h"
#include "idem/lineio.h"
#include "idem/readers.h"
#include "io/yquote.h"

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

static const char *skip_blanks(const char *p) {
  while (is_blank(*p))
    p++;
  return p;
}

/* The next word: [*start, returned end). */
static const char *word_end(const char *p) {
  while (*p && !is_blank(*p))
    p++;
  return p;
}

static int parse_op(idem_lines *l, idem_trace *t, idem_op_kind kind, const char *p) {
  p = skip_blanks(p);
  if (!*p)
    return idem_lines_error(l, idem_lines_col(l, p), "missing op name (an op line is '%s NAME')",
                            idem_op_kind_name(kind));
  const char *end = word_end(p);
  const char *rest = skip_blanks(end);
  if (*rest)
    return idem_lines_error(l, idem_lines_col(l, rest),
                            "unexpected '%.*s' after the op name (names have no blanks; comments start with #)",
                            (int)(word_end(rest) - rest), rest);
  size_t bad;
  /* Names go into idem_checker's YAML and JSON outputs, which are UTF-8. */
  if (!atoll_utf8_valid(p, (size_t)(end - p), &bad))
    return idem_lines_error(l, idem_lines_col(l, p + bad), "op name is not valid UTF-8 (byte 0x%02x)",
                            (unsigned char)p[bad]);
  int rc = idem_trace_add_op(t, kind, p, (size_t)(end - p), l->line);
  if (rc == ATOLL_ERANGE)
    return idem_lines_error(l, 1, "more than %d operations (atoll's input limit, see docs/limits.md)",
                            (int)IDEM_MAX_OPS);
  return rc == ATOLL_OK ? ATOLL_OK : idem_lines_error(l, 1, "out of memory");
}

/* One number field of an access line; what names it in messages. */
static int parse_field(idem_lines *l, const char **pp, const char *what, uint64_t *out) {
  const char *p = skip_blanks(*pp);
  if (!*p)
    return idem_lines_error(l, idem_lines_col(l, p), "missing %s (an access line is 'r|w ADDRESS LENGTH')", what);
  const char *end = word_end(p);
  const char *num_end;
  if (!idem_parse_u64(p, &num_end, out)) {
    /* Well-formed digits that still fail to parse are too large; anything else is malformed. */
    bool hex = p[0] == '0' && (p[1] == 'x' || p[1] == 'X');
    const char *q = hex ? p + 2 : p;
    bool digits = q < end;
    for (; q < end && digits; q++)
      digits = (*q >= '0' && *q <= '9') || (hex && ((*q >= 'a' && *q <= 'f') || (*q >= 'A' && *q <= 'F')));
    return idem_lines_error(l, idem_lines_col(l, p), digits ? "%s '%.*s' does not fit in 64 bits"
                                                           : "bad %s '%.*s' (hex 0x... or decimal)",
                            what, (int)(end - p), p);
  }
  if (num_end != end)
    return idem_lines_error(l, idem_lines_col(l, p), "bad %s '%.*s' (hex 0x... or decimal)", what, (int)(end - p), p);
  *pp = end;
  return ATOLL_OK;
}

static int parse_access(idem_lines *l, idem_trace *t, bool write, const char *kw, const char *p) {
  if (t->n_ops == 0)
    return idem_lines_error(l, idem_lines_col(l, kw),
                            "access line before any op line (start an op with 'kernel NAME', 'memcpy NAME' or "
                            "'memset NAME')");
  uint64_t addr, len;
  int rc = parse_field(l, &p, "address", &addr);
  if (rc)
    return rc;
  const char *len_at = skip_blanks(p);
  if ((rc = parse_field(l, &p, "length", &len)) != ATOLL_OK)
    return rc;
  if (len == 0)
    return idem_lines_error(l, idem_lines_col(l, len_at), "length must be > 0");
  if (len > UINT64_MAX - addr)
    return idem_lines_error(l, idem_lines_col(l, len_at),
                            "range 0x%llx + %llu runs past the end of the 64-bit address space",
                            (unsigned long long)addr, (unsigned long long)len);
  const char *rest = skip_blanks(p);
  if (*rest)
    return idem_lines_error(l, idem_lines_col(l, rest), "unexpected '%.*s' after the length",
                            (int)(word_end(rest) - rest), rest);
  rc = idem_trace_add_access(t, write, addr, addr + len);
  if (rc == ATOLL_ERANGE)
    return idem_lines_error(l, 1, "more than %d access lines (atoll's input limit, see docs/limits.md)",
                            (int)IDEM_MAX_ACCESSES);
  return rc == ATOLL_OK ? ATOLL_OK : idem_lines_error(l, 1, "out of memory");
}

static int parse_line(idem_lines *l, idem_trace *t) {
  char *hash = strchr(l->buf, '#');
  if (hash)
    *hash = '\0';
  const char *p = skip_blanks(l->buf);
  if (!*p)
    return ATOLL_OK;
  const char *end = word_end(p);
  size_t n = (size_t)(end - p);
  static const struct {
    const char *word;
    idem_op_kind kind;
  } ops[] = {{"kernel", IDEM_OP_KERNEL}, {"memcpy", IDEM_OP_MEMCPY}, {"memset", IDEM_OP_MEMSET}};
  for (size_t k = 0; k < sizeof ops / sizeof *ops; k++)
    if (n == strlen(ops[k].word) && memcmp(p, ops[k].word, n) == 0)
      return parse_op(l, t, ops[k].kind, end);
  if (n == 1 && (*p == 'r' || *p == 'w'))
    return parse_access(l, t, *p == 'w', p, end);
  return idem_lines_error(l, idem_lines_col(l, p), "unknown line '%.*s' (expected kernel, memcpy, memset, r or w)",
                          (int)n, p);
}

int idem_read_text(FILE *in, const char *name, idem_trace *t, atoll_diag *d) {
  idem_lines l;
  idem_lines_init(&l, in, name, d);
  int rc;
  while ((rc = idem_lines_next(&l)) == 1) {
    if ((rc = parse_line(&l, t)) != ATOLL_OK)
      break;
  }
  idem_lines_free(&l);
  if (rc < 0)
    return rc;
  if (t->n_ops == 0) {
    atoll_source named = {.name = name};
    atoll_diag_set(d, &named, 0, 0, NULL, "no operations: a trace needs at least one 'kernel', 'memcpy' or "
                                        "'memset' line");
    return ATOLL_EPARSE;
  }
  return ATOLL_OK;
}
