/* Writing JSON strings (json_out.h). */
#include "io/json_out.h"

int atoll_json_write_string(FILE *f, const char *s) {
  int bad = fputc('"', f) == EOF;
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\')
      bad |= fprintf(f, "\\%c", *p) < 0;
    else if (*p == '\n')
      bad |= fputs("\\n", f) == EOF;
    else if (*p == '\t')
      bad |= fputs("\\t", f) == EOF;
    else if (*p < 0x20)
      bad |= fprintf(f, "\\u%04x", *p) < 0;
    else
      bad |= fputc(*p, f) == EOF;
  }
  bad |= fputc('"', f) == EOF;
  return bad ? EOF : 0;
}
