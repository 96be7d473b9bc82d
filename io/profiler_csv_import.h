/* Importing a model from a vendor profiler's kernel-trace CSV (docs/import.md, "Nsight Systems and
 * rocprof"): Nsight Systems' `cuda_gpu_trace` report and rocprof's kernel trace. Each row is one GPU
 * operation; the rows become a profile exactly as a PyTorch trace's events do (torch_import.h):
 * iterations cut by the period of the op sequence, one op per kernel and copy, occupancy from
 * registers and shared memory against the preset's limits, idempotence unknown. */
#ifndef ATOLL_IO_PROFILER_CSV_IMPORT_H
#define ATOLL_IO_PROFILER_CSV_IMPORT_H

#include "io/torch_import.h"

typedef enum atoll_csv_trace_kind { ATOLL_CSV_NSYS, ATOLL_CSV_ROCPROF } atoll_csv_trace_kind;

/* Reads the CSV at path. Bad input (a missing column, a row with another number of fields than
 * the header, a value that is not a number) is an error at FILE:LINE. */
int atoll_csv_trace_import(atoll_arena *a, const char *path, atoll_csv_trace_kind kind, const atoll_gpu *gpu,
                           const atoll_torch_opts *o, atoll_model *out, atoll_torch_info *info, atoll_diag *d);
int atoll_csv_trace_import_source(atoll_arena *a, const atoll_source *src, atoll_csv_trace_kind kind,
                                  const atoll_gpu *gpu, const atoll_torch_opts *o, atoll_model *out,
                                  atoll_torch_info *info, atoll_diag *d);

#endif
