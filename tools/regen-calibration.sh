#!/usr/bin/env bash
# Regenerates the calibration table in docs/calibration.md (between the BEGIN/END markers) with
# `atoll calibrate mi50 <every measured REEF profile> --markdown`.
#   tools/regen-calibration.sh [ATOLL_BINARY]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
models="scenarios/models/vgg.yaml scenarios/models/resnet152.yaml scenarios/models/resnet18.yaml scenarios/models/bert.yaml scenarios/models/alexnet.yaml scenarios/models/resnet.yaml scenarios/models/mocked_kernel.yaml"
table=$(mktemp)
trap 'rm -f "$table"' EXIT
set +e
"$atoll" calibrate mi50 $models --markdown > "$table"
rc=$?
set -e
[ $rc -le 1 ] || { echo "atoll calibrate failed ($rc)" >&2; exit $rc; }
{
  sed -n '1,/<!-- BEGIN calibration table -->/p' docs/calibration.md
  echo
  echo "\`atoll calibrate mi50 $models --markdown\`:"
  echo
  cat "$table"
  echo
  sed -n '/<!-- END calibration table -->/,$p' docs/calibration.md
} > docs/calibration.md.new
mv docs/calibration.md.new docs/calibration.md
exit $rc
