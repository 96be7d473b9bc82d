#!/usr/bin/env bash
# Regenerates the calibration table in docs/calibration.md (between the BEGIN/END markers) with
# `atoll calibrate mi50 <every measured REEF profile> --markdown --report`, and the fit-quality plot
# docs/img/calibration-fit.png with `tools/plot calibration` from its --csv output (when matplotlib
# is installed; otherwise the plot is left as it is and a note printed).
#   tools/regen-calibration.sh [ATOLL_BINARY]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
atoll=${1:-$here/build/release/bin/atoll}
cd "$here"
models="scenarios/models/vgg.yaml scenarios/models/resnet152.yaml scenarios/models/resnet18.yaml scenarios/models/bert.yaml scenarios/models/alexnet.yaml scenarios/models/resnet.yaml scenarios/models/mocked_kernel.yaml"
table=$(mktemp)
csv=$(mktemp --suffix=.csv)
trap 'rm -f "$table" "$csv"' EXIT
set +e
"$atoll" calibrate mi50 $models --markdown --report --csv "$csv" > "$table"
rc=$?
set -e
[ $rc -le 1 ] || { echo "atoll calibrate failed ($rc)" >&2; exit $rc; }
{
  sed -n '1,/<!-- BEGIN calibration table -->/p' docs/calibration.md
  echo
  echo "\`atoll calibrate mi50 $models --markdown --report\`:"
  echo
  cat "$table"
  echo
  sed -n '/<!-- END calibration table -->/,$p' docs/calibration.md
} > docs/calibration.md.new
mv docs/calibration.md.new docs/calibration.md
if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  tools/plot calibration "$csv" -o docs/img/calibration-fit.png --title "MI50 calibration: fitted, leave-one-out and 3-fold errors"
else
  echo "regen-calibration: no matplotlib, docs/img/calibration-fit.png not redrawn" >&2
fi
exit $rc
