/* The error table: code -> text and name, generated from ATOLL_ERRNO_MAP. */
#include "atoll/error.h"

const char *atoll_strerror(int err) {
  switch (err) {
  case ATOLL_OK:
    return "success";
#define ATOLL_ERRNO_TEXT(name, value, text) \
  case ATOLL_##name:                        \
    return text;
    ATOLL_ERRNO_MAP(ATOLL_ERRNO_TEXT)
#undef ATOLL_ERRNO_TEXT
  default:
    return "unknown error";
  }
}

const char *atoll_err_name(int err) {
  switch (err) {
  case ATOLL_OK:
    return "ATOLL_OK";
#define ATOLL_ERRNO_NAME(name, value, text) \
  case ATOLL_##name:                        \
    return "ATOLL_" #name;
    ATOLL_ERRNO_MAP(ATOLL_ERRNO_NAME)
#undef ATOLL_ERRNO_NAME
  default:
    return "ATOLL_UNKNOWN";
  }
}
