# Sourced by the command-line case scripts (`SCRIPT CASE ATOLL SOURCE_DIR REEF_DATA`): the case's
# arguments, a temporary folder removed at exit, and the checks every case uses.
# Exit 0 pass, 1 fail (with both values printed), 77 skipped (data absent).
. "$(dirname "${BASH_SOURCE[0]}")/../python3.sh"
case_name=$1 atoll=$2 src=$3 reef=$4
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_rc() { # expect_rc WANT CMD...: stdout and stderr land in $tmp/.stdout and $tmp/.stderr
  local want=$1; shift
  "$@" >"$tmp/.stdout" 2>"$tmp/.stderr"; local rc=$?
  [ "$rc" -eq "$want" ] || { cat "$tmp/.stdout" "$tmp/.stderr" >&2; fail "'$*' exited $rc, expected $want"; }
}
