/* Restart points (REEF §4.4): where a task whose kernel was killed re-executes from.
 *
 * After a CU reset the core reads the preempted stream's execution index, which names the op that
 * was running. Re-executing that op alone is safe when it is idempotent; otherwise the task must
 * go back to the entry of the op's minimal idempotent group, which idem_checker found offline and
 * the model carries as metadata (atoll_op.idem, atoll_op.group_entry). This file holds that one
 * decision, apart from the policy, so that the scheduler core (and through it the simulator and the
 * native runtime) and the proof in proofs/wp/ use the same function.
 *
 * The contract below states the definition of an idempotent group over the bytes each op accesses.
 * Those accesses live in idem_checker's traces, not in the model, so they are abstract predicates
 * here: the proof shows that the restart point is at or before the interrupted op and that the
 * group it names is idempotent by the definition whenever the metadata is what idem_checker
 * computes (atoll_idem_meta_sound). That idem_checker computes it correctly is tested
 * (tests/idem), not proved. */
#ifndef ATOLL_CORE_RESTART_H
#define ATOLL_CORE_RESTART_H

#include <stdint.h>

#include "atoll/model.h"

/*@
  axiomatic atoll_idem_accesses {
    // Op j of model m accesses byte x at all; its first access to x within the op is a read;
    // it writes x. These are the facts of a memory-access trace (design: idem_checker).
    predicate atoll_idem_touches(atoll_model *m, integer j, integer x);
    predicate atoll_idem_reads_first(atoll_model *m, integer j, integer x);
    predicate atoll_idem_writes(atoll_model *m, integer j, integer x);

    axiom atoll_idem_reads_touch:
      \forall atoll_model *m, integer j, x; atoll_idem_reads_first(m, j, x) ==> atoll_idem_touches(m, j, x);
    axiom atoll_idem_writes_touch:
      \forall atoll_model *m, integer j, x; atoll_idem_writes(m, j, x) ==> atoll_idem_touches(m, j, x);
  }

  // Byte x is an input of the group of ops g..i: its first access in the group is a read.
  predicate atoll_idem_group_input(atoll_model *m, integer g, integer i, integer x) =
    \exists integer j; g <= j <= i && atoll_idem_reads_first(m, j, x) &&
      \forall integer k; g <= k < j ==> !atoll_idem_touches(m, k, x);

  // The definition: ops g..i form an idempotent group when no input of the group is written by
  // the group (no clobber anti-dependency), so re-running g..i from g, after any prefix of it
  // ran, reads the inputs the first run read.
  predicate atoll_idem_group(atoll_model *m, integer g, integer i) =
    g <= i && \forall integer x; atoll_idem_group_input(m, g, i, x) ==>
      \forall integer j; g <= j <= i ==> !atoll_idem_writes(m, j, x);

  // What idem_checker's metadata for op i claims, read as the definition. An unchecked op
  // (ATOLL_IDEM_UNKNOWN) is taken as idempotent, as REEF takes TVM's kernels (§4.4): an
  // assumption, stated here where it is made. ATOLL_IDEM_NONE claims nothing (the op is never killed).
  predicate atoll_idem_meta_sound{L}(atoll_model *m, integer i) =
    ((m->ops[i].idem == ATOLL_IDEM_YES || m->ops[i].idem == ATOLL_IDEM_UNKNOWN) ==>
       atoll_idem_group(m, i, i)) &&
    (m->ops[i].idem == ATOLL_IDEM_GROUP ==>
       m->ops[i].group_entry <= i && atoll_idem_group(m, m->ops[i].group_entry, i));
*/

/* The op a task restarts at when op `running` of model m was killed: `running` itself unless the
 * metadata names a group entry (ATOLL_IDEM_GROUP), then that entry. The metadata must be valid
 * (atoll_op_is_valid: one of the four values, a group entry at or before its op); a non-restorable op
 * (ATOLL_IDEM_NONE) is never killed, and restarts where it stands. */
/*@
  requires \valid_read(m) && running < m->n_ops && \valid_read(m->ops + running);
  requires m->ops[running].idem == ATOLL_IDEM_UNKNOWN || m->ops[running].idem == ATOLL_IDEM_YES ||
           m->ops[running].idem == ATOLL_IDEM_GROUP || m->ops[running].idem == ATOLL_IDEM_NONE;
  requires m->ops[running].idem == ATOLL_IDEM_GROUP ==> m->ops[running].group_entry <= running;
  assigns \nothing;
  ensures \result <= running;
  ensures m->ops[running].idem == ATOLL_IDEM_GROUP ==> \result == m->ops[running].group_entry;
  ensures m->ops[running].idem != ATOLL_IDEM_GROUP ==> \result == running;
  ensures m->ops[running].idem != ATOLL_IDEM_NONE && atoll_idem_meta_sound(m, running) ==>
            atoll_idem_group(m, \result, running);
*/
uint32_t atoll_restart_point(const atoll_model *m, uint32_t running);

#endif
