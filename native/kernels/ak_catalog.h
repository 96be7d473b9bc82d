/* ak_catalog.h — the kernel library's host-side catalogue: each kernel's id, name and argument
 * layout, for tools, profile writers and error messages (the device code needs none of it). */
#ifndef ATOLL_AK_CATALOG_H
#define ATOLL_AK_CATALOG_H

#include <stdint.h>

#include "native/kernels/ak.h"

typedef struct ak_kernel_info {
  uint32_t id;          /* AK_K_* */
  const char *name;     /* "gemm", "conv2d", ... */
  uint32_t n_ptrs, n_ints; /* slots used: p[0..n_ptrs), i[0..n_ints) */
  uint32_t reads;       /* bit s set: p[s] is read */
  uint32_t writes;      /* bit s set: p[s] is written (with `reads`: read first, then written) */
  uint32_t optional;    /* bit s set: p[s] may be NULL */
  const char *ptrs;     /* the pointer slots, documented */
  const char *ints;     /* the int slots, documented */
  const char *about;    /* one line */
} ak_kernel_info;

/* NULL for AK_K_NONE and unknown ids. */
const ak_kernel_info *ak_kernel_info_get(uint32_t id);
/* NULL when no kernel has that name. */
const ak_kernel_info *ak_kernel_find(const char *name);
/* Number of kernels; ids are 1..ak_kernel_count(). */
uint32_t ak_kernel_count(void);

#endif
