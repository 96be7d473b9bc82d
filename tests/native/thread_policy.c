/* Which scheduling class a named thread of this process runs in, read from /proc (thread_policy.h). */
#define _GNU_SOURCE
#include "tests/native/thread_policy.h"

#include <dirent.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

int thread_policy(const char *name, int *prio) {
  DIR *d = opendir("/proc/self/task");
  struct dirent *e;
  int policy = -1;
  while (d && policy < 0 && (e = readdir(d))) {
    char path[300], comm[32] = "";
    snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
    FILE *f = fopen(path, "r");
    if (f && fgets(comm, sizeof comm, f) && (comm[strcspn(comm, "\n")] = '\0', strcmp(comm, name) == 0)) {
      struct sched_param sp = {0};
      const pid_t tid = (pid_t)atoi(e->d_name);
      policy = sched_getscheduler(tid);
      *prio = sched_getparam(tid, &sp) == 0 ? sp.sched_priority : -1;
    }
    if (f)
      fclose(f);
  }
  if (d)
    closedir(d);
  return policy;
}
