/* MPI start and end, and sweeps over MPI ranks (mpi_ranks.h). */
#include "tools/atoll/mpi_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef ATOLL_HAVE_MPI
#include <mpi.h>

static bool started, threads_ok;

/* Launchers set these; a plain `atoll sweep` must not start MPI (a singleton start is slow and,
 * in containers, noisy). */
static bool under_launcher(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("SLURM_PROCID");
}

void atoll_mpi_start(int *rank, int *size) {
  *rank = 0, *size = 1;
  if (!under_launcher())
    return;
  /* Serialized: the explorer's worker threads call MPI, one at a time (mpi_explore.c). */
  int provided;
  if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
    return;
  started = true;
  threads_ok = provided >= MPI_THREAD_SERIALIZED;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

bool atoll_mpi_threads_ok(void) { return threads_ok; }

void atoll_mpi_finish(void) {
  if (started)
    MPI_Finalize();
  started = false;
}

void atoll_mpi_abort(int status) {
  if (started)
    MPI_Abort(MPI_COMM_WORLD, status);
  exit(status);
}

enum { TAG_WORK = 1, TAG_RESULT = 2 };

/* A result: int32 run (-1: none yet, the first request), status, row length, summary length, then
 * the two strings without their terminators. */
static int send_result(int32_t run, int32_t status, const char *row, const char *summary) {
  int32_t head[4] = {run, status, row ? (int32_t)strlen(row) : -1, summary ? (int32_t)strlen(summary) : -1};
  size_t n = sizeof head + (size_t)(head[2] > 0 ? head[2] : 0) + (size_t)(head[3] > 0 ? head[3] : 0);
  char *buf = malloc(n);
  if (!buf)
    return -1;
  memcpy(buf, head, sizeof head);
  if (head[2] > 0)
    memcpy(buf + sizeof head, row, (size_t)head[2]);
  if (head[3] > 0)
    memcpy(buf + sizeof head + (head[2] > 0 ? head[2] : 0), summary, (size_t)head[3]);
  int rc = MPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_RESULT, MPI_COMM_WORLD);
  free(buf);
  return rc == MPI_SUCCESS ? 0 : -1;
}

static char *take_string(const char *p, int32_t len) {
  if (len < 0)
    return NULL;
  char *s = malloc((size_t)len + 1);
  if (s) {
    memcpy(s, p, (size_t)len);
    s[len] = '\0';
  }
  return s;
}

int atoll_mpi_sweep(void *ctx, atoll_mpi_run_fn fn, uint32_t first, uint32_t step, uint32_t n_runs, char **rows,
                    char **summaries, int *status) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank != 0) {
    int32_t run = -1;
    for (;;) {
      if (send_result(run, run >= 0 ? status[run] : 0, run >= 0 ? rows[run] : NULL,
                      run >= 0 ? summaries[run] : NULL) != 0)
        return -1;
      if (run >= 0) {
        free(rows[run]), free(summaries[run]);
        rows[run] = summaries[run] = NULL;
      }
      if (MPI_Recv(&run, 1, MPI_INT32_T, 0, TAG_WORK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
      if (run < 0)
        return 0;
      fn(ctx, (uint32_t)run);
    }
  }
  uint64_t next = first;
  int active = size - 1;
  while (active > 0) {
    MPI_Status st;
    int n;
    MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_BYTE, &n);
    char *buf = malloc((size_t)n);
    if (!buf) {
      fprintf(stderr, "atoll sweep: out of memory receiving a result\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Recv(buf, n, MPI_BYTE, st.MPI_SOURCE, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int32_t head[4];
    memcpy(head, buf, sizeof head);
    if (head[0] >= 0) {
      uint32_t r = (uint32_t)head[0];
      status[r] = head[1];
      rows[r] = take_string(buf + sizeof head, head[2]);
      summaries[r] = take_string(buf + sizeof head + (head[2] > 0 ? head[2] : 0), head[3]);
    }
    free(buf);
    int32_t give = -1;
    if (next < n_runs) {
      give = (int32_t)next;
      next += step;
    } else {
      active--;
    }
    MPI_Send(&give, 1, MPI_INT32_T, st.MPI_SOURCE, TAG_WORK, MPI_COMM_WORLD);
  }
  return 0;
}

#else

void atoll_mpi_start(int *rank, int *size) { *rank = 0, *size = 1; }
bool atoll_mpi_threads_ok(void) { return true; }
void atoll_mpi_finish(void) {}
void atoll_mpi_abort(int status) { exit(status); }
int atoll_mpi_sweep(void *ctx, atoll_mpi_run_fn fn, uint32_t first, uint32_t step, uint32_t n_runs, char **rows,
                    char **summaries, int *status) {
  (void)rows, (void)summaries, (void)status;
  for (uint64_t r = first; r < n_runs; r += step)
    fn(ctx, (uint32_t)r);
  return 0;
}

#endif
