#ifndef ATOLL_TESTS_NATIVE_THREAD_POLICY_H
#define ATOLL_TESTS_NATIVE_THREAD_POLICY_H

/* The scheduling policy (sched_getscheduler) of this process's thread named `name`, as its comm
 * (pthread_setname_np) reads, with its RT priority in *prio; -1 if no thread has that name. The
 * native tests check by it which threads the runtime and the CPU back-end put in the RT class. */
int thread_policy(const char *name, int *prio);

#endif
