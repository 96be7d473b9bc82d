/* Reset-based preemption (REEF §4, Figs. 7 and 8) as a Promela model, checked exhaustively by Spin.
 *
 * How the model stands for the GPU: two streams, RT (0) and BE (1). Each has a host queue (HQ, a
 * channel the scheduler pushes commands into) and a device queue (DQ, a channel of capacity
 * DQ_CAP); a transmit thread per stream moves commands from its HQ into its DQ while the DQ has
 * room. The command processor (CP) takes the head of a DQ whose stream is idle and dispatches it to
 * compute units (CUs, a pool of N_CUS); a kernel then runs on the CUs in steps: prologue (checks the
 * stream's preempt flag and exits if it is set: lazy eviction), execution index record, body read,
 * body write, completion. A CU reset kills whatever BE kernel is on the CUs between any two steps.
 * A GC thread reclaims the commands an HQ reset dropped (asynchronous reclamation).
 *
 * The scheduler (host) runs one BE task of N_OPS kernels and up to N_RT RT requests, which arrive
 * at any moment. An RT arrival in normal mode switches to real-time mode and preempts the BE
 * stream: (1) reset its HQ, (2) set its preempt flag, (3) reset the CUs; then it reads the
 * execution index, and the task restarts at the idempotent group entry of the interrupted kernel
 * (idempotence metadata `entry`, as idem_checker writes it). RT kernels may be padded with the BE
 * task's next kernel (dynamic kernel padding: the BE kernel runs inside the RT launch). When no RT
 * work is left, normal mode resumes: once the BE DQ has drained the evicted commands (and none is
 * still on the CUs) the flag is cleared and the task is relaunched from its restart point.
 *
 * The BE kernels compute on a small memory, so re-execution can be told apart from a clean run:
 *   op0: m1 = m0 + 1     op1: m2 = m1 * 2     op2: m2 = m2 + 1 (in place)     op3: m3 = m2 + m0
 * op2 is not idempotent alone; its minimal idempotent group starts at op1.
 *
 * Properties (all checked in one exhaustive run, proofs/spin/README.md):
 *   P1 outputs      when the BE task completes, memory equals the uninterrupted run's
 *   P2 restart      every re-execution starts at the entry of a group that is idempotent by the
 *                   definition (computed here from the ops' access masks), at or before the
 *                   interrupted kernel
 *   P3 isolation    no BE kernel body runs beside an RT kernel body outside a padded launch
 *   P4 eviction     no evicted command (launched before a preemption) runs its body
 *   P5 no deadlock  every final state is a valid end state (Spin's invalid-end-state check)
 *   P6 RT liveness  ltl rt_served: every RT request eventually completes (weak fairness)
 * Mutants (-D): MUTANT_RESTORE_NEXT restores from the execution index + 1; MUTANT_EARLY_CLEAR clears
 * the flag and relaunches without waiting for the DQ to drain. Both must fail, and must fail P1
 * alone too (-DONLY_P1 keeps only the outputs assertion). Witnesses (-D
 * WITNESS_*) assert that an interesting state is unreachable, so that Spin reaching it shows the
 * checked runs are not vacuous. */

#define N_OPS   4   /* BE kernels */
#define N_CELLS 4   /* memory cells the BE kernels use */
#define N_RT    2   /* RT requests */
#define DQ_CAP  2   /* device queue capacity (REEF uses 4) */
#define N_CUS   2   /* compute units */
#define NOPAD   255 /* an RT command without padding */

#define RT 0
#define BE 1

/* Kernel stages on the CUs. */
#define IDLE       0
#define DISPATCHED 1 /* on the CUs, prologue not yet run */
#define CHECKED    2 /* prologue found the flag clear */
#define RECORDED   3 /* execution index written */
#define READ       4 /* body has read its inputs */
#define WRITTEN    5 /* body has written its output */

/* Memory, and the uninterrupted run's memory. */
byte mem[N_CELLS];
byte ref[N_CELLS];

/* Access masks (bit c = cell c): cells whose first access in the op is a read, and cells written. */
byte rd_first[N_OPS];
byte wr[N_OPS];
/* Idempotence metadata: entry of each op's minimal idempotent group (op itself when idempotent). */
byte entry[N_OPS];
/* idem_def[g * N_OPS + i]: ops g..i form an idempotent group by the definition. */
bool idem_def[N_OPS * N_OPS];

/* Queues. A command is (op, epoch, padded op). */
chan hq[2] = [N_OPS] of { byte, byte, byte };
chan dq[2] = [DQ_CAP] of { byte, byte, byte };

bool flag;          /* BE stream's preempt flag (RT is never preempted) */
byte cus_free = N_CUS;
byte garbage;       /* HQ commands dropped and not yet reclaimed by GC */

/* Execution index of the BE stream: the command whose prologue ran last. */
byte exec_op = 255;
byte exec_ep;

/* The BE kernel on the CUs. */
byte be_stage, be_op, be_ep, be_val;
bool be_in_body;
/* The RT kernel on the CUs, with its padding. */
byte rt_stage, rt_pad, rt_pad_ep, pad_val;
bool rt_in_body, rt_finished;

/* Scheduler state of the BE task. */
byte n_done, next_launch, epoch;
bool paused;
bool mode_rt;

/* RT requests. */
byte rt_arrived, rt_taken, rt_completed;
bool rt_active;

/* Witness counters. */
byte killed_after_write, group_restores, padded_done, evicted_exits;

/* The kernels' bodies: read the inputs into v, then write v. A macro, not an inline, because it
 * runs on two arrays (the live memory and the reference). */
#define COMPUTE(m, i, v) \
  if \
  :: i == 0 -> v = m[0] + 1 \
  :: i == 1 -> v = m[1] * 2 \
  :: i == 2 -> v = m[2] + 1 \
  :: i == 3 -> v = m[2] + m[0] \
  fi

#define STORE(m, i, v) \
  if \
  :: i == 0 -> m[1] = v \
  :: i == 1 -> m[2] = v \
  :: i == 2 -> m[2] = v \
  :: i == 3 -> m[3] = v \
  fi

/* The definition (design: idem_checker): a group g..i is idempotent when no cell whose first
 * access in the group is a read is written by the group. */
inline compute_idem_def(g, i, j, seen, rdf, wrt) {
  for (g : 0 .. N_OPS - 1) {
    for (i : g .. N_OPS - 1) {
      seen = 0; rdf = 0; wrt = 0;
      for (j : g .. i) {
        rdf = rdf | (rd_first[j] & ~seen);
        wrt = wrt | wr[j];
        seen = seen | rd_first[j] | wr[j]
      }
      idem_def[g * N_OPS + i] = ((rdf & wrt) == 0)
    }
  }
}

/* Commands n_done.. of the BE task go to its HQ, tagged with the task's epoch. */
inline launch_be() {
  do
  :: next_launch < N_OPS -> hq[BE]!next_launch, epoch, NOPAD; next_launch++
  :: else -> break
  od
}

/* Steps (1) to (3), then the restart point read right after the kill (REEF Fig. 6). */
inline preempt(running, restart, dropped_op, dropped_ep, dropped_pad) {
  if
  :: !paused && next_launch > n_done ->
     do                                           /* (1) reset HQ; GC reclaims */
     :: hq[BE]?dropped_op, dropped_ep, dropped_pad -> garbage++
     :: empty(hq[BE]) -> break
     od;
     flag = 1;                                    /* (2) lazy eviction of the DQ */
     if                                           /* (3) CU reset kills the BE kernel */
     :: be_stage != IDLE ->
        if
        :: be_stage == WRITTEN -> killed_after_write++
        :: else -> skip
        fi;
        be_stage = IDLE; be_in_body = 0; cus_free++
     :: else -> skip
     fi;
     /* The execution index names the interrupted kernel when it is a command of this launch that
      * has not completed; otherwise nothing of the task was interrupted. */
     if
     :: exec_op != 255 && exec_ep == epoch && exec_op >= n_done && exec_op < next_launch ->
        running = exec_op;
#ifdef MUTANT_RESTORE_NEXT
        restart = running + 1;
#else
        restart = entry[running];
#endif
#ifndef ONLY_P1
        /* P2: an idempotent group entry at or before the interrupted kernel. */
        assert(restart <= running && idem_def[restart * N_OPS + running]);
#endif
        if
        :: restart < running -> group_restores++
        :: else -> skip
        fi
     :: else -> restart = n_done
     fi;
     n_done = restart; next_launch = restart; epoch++; paused = 1
  :: else -> skip
  fi
}

proctype host() {
  byte running, restart, d_op, d_ep, d_pad, c;
  launch_be();
  do
  :: atomic { !mode_rt && rt_arrived > rt_taken -> mode_rt = 1; preempt(running, restart, d_op, d_ep, d_pad) }
  :: atomic { mode_rt && !rt_active && rt_arrived > rt_taken ->
       rt_taken++; rt_active = 1;
       if   /* padding may take the paused BE task's next kernel */
       :: paused && n_done < N_OPS -> hq[RT]!0, 0, n_done
       :: true -> hq[RT]!0, 0, NOPAD
       fi }
  :: atomic { rt_active && rt_finished -> rt_active = 0; rt_finished = 0; rt_completed++ }
  :: atomic { mode_rt && !rt_active && rt_arrived == rt_taken -> mode_rt = 0 }
#ifdef MUTANT_EARLY_CLEAR
  :: atomic { !mode_rt && paused -> flag = 0; paused = 0; launch_be() }
#else
  /* The flag is cleared only once the DQ has drained the evicted commands and none is on the CUs. */
  :: atomic { !mode_rt && paused && empty(dq[BE]) && be_stage == IDLE ->
       flag = 0; paused = 0; launch_be() }
#endif
  :: atomic { !mode_rt && !paused && n_done == N_OPS && rt_completed == N_RT -> break }
  od;
  /* P1: the task's outputs equal the uninterrupted run's. */
  for (c : 0 .. N_CELLS - 1) {
    assert(mem[c] == ref[c])
  }
#ifdef WITNESS_GROUP_RESTORE
  assert(!(killed_after_write > 0 && group_restores > 0));
#endif
#ifdef WITNESS_PADDING
  assert(padded_done == 0);
#endif
#ifdef WITNESS_EVICTION
  assert(evicted_exits == 0);
#endif
}

proctype rt_client() {
  do
  :: rt_arrived < N_RT -> rt_arrived++
  :: else -> break
  od
}

/* One transmit thread per stream; the transfer holds the HQ lock, so an HQ reset never races it. */
proctype transmit(byte s) {
  byte op, ep, pad;
end:
  do
  :: atomic { nempty(hq[s]) && nfull(dq[s]) -> hq[s]?op, ep, pad; dq[s]!op, ep, pad }
  od
}

proctype gc() {
end:
  do
  :: atomic { garbage > 0 -> garbage-- }
  od
}

/* The command processor: one DQ head at a time, to a stream that has no kernel on the CUs. */
proctype cp() {
  byte op, ep, pad;
end:
  do
  :: atomic { nempty(dq[BE]) && be_stage == IDLE && cus_free > 0 ->
       dq[BE]?be_op, be_ep, pad; cus_free--; be_stage = DISPATCHED }
  :: atomic { nempty(dq[RT]) && rt_stage == IDLE && dq[RT]?[op, ep, NOPAD] && cus_free > 0 ->
       dq[RT]?op, ep, rt_pad; cus_free--; rt_stage = DISPATCHED }
  :: atomic { nempty(dq[RT]) && rt_stage == IDLE && !dq[RT]?[op, ep, NOPAD] && cus_free > 1 ->
       /* A padded launch takes the CUs of both parts; its BE part belongs to the current epoch. */
       dq[RT]?op, ep, rt_pad; rt_pad_ep = epoch; cus_free = cus_free - 2; rt_stage = DISPATCHED }
  od
}

/* The BE kernel's steps on the CUs (REEF Fig. 8 lines 1-5). */
proctype be_kernel() {
end:
  do
  :: atomic { be_stage == DISPATCHED ->
       if
       :: flag -> be_stage = IDLE; cus_free++; evicted_exits++   /* exits in its prologue */
       :: else -> be_stage = CHECKED
       fi }
  :: atomic { be_stage == CHECKED -> exec_op = be_op; exec_ep = be_ep; be_stage = RECORDED }
  :: atomic { be_stage == RECORDED ->
#ifndef ONLY_P1
       assert(be_ep == epoch);            /* P4 */
       assert(!rt_in_body);               /* P3 */
#endif
       be_in_body = 1; COMPUTE(mem, be_op, be_val); be_stage = READ }
  :: atomic { be_stage == READ -> STORE(mem, be_op, be_val); be_stage = WRITTEN }
  :: atomic { be_stage == WRITTEN ->
       be_in_body = 0;
       if
       :: be_ep == epoch && be_op == n_done -> n_done++
       :: else -> skip
       fi;
       be_stage = IDLE; cus_free++ }
  od
}

/* An RT kernel, possibly padded with a BE kernel that runs in the same launch. */
proctype rt_kernel() {
end:
  do
  :: atomic { rt_stage == DISPATCHED ->
#ifndef ONLY_P1
       assert(!be_in_body);               /* P3 */
#endif
       rt_in_body = 1;
       if
       :: rt_pad != NOPAD -> COMPUTE(mem, rt_pad, pad_val)
       :: else -> skip
       fi;
       rt_stage = READ }
  :: atomic { rt_stage == READ ->
       if
       :: rt_pad != NOPAD ->
          STORE(mem, rt_pad, pad_val);
#ifndef ONLY_P1
          /* Padding ran the paused task's next kernel (P4: nothing of an older launch). */
          assert(rt_pad_ep == epoch && rt_pad == n_done && paused);
#endif
          n_done++; next_launch = n_done; padded_done++;
          cus_free++
       :: else -> skip
       fi;
       rt_in_body = 0; rt_finished = 1; rt_stage = IDLE; cus_free++ }
  od
}

ltl rt_served { [] ((rt_arrived > rt_completed) -> <> (rt_arrived == rt_completed)) }

init {
  byte g, i, j, seen, rdf, wrt, v;
  atomic {
    /* Access masks of op0..op3 (cells m0..m3 are bits 0..3). */
    rd_first[0] = 1; wr[0] = 2;
    rd_first[1] = 2; wr[1] = 4;
    rd_first[2] = 4; wr[2] = 4;
    rd_first[3] = 5; wr[3] = 8;
    entry[0] = 0; entry[1] = 1; entry[2] = 1; entry[3] = 3;
    compute_idem_def(g, i, j, seen, rdf, wrt);
    mem[0] = 3; ref[0] = 3;
    for (i : 0 .. N_OPS - 1) {
      COMPUTE(ref, i, v);
      STORE(ref, i, v)
    }
    run host(); run rt_client(); run transmit(RT); run transmit(BE); run gc(); run cp();
    run be_kernel(); run rt_kernel()
  }
}
