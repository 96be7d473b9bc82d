#!/usr/bin/env bash
# Names guard (docs/architecture.md, "Names"): every symbol a library of atoll exports carries the
# project's prefix (atoll_, ATOLL_, atoll__ for internal ones) or its module's (ak_ for the kernel
# library, idem_ for the idempotence library), so linking atoll into a user's program cannot clash
# with the user's own names.
#
#   tools/check-names.sh LIB.a...
# exit: 0 clean; 1 an unprefixed symbol (each printed with its archive); 2 usage.
set -uo pipefail
[ $# -gt 0 ] || { echo "usage: tools/check-names.sh LIB.a..." >&2; exit 2; }
found=0
for lib in "$@"; do
  [ -f "$lib" ] || { echo "check-names: no such archive: $lib" >&2; exit 2; }
  # A sanitizer build adds its own globals beside each of ours (ASan's ODR indicators
  # "__odr_asan.NAME", which carry our name): they are the instrumentation's, not ours.
  bad=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed -E 's/^__odr_asan[._]//' |
        grep -vE '^(atoll_|ATOLL_|ak_|idem_)' | sort -u)
  [ -n "$bad" ] && { echo "$lib exports names without a prefix:"; echo "$bad"; found=1; }
done
[ "$found" = 0 ] && echo "check-names: every exported symbol of $# libraries is prefixed"
exit $found
