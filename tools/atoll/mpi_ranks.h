/* MPI for `mpirun -n N atoll sweep|explore` (docs/scale-out.md). Built only with ATOLL_MPI; without
 * it (or when atoll was not started by an MPI launcher) there is one rank and nothing is sent.
 *
 * A sweep under MPI: rank 0 hands out run indices one at a time to the other ranks as they ask
 * (dynamic distribution: a rank that drew cheap runs asks again sooner), receives each run's CSV
 * row, summary line and status, and writes the CSV itself, in cross-product order: the bytes of
 * a one-process sweep. Rank 0 runs nothing itself, so N ranks run N - 1 at a time.
 *
 * An exploration under MPI: mpi_explore.h. */
#ifndef ATOLL_TOOLS_MPI_RANKS_H
#define ATOLL_TOOLS_MPI_RANKS_H

#include <stdbool.h>
#include <stdint.h>

/* Starts MPI when launched by mpirun/srun with more than one rank; *rank = 0, *size = 1 otherwise. */
void atoll_mpi_start(int *rank, int *size);
void atoll_mpi_finish(void);
/* Whether several threads of a rank may call MPI (one at a time): false when the MPI gives less. */
bool atoll_mpi_threads_ok(void);
/* Ends every rank of the job with this status (MPI_Abort); exits when there is no MPI. */
void atoll_mpi_abort(int status) __attribute__((noreturn));

/* Runs run `run` into rows[run], summaries[run], status[run] (malloc'd strings, or NULL). */
typedef void (*atoll_mpi_run_fn)(void *ctx, uint32_t run);

/* Runs runs first, first + step, ... below n_runs over the ranks. On rank 0 the three arrays are
 * filled for every one of those runs; other ranks return when no run is left. 0, or -1 after
 * printing why (a rank that stops answering ends the whole job through the launcher). */
int atoll_mpi_sweep(void *ctx, atoll_mpi_run_fn fn, uint32_t first, uint32_t step, uint32_t n_runs, char **rows,
                    char **summaries, int *status);

#endif
