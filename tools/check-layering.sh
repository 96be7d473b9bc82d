#!/usr/bin/env bash
# Layering guard (docs/architecture.md, "Folders and what they may touch"): native/ depends on
# neither sim/ nor idem_checker/. Checks the sources (no #include of a header that lives only in
# one of those folders, by name or by path) and the build (no CMake link to their targets).
#
#   tools/check-layering.sh
# exit: 0 clean; 1 a dependency was found (each one is printed).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
found=0
# Header names that exist elsewhere too (run/trace.h, idem/trace.h, ...) are not the forbidden ones:
# a name is forbidden only when no allowed folder has a header of that name.
allowed_headers=$(find include core io run idem native -name '*.h' -printf '%f\n' | sort -u)
for dir in sim idem_checker; do
  for h in $(find "$dir" -maxdepth 1 -name '*.h' -printf '%f\n'); do
    grep -qx "$h" <<<"$allowed_headers" && continue
    hits=$(grep -rnE "#[[:space:]]*include[[:space:]]*\"([^\"]*/)?$h\"" native || true)
    [ -n "$hits" ] && { echo "native/ includes $dir/$h:"; echo "$hits"; found=1; }
  done
  hits=$(grep -rnE "#[[:space:]]*include[[:space:]]*\"([^\"]*/)?$dir/" native || true)
  [ -n "$hits" ] && { echo "native/ includes a path into $dir/:"; echo "$hits"; found=1; }
done
hits=$(grep -rnE 'atoll_sim[a-z_]*|idem_checker|\$\{CMAKE_SOURCE_DIR\}/(sim|idem_checker)' --include=CMakeLists.txt native || true)
[ -n "$hits" ] && { echo "native/ links or names sim/ or idem_checker/ in its build:"; echo "$hits"; found=1; }
[ "$found" = 0 ] && echo "check-layering: native/ depends on neither sim/ nor idem_checker/"
exit $found
