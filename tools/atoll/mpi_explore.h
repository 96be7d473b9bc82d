/* MPI ranks sharing one exploration (`mpirun -n N atoll explore`, docs/scale-out.md).
 *
 * The visited set is partitioned over the ranks by state hash (atoll_explore_net, explore.h): a
 * rank that reaches a new state another rank owns hands it over (hash, event count, the choices
 * that reach it) and ends that run; the owner keeps the state if it is new to it and searches
 * below it. Handed states travel in batches, one message per destination of up to 64 KiB or 2 ms
 * old, sent without waiting (MPI_Isend). A rank with idle workers receives them.
 *
 * Termination: rank 0, once idle, sends waves of probes; every rank answers with whether it is
 * idle and how many batches it has sent and received. Two waves in a row in which every rank was
 * idle, the counts did not change and as many batches were received as sent mean that no batch is
 * in flight and no rank can become busy again: rank 0 then tells every rank the search is over
 * (the four-counter method). Built only with ATOLL_MPI. */
#ifndef ATOLL_TOOLS_MPI_EXPLORE_H
#define ATOLL_TOOLS_MPI_EXPLORE_H

#include <stdbool.h>
#include <stdint.h>

#include "atoll/scenario.h"
#include "sim/explore.h"

typedef struct atoll_mpi_net atoll_mpi_net;

/* A net over MPI_COMM_WORLD for one exploration; NULL when out of memory. */
atoll_mpi_net *atoll_mpi_net_new(void);
const atoll_explore_net *atoll_mpi_net_iface(atoll_mpi_net *n);
/* After this rank's search returned (whole or stopped): takes part in the termination until every
 * rank's search is over, dropping states still handed to it, then frees the net. 0 or -1. */
int atoll_mpi_net_finish(atoll_mpi_net *n);

/* Merges every rank's share onto rank 0: counts and states summed (each rank holds the states it
 * owns), worst values per bound, verdicts, completeness. 0, or -1. Other ranks' r is left as it was. */
int atoll_mpi_explore_merge(const atoll_scenario *s, atoll_explore_result *r);

#endif
