#!/usr/bin/env bash
# Layering guard (docs/architecture.md, "Folders and what they may touch" and "Names"):
#   1. every quoted #include names its file from the repository root ("core/sched.h") or from
#      include/ ("atoll/model.h"), so a header is found by its path and never by which folders a
#      target happens to put on the include path. The one exception is native/gpu's
#      "gpu_vendor.h": each GPU module (native/cuda, native/hip) supplies its own.
#   2. native/ depends on neither sim/ nor idem_checker/: no include of theirs, no CMake link to
#      their targets.
#
#   tools/check-layering.sh
# exit: 0 clean; 1 a violation was found (each one is printed).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
found=0
while IFS=: read -r file line name; do
  [ "$name" = gpu_vendor.h ] && [[ $file == native/gpu/* ]] && continue
  [ -f "$name" ] || [ -f "include/$name" ] && continue
  echo "$file:$line: #include \"$name\" does not name its file from the repository root"
  found=1
done < <(git ls-files '*.c' '*.h' '*.cpp' '*.cu' '*.hip' |
         xargs grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' |
         sed -E 's/^([^:]*):([0-9]+):.*"([^"]+)".*/\1:\2:\3/')
hits=$(grep -rnE '#[[:space:]]*include[[:space:]]*"(sim|idem_checker)/' native || true)
[ -n "$hits" ] && { echo "native/ includes a header of sim/ or idem_checker/:"; echo "$hits"; found=1; }
hits=$(grep -rnE 'atoll_sim[a-z_]*|idem_checker|\$\{CMAKE_SOURCE_DIR\}/(sim|idem_checker)' --include=CMakeLists.txt native || true)
[ -n "$hits" ] && { echo "native/ links or names sim/ or idem_checker/ in its build:"; echo "$hits"; found=1; }
[ "$found" = 0 ] && echo "check-layering: every include names its folder; native/ depends on neither sim/ nor idem_checker/"
exit $found
