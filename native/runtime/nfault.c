/* Parsing of the fault-injection option (fault.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atoll/error.h"
#include "native/fault.h"
#include "io/suggest.h"

int atoll_nfault_parse(const char *text, atoll_nfault_cfg *cfg, char *err, size_t err_len) {
  double kernel = 0, alloc = 0;
  bool seen_kernel = false, seen_alloc = false;
  const char *p = text ? text : "";
  if (*p == '\0') {
    snprintf(err, err_len, "empty fault list: expected kernel:P,alloc:P");
    return ATOLL_EINVAL;
  }
  while (*p) {
    const char *colon = strchr(p, ':');
    size_t name_len = colon ? (size_t)(colon - p) : 0;
    double *slot = NULL;
    if (colon && name_len == 6 && strncmp(p, "kernel", 6) == 0)
      slot = &kernel;
    else if (colon && name_len == 5 && strncmp(p, "alloc", 5) == 0)
      slot = &alloc;
    if (!slot) {
      static const char *const kinds[] = {"kernel", "alloc"};
      char name[64], hint[64];
      size_t item = strcspn(p, ","), nl = colon && (size_t)(colon - p) < item ? (size_t)(colon - p) : item;
      snprintf(name, sizeof name, "%.*s", (int)(nl < sizeof name ? nl : sizeof name - 1), p);
      if (nl == 0) { /* ",kernel:0.1" said "unknown fault ''" */
        snprintf(err, err_len, "a fault is missing before a ','");
        return ATOLL_EINVAL;
      }
      if (nl == item && (strcmp(name, kinds[0]) == 0 || strcmp(name, kinds[1]) == 0)) { /* no ":P" */
        snprintf(err, err_len, "fault '%s' needs its probability: %s:P, P from 0 to 1", name, name);
        return ATOLL_EINVAL;
      }
      snprintf(err, err_len, "unknown fault '%.*s'%s (expected kernel:P or alloc:P)", (int)strcspn(p, ","), p,
               atoll_suggest_text(hint, sizeof hint, name, kinds, 2));
      return ATOLL_EINVAL;
    }
    /* Decimal only, as the scenario's numbers: strtod alone also took hex ("0x1p-1"), leading
     * spaces ("kernel: 1"), inf and nan. */
    char *end;
    size_t digits = strspn(colon + 1, "0123456789.eE+-");
    double v = strtod(colon + 1, &end);
    if (digits == 0 || end != colon + 1 + digits || (*end != ',' && *end != '\0') || !(v >= 0 && v <= 1)) {
      snprintf(err, err_len, "fault '%.*s': the probability must be a decimal number from 0 to 1", (int)strcspn(p, ","),
               p);
      return ATOLL_EINVAL;
    }
    /* "kernel:0.5,kernel:0.1" kept the last silently: one probability per fault. */
    if (slot == &kernel ? seen_kernel : seen_alloc) {
      snprintf(err, err_len, "fault '%s' given twice", slot == &kernel ? "kernel" : "alloc");
      return ATOLL_EINVAL;
    }
    (slot == &kernel ? &seen_kernel : &seen_alloc)[0] = true;
    *slot = v;
    p = *end == ',' ? end + 1 : end;
    if (*end == ',' && *p == '\0') {
      snprintf(err, err_len, "a fault is missing after the last ','");
      return ATOLL_EINVAL;
    }
  }
  cfg->kernel_p = kernel;
  cfg->alloc_p = alloc;
  return 0;
}
