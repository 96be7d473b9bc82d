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

#include "atoll/error.h"

#include <stdbool.h>
#include <stdint.h>

struct atoll_ring {
  uint64_t *slots;      /* caller's storage, storage_cap elements */
  uint32_t storage_cap; /* length of slots, fixed at init */
  uint32_t cap;         /* enforced capacity, 1 <= cap <= storage_cap */
  uint32_t head;        /* index of the oldest element, head < cap */
  uint32_t count;       /* number of elements, count <= cap */
};

/* ACSL model, proved by proofs/wp/ring (Frama-C/WP). The ring's contents are the sequence
 * atoll_ring_at(r, 0 .. count - 1), oldest first; the contracts below state FIFO order in terms
 * of it. atoll_ring_valid is the logical twin of atoll_ring_is_valid(); atoll_ring_mem states
 * what no C function can check: r and its storage are separate, readable and writable objects,
 * and storage_cap is the true length of slots. */
/*@
  predicate atoll_ring_valid{L}(struct atoll_ring *r) =
    r->slots != \null && 1 <= r->cap <= r->storage_cap && r->head < r->cap && r->count <= r->cap;

  predicate atoll_ring_ok{L}(struct atoll_ring *r) = r != \null && atoll_ring_valid(r);

  predicate atoll_ring_mem{L}(struct atoll_ring *r) =
    r == \null ||
    (\valid(r) && (r->slots != \null ==>
                     (\valid(r->slots + (0 .. r->storage_cap - 1)) &&
                      \separated(r, r->slots + (0 .. r->storage_cap - 1)))));

  logic integer atoll_ring_slot{L}(struct atoll_ring *r, integer i) =
    r->head + i < r->cap ? r->head + i : r->head + i - r->cap;

  logic uint64_t atoll_ring_at{L}(struct atoll_ring *r, integer i) =
    r->slots[atoll_ring_slot(r, i)];

  predicate atoll_ring_same_contents{L1, L2}(struct atoll_ring *r) =
    \at(r->count, L1) == \at(r->count, L2) &&
    \forall integer i; 0 <= i < \at(r->count, L1) ==>
      \at(atoll_ring_at(r, i), L1) == \at(atoll_ring_at(r, i), L2);
*/

/* Starts an empty ring over slots[0..cap); cap becomes both the storage and the enforced
 * capacity. ATOLL_EINVAL when r or slots is NULL or cap is 0. */
/*@
  requires r == \null || \valid(r);
  requires slots != \null ==> \valid(slots + (0 .. cap - 1)) && \separated(r, slots + (0 .. cap - 1));
  behavior bad:
    assumes r == \null || slots == \null || cap == 0;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior good:
    assumes r != \null && slots != \null && cap != 0;
    assigns *r;
    ensures \result == ATOLL_OK;
    ensures atoll_ring_valid(r) && atoll_ring_mem(r);
    ensures r->slots == slots && r->storage_cap == cap && r->cap == cap && r->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ring_init(struct atoll_ring *r, uint64_t *slots, uint32_t cap);

/* Appends v at the tail. ATOLL_EFULL when count == cap, ATOLL_EINVAL for an invalid ring. */
/*@
  requires atoll_ring_mem(r);
  behavior invalid:
    assumes !atoll_ring_ok(r);
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior full:
    assumes atoll_ring_ok(r) && r->count == r->cap;
    assigns \nothing;
    ensures \result == ATOLL_EFULL;
  behavior append:
    assumes atoll_ring_ok(r) && r->count < r->cap;
    assigns r->count, r->slots[atoll_ring_slot(r, r->count)];
    ensures \result == ATOLL_OK;
    ensures atoll_ring_valid(r);
    ensures r->count == \old(r->count) + 1;
    ensures \forall integer i; 0 <= i < \old(r->count) ==>
              atoll_ring_at(r, i) == \old(atoll_ring_at(r, i));
    ensures atoll_ring_at(r, \old(r->count)) == v;
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ring_push(struct atoll_ring *r, uint64_t v);

/* Removes the oldest value into *out. ATOLL_EEMPTY when empty; ATOLL_EINVAL when out is NULL
 * or the ring is invalid. */
/*@
  requires atoll_ring_mem(r);
  requires out == \null || (\valid(out) && (r != \null ==> \separated(out, r)));
  requires out != \null && r != \null && r->slots != \null ==>
             \separated(out, r->slots + (0 .. r->storage_cap - 1));
  behavior invalid:
    assumes !atoll_ring_ok(r) || out == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior empty:
    assumes atoll_ring_ok(r) && out != \null && r->count == 0;
    assigns \nothing;
    ensures \result == ATOLL_EEMPTY;
  behavior take:
    assumes atoll_ring_ok(r) && out != \null && r->count > 0;
    assigns r->head, r->count, *out;
    ensures \result == ATOLL_OK;
    ensures atoll_ring_valid(r);
    ensures *out == \old(atoll_ring_at(r, 0));
    ensures r->count == \old(r->count) - 1;
    ensures \forall integer i; 0 <= i < r->count ==>
              atoll_ring_at(r, i) == \old(atoll_ring_at(r, i + 1));
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ring_pop(struct atoll_ring *r, uint64_t *out);

/* Copies the i-th value from the head (0 = the next pop) into *out without removing it.
 * ATOLL_ERANGE when i >= count; ATOLL_EINVAL when out is NULL or the ring is invalid. */
/*@
  requires atoll_ring_mem(r);
  requires out == \null || (\valid(out) && (r != \null ==> \separated(out, r)));
  requires out != \null && r != \null && r->slots != \null ==>
             \separated(out, r->slots + (0 .. r->storage_cap - 1));
  behavior invalid:
    assumes !atoll_ring_ok(r) || out == \null;
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior range:
    assumes atoll_ring_ok(r) && out != \null && i >= r->count;
    assigns \nothing;
    ensures \result == ATOLL_ERANGE;
  behavior read:
    assumes atoll_ring_ok(r) && out != \null && i < r->count;
    assigns *out;
    ensures \result == ATOLL_OK;
    ensures *out == atoll_ring_at(r, i);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ring_peek(const struct atoll_ring *r, uint32_t i, uint64_t *out);

/* Queries. An invalid ring (NULL included) reads as empty: count 0, empty, not full. */
/*@
  requires atoll_ring_mem(r);
  assigns \nothing;
  ensures atoll_ring_ok(r) ==> \result == r->count;
  ensures !atoll_ring_ok(r) ==> \result == 0;
*/
uint32_t atoll_ring_count(const struct atoll_ring *r);
/*@
  requires atoll_ring_mem(r);
  assigns \nothing;
  ensures \result <==> atoll_ring_ok(r) && r->count == r->cap;
*/
bool atoll_ring_is_full(const struct atoll_ring *r);
/*@
  requires atoll_ring_mem(r);
  assigns \nothing;
  ensures \result <==> !atoll_ring_ok(r) || r->count == 0;
*/
bool atoll_ring_is_empty(const struct atoll_ring *r);

/* Drops every value and returns how many were dropped (0 for an invalid ring), which is what a
 * device's "reset HQ/DQ" command reports. */
/*@
  requires atoll_ring_mem(r);
  behavior invalid:
    assumes !atoll_ring_ok(r);
    assigns \nothing;
    ensures \result == 0;
  behavior drop:
    assumes atoll_ring_ok(r);
    assigns r->count, r->head;
    ensures \result == \old(r->count);
    ensures atoll_ring_valid(r) && r->count == 0;
  complete behaviors;
  disjoint behaviors;
*/
uint32_t atoll_ring_clear(struct atoll_ring *r);

/* Changes the enforced capacity to cap within the storage given at init, keeping the values and
 * their order. ATOLL_ERANGE unless 1 <= cap <= storage_cap; ATOLL_EFULL when count > cap;
 * ATOLL_EINVAL for an invalid ring. Costs O(old cap): the values are rotated in place so that
 * the oldest one sits at slot 0, after which any capacity >= count is consistent. */
/*@
  requires atoll_ring_mem(r);
  behavior invalid:
    assumes !atoll_ring_ok(r);
    assigns \nothing;
    ensures \result == ATOLL_EINVAL;
  behavior range:
    assumes atoll_ring_ok(r) && (cap == 0 || cap > r->storage_cap);
    assigns \nothing;
    ensures \result == ATOLL_ERANGE;
  behavior full:
    assumes atoll_ring_ok(r) && 1 <= cap <= r->storage_cap && r->count > cap;
    assigns \nothing;
    ensures \result == ATOLL_EFULL;
  behavior resize:
    assumes atoll_ring_ok(r) && 1 <= cap <= r->storage_cap && r->count <= cap;
    assigns r->head, r->cap, r->slots[0 .. r->cap - 1];
    ensures \result == ATOLL_OK;
    ensures atoll_ring_valid(r) && r->cap == cap;
    ensures atoll_ring_same_contents{Pre, Post}(r);
  complete behaviors;
  disjoint behaviors;
*/
int atoll_ring_set_capacity(struct atoll_ring *r, uint32_t cap);

/* True when r is non-NULL, has storage, 1 <= cap <= storage_cap, head < cap and count <= cap. */
/*@
  requires atoll_ring_mem(r);
  assigns \nothing;
  ensures \result <==> atoll_ring_ok(r);
*/
bool atoll_ring_is_valid(const struct atoll_ring *r);

#endif
