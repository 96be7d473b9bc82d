/* k_common.h — helpers shared by the kernel bodies. Included by ak_dispatch.c before them. */

/* The block's share [*lo, *lo + return) of n elements; 0 for blocks past the end. */
static AK_DEVICE uint32_t ak_elt_range(const ak_ctx *c, uint32_t n, uint32_t per_block, uint32_t *lo) {
  const uint64_t first = (uint64_t)c->block * per_block;
  *lo = (uint32_t)first;
  if (first >= n)
    return 0;
  return n - (uint32_t)first < per_block ? n - (uint32_t)first : per_block;
}
