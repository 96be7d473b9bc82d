/* GPU preset loading (docs/gpus.md) and the preset search path. */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atoll/error.h"
#include "io/load.h"
#include "io/suggest.h"

static const char *const gpu_keys[] = {"atoll_gpu", "name", "vendor", "cus", "max_blocks_per_cu",
                                       "max_threads_per_cu", "registers_per_cu", "shared_bytes_per_cu",
                                       "dq_capacity", "copy_engines", "costs", "description", "memory_mb",
                                       "memory_gb_s", "corun_overlap_ppm", "hw_queues"};
enum { K_VERSION, K_NAME, K_VENDOR, K_CUS, K_MAXB, K_MAXT, K_REGS, K_SHARED, K_DQ, K_COPY, K_COSTS, K_DESC, K_MEM, K_MEMBW, K_OVERLAP, K_HWQ, K_N };

/* Cost keys in the order of the atoll_gpu_costs time fields; all in microseconds. */
static const char *const cost_time_keys[] = {"hq_transmit_us",      "cp_dispatch_us",   "stream_switch_us",
                                             "launch_sync_us",      "cu_reset_us",      "hq_reset_per_cmd_us",
                                             "hq_reset_async_us",   "evicted_kernel_us", "kernel_select_us",
                                             "copy_latency_us",     "dq_reset_us"};
enum { N_COST_TIMES = sizeof cost_time_keys / sizeof cost_time_keys[0] };

static int64_t *cost_time_field(atoll_gpu_costs *c, int i) {
  int64_t *fields[N_COST_TIMES] = {&c->hq_transmit_ns,      &c->cp_dispatch_ns,    &c->stream_switch_ns,
                                   &c->launch_sync_ns,      &c->cu_reset_ns,       &c->hq_reset_per_cmd_ns,
                                   &c->hq_reset_async_ns,   &c->evicted_kernel_ns, &c->kernel_select_ns,
                                   &c->copy_latency_ns,     &c->dq_reset_ns};
  return fields[i];
}

static int read_costs(atoll_yread *r, const atoll_ynode *n, atoll_gpu_costs *c, atoll_gpu *g) {
  const char *keys[N_COST_TIMES + 6];
  for (int i = 0; i < N_COST_TIMES; i++)
    keys[i] = cost_time_keys[i];
  keys[N_COST_TIMES] = "copy_bytes_per_us";
  keys[N_COST_TIMES + 1] = "dkp_overhead_ppm";
  keys[N_COST_TIMES + 2] = "host_launch_us"; /* optional: only the launch-bound mode uses it */
  /* Optional, with GSLICE's figures as defaults: only a run-time re-partition (gslice) charges them. */
  keys[N_COST_TIMES + 3] = "partition_load_ms";
  keys[N_COST_TIMES + 4] = "partition_switch_us";
  keys[N_COST_TIMES + 5] = "partition_init_ms"; /* optional, no default: a shadow's load from its weights */
  const atoll_ynode *v[N_COST_TIMES + 6];
  int rc = atoll_yread_map(r, n, "costs", keys, N_COST_TIMES + 6, v);
  if (rc == 0 && v[N_COST_TIMES + 2])
    rc = WITH_KEY(r, "host_launch_us", atoll_yread_time_ns(r, v[N_COST_TIMES + 2], 1000.0, false, &c->host_launch_ns));
  g->partition_load_ns = ATOLL_PARTITION_LOAD_NS_DEFAULT;
  g->partition_switch_ns = ATOLL_PARTITION_SWITCH_NS_DEFAULT;
  if (rc == 0 && v[N_COST_TIMES + 3])
    rc = WITH_KEY(r, "partition_load_ms",
                  atoll_yread_time_ns(r, v[N_COST_TIMES + 3], 1000.0 * 1000.0, true, &g->partition_load_ns));
  if (rc == 0 && v[N_COST_TIMES + 4])
    rc = WITH_KEY(r, "partition_switch_us",
                  atoll_yread_time_ns(r, v[N_COST_TIMES + 4], 1000.0, true, &g->partition_switch_ns));
  if (rc == 0 && v[N_COST_TIMES + 5])
    rc = WITH_KEY(r, "partition_init_ms",
                  atoll_yread_time_ns(r, v[N_COST_TIMES + 5], 1000.0 * 1000.0, false, &g->partition_init_ns));
  for (int i = 0; rc == 0 && i < N_COST_TIMES + 2; i++)
    rc = atoll_yread_require(r, n, v[i], keys[i]);
  for (int i = 0; rc == 0 && i < N_COST_TIMES + 2; i++) {
    atoll_yread_push_key(r, keys[i]);
    if (i < N_COST_TIMES) {
      rc = atoll_yread_time_ns(r, v[i], 1000.0, true, cost_time_field(c, i));
    } else if (i == N_COST_TIMES) {
      rc = atoll_yread_u64(r, v[i], 1, UINT64_C(1) << 40, &c->copy_bytes_per_us);
    } else {
      rc = atoll_yread_u32(r, v[i], 0, 999999, &c->dkp_overhead_ppm);
    }
    atoll_yread_pop(r);
  }
  return rc;
}

static int read_u32_key(atoll_yread *r, const char *key, const atoll_ynode *v, uint32_t min, uint32_t max,
                        uint32_t *out) {
  atoll_yread_push_key(r, key);
  int rc = atoll_yread_u32(r, v, min, max, out);
  atoll_yread_pop(r);
  return rc;
}

int atoll_gpu_from_node(atoll_yread *r, const atoll_ynode *n, atoll_gpu *out) {
  const atoll_ynode *v[K_N];
  int rc = atoll_yread_map(r, n, "GPU description", gpu_keys, K_N, v);
  for (int k = 0; rc == 0 && k < K_N; k++)
    if (k != K_DESC && k != K_MEM && k != K_MEMBW && k != K_OVERLAP && k != K_HWQ)
      rc = atoll_yread_require(r, n, v[k], gpu_keys[k]);
  if (rc)
    return rc;
  atoll_gpu g = {0};
  uint32_t version = 0;
  /* "cpu": a native CPU device measured by `atoll native --profile` (docs/hil.md). */
  static const char *const vendors[] = {"amd", "nvidia", "cpu"};
  uint32_t vendor = 0;
  const char *desc = NULL;
  if ((rc = read_u32_key(r, "atoll_gpu", v[K_VERSION], 1, 1, &version)))
    return rc;
  atoll_yread_push_key(r, "name");
  rc = atoll_yread_name(r, v[K_NAME], &g.name);
  atoll_yread_pop(r);
  if (rc == 0) {
    atoll_yread_push_key(r, "vendor");
    rc = atoll_yread_enum(r, v[K_VENDOR], "vendor", vendors, 3, &vendor);
    atoll_yread_pop(r);
  }
  if (rc == 0 && v[K_DESC]) {
    atoll_yread_push_key(r, "description");
    rc = atoll_yread_str(r, v[K_DESC], &desc);
    atoll_yread_pop(r);
  }
  g.vendor = vendors[vendor];
  if (rc == 0)
    rc = read_u32_key(r, "cus", v[K_CUS], 1, 1024, &g.cus);
  if (rc == 0)
    rc = read_u32_key(r, "max_blocks_per_cu", v[K_MAXB], 1, 1024, &g.max_blocks_per_cu);
  if (rc == 0)
    rc = read_u32_key(r, "max_threads_per_cu", v[K_MAXT], 1, 1u << 16, &g.max_threads_per_cu);
  if (rc == 0)
    rc = read_u32_key(r, "registers_per_cu", v[K_REGS], 1, 1u << 24, &g.registers_per_cu);
  if (rc == 0)
    rc = read_u32_key(r, "shared_bytes_per_cu", v[K_SHARED], 0, 1u << 24, &g.shared_bytes_per_cu);
  if (rc == 0)
    rc = read_u32_key(r, "dq_capacity", v[K_DQ], 1, 1u << 20, &g.dq_capacity);
  if (rc == 0)
    rc = read_u32_key(r, "copy_engines", v[K_COPY], 1, 16, &g.copy_engines);
  if (rc == 0 && v[K_MEM]) {
    atoll_yread_push_key(r, "memory_mb");
    rc = atoll_yread_double(r, v[K_MEM], 0, 1e9, true, &g.memory_mb);
    atoll_yread_pop(r);
  }
  /* memory_gb_s: the bandwidth co-running kernels share (docs/simulator.md, "Memory interference"). */
  if (rc == 0 && v[K_MEMBW]) {
    atoll_yread_push_key(r, "memory_gb_s");
    rc = atoll_yread_double(r, v[K_MEMBW], 0, 1e6, true, &g.memory_bytes_per_ns);
    atoll_yread_pop(r);
  }
  /* corun_overlap_ppm: how much of other kernels' CU demand a block does not meet (docs/simulator.md,
   * "Co-running contention"); below one million, so some contention always remains. */
  if (rc == 0 && v[K_OVERLAP])
    rc = read_u32_key(r, "corun_overlap_ppm", v[K_OVERLAP], 0, 999999, &g.corun_overlap_ppm);
  /* hw_queues: the runtime's hardware-queue pool per process (docs/simulator.md, "Hardware queues"). */
  if (rc == 0 && v[K_HWQ])
    rc = read_u32_key(r, "hw_queues", v[K_HWQ], 1, 1024, &g.hw_queues);
  if (rc == 0) {
    atoll_yread_push_key(r, "costs");
    rc = read_costs(r, v[K_COSTS], &g.costs, &g);
    atoll_yread_pop(r);
  }
  if (rc)
    return rc;
  *out = g;
  return 0;
}

int atoll_gpu_load_file(atoll_arena *a, const char *path, atoll_gpu *out, atoll_diag *d) {
  atoll_source *src;
  int rc = atoll_source_load_file(a, path, &src, d);
  return rc ? rc : atoll_gpu_load_source(a, src, out, d);
}

int atoll_gpu_load_source(atoll_arena *a, const atoll_source *src, atoll_gpu *out, atoll_diag *d) {
  atoll_ynode *root;
  int rc = atoll_ytree_parse(a, src, 0, &root, d);
  if (rc)
    return rc;
  atoll_yread r;
  atoll_yread_init(&r, a, d);
  if (!root) {
    atoll_diag_set(d, src, 1, 1, NULL, "empty GPU preset");
    return ATOLL_EPARSE;
  }
  return atoll_gpu_from_node(&r, root, out);
}

static const char *try_dir(atoll_arena *a, const char *dir, const char *file) {
  if (!dir || !dir[0])
    return NULL;
  const char *p = atoll_path_join(a, dir, file);
  if (p && access(p, R_OK) == 0)
    return p;
  const char *sub = atoll_path_join(a, dir, "gpus");
  p = sub ? atoll_path_join(a, sub, file) : NULL;
  if (p && access(p, R_OK) == 0)
    return p;
  return NULL;
}

const char *atoll_gpu_find_preset(atoll_arena *a, const char *name, const char *base_dir) {
  size_t nl = strlen(name);
  char *file = atoll_arena_alloc(a, nl + 6);
  if (!file)
    return NULL;
  memcpy(file, name, nl);
  memcpy(file + nl, ".yaml", 6);
  const char *found = try_dir(a, base_dir, file);
  const char *dirs[ATOLL_DATA_DIRS_MAX];
  size_t n = found ? 0 : atoll_data_dirs(a, dirs, ATOLL_DATA_DIRS_MAX);
  for (size_t i = 0; !found && i < n; i++)
    found = try_dir(a, dirs[i], file);
  return found;
}

/* Adds the names of the presets in dir/gpus (FILE.yaml -> FILE) to names. */
static void list_presets(atoll_arena *a, const char *dir, const char **names, uint32_t *n, uint32_t max) {
  const char *sub = dir && dir[0] ? atoll_path_join(a, dir, "gpus") : NULL;
  DIR *dp = sub ? opendir(sub) : NULL;
  if (!dp)
    return;
  for (struct dirent *e; *n < max && (e = readdir(dp)) != NULL;) {
    size_t len = strlen(e->d_name);
    if (len > 5 && strcmp(e->d_name + len - 5, ".yaml") == 0)
      names[(*n)++] = atoll_arena_strndup(a, e->d_name, len - 5);
  }
  closedir(dp);
}

const char *atoll_gpu_suggest_preset(atoll_arena *a, const char *name, const char *base_dir) {
  enum { MAX_PRESETS = 256 };
  const char *names[MAX_PRESETS];
  uint32_t n = 0;
  list_presets(a, base_dir, names, &n, MAX_PRESETS);
  const char *dirs[ATOLL_DATA_DIRS_MAX];
  size_t nd = atoll_data_dirs(a, dirs, ATOLL_DATA_DIRS_MAX);
  for (size_t i = 0; i < nd; i++)
    list_presets(a, dirs[i], names, &n, MAX_PRESETS);
  return atoll_suggest(name, names, n);
}

const char *atoll_gpu_preset_searched(atoll_arena *a, const char *base_dir) {
  const char *dirs[ATOLL_DATA_DIRS_MAX + 1];
  size_t n = 0;
  if (base_dir && base_dir[0])
    dirs[n++] = base_dir;
  n += atoll_data_dirs(a, dirs + n, ATOLL_DATA_DIRS_MAX);
  size_t len = 1;
  for (size_t i = 0; i < n; i++)
    len += strlen(dirs[i]) + 2;
  char *out = atoll_arena_alloc(a, len);
  if (!out)
    return "";
  out[0] = '\0';
  for (size_t i = 0; i < n; i++) {
    if (i)
      strcat(out, ", ");
    strcat(out, dirs[i]);
  }
  return out;
}

uint32_t atoll_gpu_max_registers_per_thread(const atoll_gpu *g) {
  /* AMD GCN/CDNA: 256 VGPRs per lane; NVIDIA since Kepler: 255 registers per thread. */
  return strcmp(g->vendor, "nvidia") == 0 ? 255 : 256;
}
