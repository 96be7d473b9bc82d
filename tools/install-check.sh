#!/usr/bin/env bash
# The install works on its own: installs BUILD_DIR into a temporary prefix, moves the prefix
# elsewhere (nothing may depend on where it was installed), hides the source and build trees, and
# from the moved install runs a scenario, atoll-plot, man, and a program built against the
# library with pkg-config and with find_package(atoll). Exit 0 when all of it works, 1 otherwise.
#   tools/install-check.sh BUILD_DIR
# Hiding mounts empty folders over the trees in a private mount namespace (unshare, as root); where
# that is not allowed the trees are renamed for the duration and renamed back on exit (or, with
# ATOLL_INSTALL_CHECK_NO_RENAME=1, as under ctest, left visible: only the prefix moves).
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
work=$(mktemp -d /tmp/atoll-install.XXXXXX)
# Where run_hidden renames the trees (without root): renamed back on any exit, a failed step, an
# interrupt or a kill included, before the work folder goes.
away="$src.hidden-by-install-check" baway="$build.hidden-by-install-check"
renaming=0
cleanup() {
  if [ "$renaming" = 1 ]; then
    if [ -e "$baway" ] && [ ! -e "$build" ]; then
      mv "$baway" "$build" || echo "install-check: could not rename $baway back to $build" >&2
    fi
    if [ -e "$away" ] && [ ! -e "$src" ]; then
      mv "$away" "$src" || echo "install-check: could not rename $away back to $src" >&2
    fi
  fi
  rm -rf "$work"
}
trap cleanup EXIT
# A signal ends the script through exit, so the EXIT trap runs.
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/first" >/dev/null
mv "$work/first" "$work/moved"
p=$work/moved
for f in bin/atoll bin/atoll-plot bin/idem_checker bin/atoll-nmodel bin/atoll-gpu-check \
         share/atoll/gpus/mi50.yaml share/atoll/models/vgg.yaml \
         share/atoll/default.yaml share/atoll/examples include/atoll/sim/run.h include/atoll/io/load.h include/atoll/model.h \
         lib/libatoll_core.a lib/pkgconfig/atoll.pc lib/cmake/atoll/atollConfig.cmake \
         share/man/man1/atoll.1 share/man/man1/atoll-plot.1 share/man/man1/idem_checker.1 \
         share/man/man1/atoll-nmodel.1; do
  [ -e "$p/$f" ] || fail "the install lacks $f"
done
# A scenario of the user's own (not in the install), naming a preset and a model of the install.
mkdir -p "$work/user"
# Its gpu: mi50 is found only through the install's data folder (the user's folder has no presets).
sed "s|  \([a-z0-9]*\): models/|  \1: $p/share/atoll/models/|" "$src/scenarios/default.yaml" >"$work/user/mine.yaml"
cp -r "$src/tests/install" "$work/client"

# Everything below runs with the source and build trees out of reach.
run_hidden() {
  local script=$1
  if [ "$(id -u)" -eq 0 ] && unshare --mount true 2>/dev/null; then
    SRC=$src BUILD=$build unshare --mount bash -c \
      'mount -t tmpfs none "$SRC" && { [ "${BUILD#"$SRC"/}" != "$BUILD" ] || mount -t tmpfs none "$BUILD"; } && exec bash "$0"' \
      "$script"
  elif [ "${ATOLL_INSTALL_CHECK_NO_RENAME:-0}" = 1 ]; then
    # Under ctest other tests use the trees: the prefix is still moved, the trees stay visible.
    echo "note: the source and build trees stay visible (hiding them needs root for unshare)"
    bash "$script"
  else
    # A tree already at the hiding place is a rename an earlier run could not undo: moving into it
    # would nest the tree there.
    [ ! -e "$away" ] || fail "$away exists: rename it back to $src first"
    [ ! -e "$baway" ] || fail "$baway exists: rename it back to $build first"
    renaming=1
    mv "$src" "$away"
    [ -d "$build" ] && mv "$build" "$baway"
    local rc=0
    bash "$script" || rc=$?
    [ -d "$baway" ] && mv "$baway" "$build"
    mv "$away" "$src"
    return $rc
  fi
}
cat >"$work/steps.sh" <<STEPS
set -euo pipefail
cd "$work"
[ "\${ATOLL_INSTALL_CHECK_NO_RENAME:-0}" = 1 ] || [ ! -e "$src/CMakeLists.txt" ] || { echo "FAIL: the source tree is still visible" >&2; exit 1; }
export PATH="$p/bin:\$PATH" PKG_CONFIG_PATH= CMAKE_PREFIX_PATH=
unset ATOLL_PATH
echo "-- atoll sim from the install"
atoll sim "$p/share/atoll/default.yaml" --json "$work/default.json" >"$work/default.txt"
grep -q '"mode": "sim"' "$work/default.json" || { echo "FAIL: no sim report" >&2; exit 1; }
atoll sim "$work/user/mine.yaml" >/dev/null
echo "-- an unknown preset names every folder searched"
sed 's/^gpu: .*/gpu: no-such-gpu/' "$work/user/mine.yaml" >"$work/user/bad.yaml"
if ATOLL_PATH=/extra-a:/extra-b atoll check "$work/user/bad.yaml" 2>"$work/bad.err"; then
  echo "FAIL: an unknown preset was accepted" >&2; exit 1
fi
grep -q "/extra-a, /extra-b, $p/share/atoll" "$work/bad.err" || { cat "$work/bad.err" >&2; echo "FAIL: folders not named" >&2; exit 1; }
echo "-- atoll-plot from the install"
atoll-plot reports "$work/default.json" -o "$work/reports.png"
[ -s "$work/reports.png" ] || { echo "FAIL: atoll-plot wrote nothing" >&2; exit 1; }
atoll-plot --help >"$work/plot-help.txt"
grep -q '^usage: atoll-plot ' "$work/plot-help.txt" || { head -3 "$work/plot-help.txt" >&2; echo "FAIL: atoll-plot --help" >&2; exit 1; }
echo "-- man pages"
MANPATH="$p/share/man" man -P cat atoll 2>/dev/null | grep -q sim || grep -q '^\.SH' "$p/share/man/man1/atoll.1"
# atoll-plot.1 is help2man's rendering of its --help: a crashed --help gives a page of traceback.
plot_page="$p/share/man/man1/atoll-plot.1"
if grep -q 'Traceback' "\$plot_page"; then
  echo "FAIL: atoll-plot.1 holds a Python traceback (atoll-plot --help failed)" >&2; exit 1
fi
# Titled by its installed name (help2man titles a page by the file it ran: tools/plot gave "PLOT").
grep -q '^\.TH ATOLL-PLOT ' "\$plot_page" || { echo "FAIL: atoll-plot.1 is not titled ATOLL-PLOT" >&2; exit 1; }
for c in disb preempt-kernels dq-capacity rt-overhead padding latency-cdf reports timeline calibration xy shares knee; do
  sed 's/\\\\-/-/g' "\$plot_page" | grep -qw -- "\$c" || { echo "FAIL: atoll-plot.1 lacks the subcommand \$c" >&2; exit 1; }
done
echo "-- a program linked with pkg-config"
PKG_CONFIG_PATH="$p/lib/pkgconfig" cc -std=c11 -o "$work/pc_client" "$work/client/sim_client.c" \
  \$(PKG_CONFIG_PATH="$p/lib/pkgconfig" pkg-config --cflags --libs atoll)
"$work/pc_client" "$p/share/atoll/default.yaml" | tee "$work/pc.out"
grep -q ' preemptions' "$work/pc.out"
echo "-- a program linked with find_package(atoll)"
cmake -S "$work/client/cmake_client" -B "$work/cmake_client" -DCMAKE_PREFIX_PATH="$p" >/dev/null
cmake --build "$work/cmake_client" >/dev/null
"$work/cmake_client/sim_client" "$p/share/atoll/default.yaml" | tee "$work/cm.out"
cmp "$work/pc.out" "$work/cm.out"
echo "install-check: the moved install runs on its own"
STEPS
run_hidden "$work/steps.sh"
