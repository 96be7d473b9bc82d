/* atoll error codes and process exit codes.
 *
 * Every fallible function returns 0 or a negative ATOLL_E* code. One X-macro table yields the
 * enum, atoll_strerror() and atoll_err_name(), so a code and its text cannot drift apart. */
#ifndef ATOLL_ERROR_H
#define ATOLL_ERROR_H

#define ATOLL_ERRNO_MAP(X)                                                 \
  X(EINVAL, -1, "invalid argument")                                        \
  X(ENOMEM, -2, "out of memory")                                           \
  X(EIO, -3, "input/output error")                                         \
  X(ENOENT, -4, "no such file or name")                                    \
  X(EPARSE, -5, "malformed input")                                         \
  X(ERANGE, -6, "value out of range")                                      \
  X(EFULL, -7, "container is full")                                        \
  X(EEMPTY, -8, "container is empty")                                      \
  X(ENOTSUP, -9, "operation not supported by this device")                 \
  X(ENODEV, -10, "device or driver unavailable")                           \
  X(EBOUND, -11, "a checked bound does not hold")                          \
  X(EINCOMPLETE, -12, "exploration incomplete")                            \
  X(EEXIST, -13, "already exists")

enum atoll_errno {
  ATOLL_OK = 0,
#define ATOLL_ERRNO_ENUM(name, value, text) ATOLL_##name = (value),
  ATOLL_ERRNO_MAP(ATOLL_ERRNO_ENUM)
#undef ATOLL_ERRNO_ENUM
};

/* Text for a code; "unknown error" for anything not in the table. Never NULL. */
const char *atoll_strerror(int err);
/* "ATOLL_EINVAL" etc.; "ATOLL_UNKNOWN" for anything not in the table. Never NULL. */
const char *atoll_err_name(int err);

/* Exit codes, one table for every `atoll` subcommand. */
enum atoll_exit {
  ATOLL_EXIT_OK = 0,         /* everything held */
  ATOLL_EXIT_VIOLATED = 1,   /* a checked bound or verification failed */
  ATOLL_EXIT_BAD_INPUT = 2,  /* bad input or usage */
  ATOLL_EXIT_INCOMPLETE = 3, /* exploration incomplete */
  ATOLL_EXIT_NO_DEVICE = 4   /* device or driver unavailable */
};

#endif
