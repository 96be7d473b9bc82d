/* Ring buffer: a bounded FIFO of uint64_t values in storage that the caller owns.
 *
 * The simulator's device queues (DQ) are rings with a small capacity (REEF uses 4, stock runtimes
 * hundreds), and the native runtime keeps the same structure under its own locks, so the ring
 * holds plain uint64_t values (handles or indices into the caller's tables) rather than pointers
 * or generic bytes: fixed element types keep it copyable, hashable and provable with Frama-C/WP.
 * The caller gives the storage once at init and the ring never allocates. Because a DQ's capacity
 * is a run-time knob (the core may shrink it to bound preemption latency), the ring separates the
 * storage it was given (`storage_cap`) from the capacity it currently enforces (`cap`);
 * atoll_ring_set_capacity() moves between the two without losing or reordering values.
 *
 * Element i (0 = oldest) lives in slots[(head + i) mod cap]. Every function checks its
 * preconditions at run time, including atoll_ring_is_valid(), which costs O(1): a caller error
 * yields a negative ATOLL_E* code and leaves the ring unchanged. Not thread-safe by design. */
#ifndef ATOLL_DS_RING_H
#define ATOLL_DS_RING_H

#include <stdbool.h>
#include <stdint.h>

struct atoll_ring {
  uint64_t *slots;      /* caller's storage, storage_cap elements */
  uint32_t storage_cap; /* length of slots, fixed at init */
  uint32_t cap;         /* enforced capacity, 1 <= cap <= storage_cap */
  uint32_t head;        /* index of the oldest element, head < cap */
  uint32_t count;       /* number of elements, count <= cap */
};

/* Starts an empty ring over slots[0..cap); cap becomes both the storage and the enforced
 * capacity. ATOLL_EINVAL when r or slots is NULL or cap is 0. */
int atoll_ring_init(struct atoll_ring *r, uint64_t *slots, uint32_t cap);

/* Appends v at the tail. ATOLL_EFULL when count == cap, ATOLL_EINVAL for an invalid ring. */
int atoll_ring_push(struct atoll_ring *r, uint64_t v);

/* Removes the oldest value into *out. ATOLL_EEMPTY when empty; ATOLL_EINVAL when out is NULL
 * or the ring is invalid. */
int atoll_ring_pop(struct atoll_ring *r, uint64_t *out);

/* Copies the i-th value from the head (0 = the next pop) into *out without removing it.
 * ATOLL_ERANGE when i >= count; ATOLL_EINVAL when out is NULL or the ring is invalid. */
int atoll_ring_peek(const struct atoll_ring *r, uint32_t i, uint64_t *out);

/* Queries. An invalid ring (NULL included) reads as empty: count 0, empty, not full. */
uint32_t atoll_ring_count(const struct atoll_ring *r);
bool atoll_ring_is_full(const struct atoll_ring *r);
bool atoll_ring_is_empty(const struct atoll_ring *r);

/* Drops every value and returns how many were dropped (0 for an invalid ring), which is what a
 * device's "reset HQ/DQ" command reports. */
uint32_t atoll_ring_clear(struct atoll_ring *r);

/* Changes the enforced capacity to cap within the storage given at init, keeping the values and
 * their order. ATOLL_ERANGE unless 1 <= cap <= storage_cap; ATOLL_EFULL when count > cap;
 * ATOLL_EINVAL for an invalid ring. Costs O(old cap): the values are rotated in place so that
 * the oldest one sits at slot 0, after which any capacity >= count is consistent. */
int atoll_ring_set_capacity(struct atoll_ring *r, uint32_t cap);

/* True when r is non-NULL, has storage, 1 <= cap <= storage_cap, head < cap and count <= cap. */
bool atoll_ring_is_valid(const struct atoll_ring *r);

#endif
