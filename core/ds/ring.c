/* Ring buffer over caller-provided storage; see ring.h for the design. */
#include "core/ds/ring.h"

#include "atoll/error.h"

#include <stddef.h>

/* Maps the i-th element (from the head) to its slot. It avoids both `%` and the sum head + i,
 * which could wrap around UINT32_MAX when cap is large, so the proof needs no modular reasoning
 * beyond one comparison. Requires head < cap and i < cap. */
/*@
  requires \valid_read(r) && r->head < r->cap && i < r->cap;
  assigns \nothing;
  ensures \result == atoll_ring_slot(r, i) && \result < r->cap;
*/
static uint32_t slot_index(const struct atoll_ring *r, uint32_t i) {
  uint32_t room_before_end = r->cap - r->head;
  if (i < room_before_end)
    return r->head + i;
  return i - room_before_end;
}

/* Reverses slots[lo..hi). Three reversals rotate an array in place without scratch storage,
 * which set_capacity needs because the ring owns no memory of its own. */
/*@
  requires lo <= hi && \valid(slots + (lo .. hi - 1));
  assigns slots[lo .. hi - 1];
  ensures \forall integer k; lo <= k < hi ==> slots[k] == \old(slots[lo + hi - 1 - k]);
*/
static void reverse_slots(uint64_t *slots, uint32_t lo, uint32_t hi) {
  /*@
    loop invariant \at(lo, Pre) <= lo <= hi <= \at(hi, Pre);
    loop invariant lo + hi == \at(lo, Pre) + \at(hi, Pre);
    loop invariant \forall integer k; \at(lo, Pre) <= k < lo ==>
                     slots[k] == \at(slots[\at(lo, Pre) + \at(hi, Pre) - 1 - k], Pre);
    loop invariant \forall integer k; hi <= k < \at(hi, Pre) ==>
                     slots[k] == \at(slots[\at(lo, Pre) + \at(hi, Pre) - 1 - k], Pre);
    loop invariant \forall integer k; lo <= k < hi ==> slots[k] == \at(slots[k], Pre);
    loop assigns lo, hi, slots[\at(lo, Pre) .. \at(hi, Pre) - 1];
    loop variant hi - lo;
  */
  while (hi - lo > 1) {
    uint64_t tmp = slots[lo];
    slots[lo] = slots[hi - 1];
    slots[hi - 1] = tmp;
    lo++;
    hi--;
  }
}

/* Rotates slots[0..n) left by `by` places with three reversals. */
/*@
  requires 0 < by < n && \valid(slots + (0 .. n - 1));
  assigns slots[0 .. n - 1];
  ensures \forall integer k; 0 <= k < n - by ==> slots[k] == \old(slots[by + k]);
  ensures \forall integer k; n - by <= k < n ==> slots[k] == \old(slots[k - (n - by)]);
*/
static void rotate_left(uint64_t *slots, uint32_t n, uint32_t by) {
  reverse_slots(slots, 0, by);
  /*@ assert \forall integer k; by <= k < n ==> slots[k] == \at(slots[k], Pre); */
  reverse_slots(slots, by, n);
  /*@ assert \forall integer k; 0 <= k < by ==> slots[k] == \at(slots[by - 1 - k], Pre); */
  /*@ assert \forall integer k; by <= k < n ==> slots[k] == \at(slots[by + n - 1 - k], Pre); */
  reverse_slots(slots, 0, n);
}

bool atoll_ring_is_valid(const struct atoll_ring *r) {
  if (r == NULL || r->slots == NULL)
    return false;
  if (r->cap == 0 || r->cap > r->storage_cap)
    return false;
  return r->head < r->cap && r->count <= r->cap;
}

int atoll_ring_init(struct atoll_ring *r, uint64_t *slots, uint32_t cap) {
  if (r == NULL || slots == NULL || cap == 0)
    return ATOLL_EINVAL;
  r->slots = slots;
  r->storage_cap = cap;
  r->cap = cap;
  r->head = 0;
  r->count = 0;
  return ATOLL_OK;
}

int atoll_ring_push(struct atoll_ring *r, uint64_t v) {
  if (!atoll_ring_is_valid(r))
    return ATOLL_EINVAL;
  if (r->count == r->cap)
    return ATOLL_EFULL;
  r->slots[slot_index(r, r->count)] = v;
  r->count++;
  return ATOLL_OK;
}

int atoll_ring_pop(struct atoll_ring *r, uint64_t *out) {
  if (!atoll_ring_is_valid(r) || out == NULL)
    return ATOLL_EINVAL;
  if (r->count == 0)
    return ATOLL_EEMPTY;
  *out = r->slots[r->head];
  /* head < cap, so head + 1 cannot wrap around UINT32_MAX. */
  r->head = (r->head + 1 == r->cap) ? 0 : r->head + 1;
  r->count--;
  return ATOLL_OK;
}

int atoll_ring_peek(const struct atoll_ring *r, uint32_t i, uint64_t *out) {
  if (!atoll_ring_is_valid(r) || out == NULL)
    return ATOLL_EINVAL;
  if (i >= r->count)
    return ATOLL_ERANGE;
  *out = r->slots[slot_index(r, i)];
  return ATOLL_OK;
}

uint32_t atoll_ring_count(const struct atoll_ring *r) {
  if (!atoll_ring_is_valid(r))
    return 0;
  return r->count;
}

bool atoll_ring_is_full(const struct atoll_ring *r) {
  if (!atoll_ring_is_valid(r))
    return false;
  return r->count == r->cap;
}

bool atoll_ring_is_empty(const struct atoll_ring *r) {
  if (!atoll_ring_is_valid(r))
    return true;
  return r->count == 0;
}

uint32_t atoll_ring_clear(struct atoll_ring *r) {
  if (!atoll_ring_is_valid(r))
    return 0;
  uint32_t dropped = r->count;
  r->count = 0;
  r->head = 0;
  return dropped;
}

int atoll_ring_set_capacity(struct atoll_ring *r, uint32_t cap) {
  if (!atoll_ring_is_valid(r))
    return ATOLL_EINVAL;
  if (cap == 0 || cap > r->storage_cap)
    return ATOLL_ERANGE;
  if (r->count > cap)
    return ATOLL_EFULL;
  /* Rotating slots[0..old cap) left by head puts element i at slot i, which is a valid layout
   * for every capacity >= count, so the new capacity needs no further moves. */
  if (r->head != 0)
    rotate_left(r->slots, r->cap, r->head);
  r->head = 0;
  r->cap = cap;
  /*@ assert \forall integer k; 0 <= k < r->count ==> atoll_ring_slot(r, k) == k; */
  /*@ assert \forall integer k; 0 <= k < r->count ==>
        atoll_ring_at(r, k) == \at(atoll_ring_at(r, k), Pre); */
  return ATOLL_OK;
}
