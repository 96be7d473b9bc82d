/* MPI ranks for sweeps (mpi_ranks.h). */
#include "tools/atoll/mpi_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#include "atoll/expect.h"

#ifdef ATOLL_HAVE_MPI
#include <mpi.h>

static bool started;

/* Launchers set these; a plain `atoll sweep` must not start MPI (a singleton start is slow and,
 * in containers, noisy). */
static bool under_launcher(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") || getenv("SLURM_PROCID");
}

void atoll_mpi_start(int *rank, int *size) {
  *rank = 0, *size = 1;
  if (!under_launcher())
    return;
  if (MPI_Init(NULL, NULL) != MPI_SUCCESS)
    return;
  started = true;
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
}

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

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Max and min reductions of values that may be NaN (no value): NaN is sent as -inf / +inf. */
static void reduce_extreme(double *v, uint32_t n, bool max) {
  for (uint32_t i = 0; i < n; i++)
    if (isnan(v[i]))
      v[i] = max ? -INFINITY : INFINITY;
  MPI_Allreduce(MPI_IN_PLACE, v, (int)n, MPI_DOUBLE, max ? MPI_MAX : MPI_MIN, MPI_COMM_WORLD);
  for (uint32_t i = 0; i < n; i++)
    if (isinf(v[i]))
      v[i] = NAN;
}

int atoll_mpi_explore_merge(const atoll_scenario *s, atoll_explore_result *r, const uint64_t *hashes, uint64_t n) {
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  uint64_t sums[7] = {r->schedules, r->pruned, r->choices, r->events, r->replayed_events, r->unfinished, r->max_depth};
  MPI_Allreduce(MPI_IN_PLACE, sums, 6, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &sums[6], 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  uint32_t nb = s->n_expects;
  double *v = malloc((2 * (size_t)nb + 1) * sizeof *v);
  int *flags = malloc(((size_t)nb + 2) * sizeof *flags);
  if (!v || !flags) {
    free(v), free(flags);
    return -1;
  }
  for (uint32_t i = 0; i < nb; i++)
    v[i] = v[nb + i] = r->bounds[i].worst;
  v[2 * nb] = r->worst_rt_latency_us;
  reduce_extreme(v, nb, true);
  reduce_extreme(v + nb, nb, false);
  reduce_extreme(v + 2 * nb, 1, true);
  for (uint32_t i = 0; i < nb; i++)
    flags[i] = r->bounds[i].holds;
  flags[nb] = r->complete;
  MPI_Allreduce(MPI_IN_PLACE, flags, (int)nb + 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  flags[nb + 1] = r->violated;
  MPI_Allreduce(MPI_IN_PLACE, &flags[nb + 1], 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  /* The states: every rank's hashes to rank 0, which counts the distinct ones. */
  int count = (int)n;
  int *counts = rank == 0 ? malloc((size_t)size * sizeof *counts) : NULL;
  int *displs = rank == 0 ? malloc((size_t)size * sizeof *displs) : NULL;
  MPI_Gather(&count, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
  uint64_t total = 0;
  if (rank == 0)
    for (int i = 0; i < size; i++)
      displs[i] = (int)total, total += (uint64_t)counts[i];
  uint64_t *all = rank == 0 ? malloc((total ? total : 1) * sizeof *all) : NULL;
  MPI_Gatherv(hashes, count, MPI_UINT64_T, all, counts, displs, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    qsort(all, total, sizeof *all, cmp_u64);
    uint64_t distinct = 0;
    for (uint64_t i = 0; i < total; i++)
      distinct += i == 0 || all[i] != all[i - 1];
    r->states = distinct;
    r->schedules = sums[0], r->pruned = sums[1], r->choices = sums[2], r->events = sums[3];
    r->replayed_events = sums[4], r->unfinished = sums[5], r->max_depth = (uint32_t)sums[6];
    r->worst_rt_latency_us = v[2 * nb];
    for (uint32_t i = 0; i < nb; i++) {
      const atoll_expect *e = &s->expects[i];
      atoll_explore_bound *b = &r->bounds[i];
      bool upper = e->cmp == ATOLL_CMP_LE || e->cmp == ATOLL_CMP_LT;
      b->worst = upper ? v[i] : v[nb + i];
      b->holds = flags[i];
      b->margin = NAN;
      if (!isnan(b->worst))
        atoll_expect_holds(e->cmp, e->value, b->worst, &b->margin);
    }
    r->complete = flags[nb];
    r->violated = flags[nb + 1];
    if (!r->complete && !r->why)
      r->why = "a rank stopped before the end (--max-states or --max-seconds, per rank)";
  }
  free(all), free(counts), free(displs), free(v), free(flags);
  return 0;
}

#else

void atoll_mpi_start(int *rank, int *size) { *rank = 0, *size = 1; }
void atoll_mpi_finish(void) {}
void atoll_mpi_abort(int status) { exit(status); }
int atoll_mpi_explore_merge(const atoll_scenario *s, atoll_explore_result *r, const uint64_t *hashes, uint64_t n) {
  (void)s, (void)r, (void)hashes, (void)n;
  return 0;
}
int atoll_mpi_sweep(void *ctx, atoll_mpi_run_fn fn, uint32_t first, uint32_t step, uint32_t n_runs, char **rows,
                    char **summaries, int *status) {
  (void)rows, (void)summaries, (void)status;
  for (uint64_t r = first; r < n_runs; r += step)
    fn(ctx, (uint32_t)r);
  return 0;
}

#endif
