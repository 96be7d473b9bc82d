#!/usr/bin/env bash
# docs/inss.md's figures: the fitted model's errors (atoll fit inss), predicted against simulated
# latency in the form of InSS's Tables 2-3 (atoll predict), capacity under inss and the baselines
# on the 6-model mix and the 8-model heavy case, and the decision's cost (bench_inss).
# usage: tools/inss-figures.sh [BUILD]   (default build/release)
set -eu
build=${1:-build/release}
atoll=$build/bin/atoll
dir=scenarios/seeds/inss
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "## fit (6-model mix)"
"$atoll" fit inss $dir/6models-4gpu.yaml -o "$tmp/m.yaml" | sed -n '1p;/MAPE/p'
cmp -s "$tmp/m.yaml" $dir/mi50-model.yaml && echo "(same as $dir/mi50-model.yaml)"
"$atoll" fit inss $dir/8models.yaml -o "$tmp/m8.yaml" | sed -n '1p;/MAPE/p'
cmp -s "$tmp/m8.yaml" $dir/mi50-model-8.yaml && echo "(same as $dir/mi50-model-8.yaml)"

# Table 2's form: ResNet-152, VGG and BERT on 30 % each, one of them at batch 1-8, the others at 4.
echo
echo "## batch sweep, 30 % each (Table 2's form)"
for who in resnet152 vgg bert; do
  for b in 1 2 4 8; do
    sets=()
    for c in resnet152 vgg bert; do
      bb=4; [ "$c" = "$who" ] && bb=$b
      sets+=(--set "clients.$c.share=30" --set "clients.$c.gpu=0" --set "clients.$c.batch={max: $bb, timeout_ms: 1}")
    done
    for c in resnet18 yolov3 gpt2; do sets+=(--set "clients.$c.gpu=1"); done
    "$atoll" predict $dir/6models-4gpu.yaml --model $dir/mi50-model.yaml --policy mps-static "${sets[@]}" |
      awk -v w="$who" '$1 == 0 && $2 == w'
  done
done
# Table 3's form: batch 4, the model under test on 10-50 %, the co-located ones fixed at 20 % each.
echo
echo "## share sweep, batch 4, co-located at 20 % (Table 3's form)"
for who in resnet18 vgg yolov3; do
  for p in 10 20 30 40 50; do
    sets=()
    for c in resnet18 vgg yolov3; do
      pp=20; [ "$c" = "$who" ] && pp=$p
      sets+=(--set "clients.$c.share=$pp" --set "clients.$c.gpu=0" --set "clients.$c.batch={max: 4, timeout_ms: 1}")
    done
    for c in resnet152 bert gpt2; do sets+=(--set "clients.$c.gpu=1"); done
    "$atoll" predict $dir/6models-4gpu.yaml --model $dir/mi50-model.yaml --policy mps-static "${sets[@]}" |
      awk -v w="$who" '$1 == 0 && $2 == w'
  done
done
echo
echo "## inss's own placement of the 6-model mix"
"$atoll" predict $dir/6models-4gpu.yaml 2>/dev/null

echo
echo "## capacity (1 % violations)"
cap() { # cap SCENARIO POLICY [ARGS]: inss and gpulet keep the scenario's model: file, the others replace the policy
  local sc=$1 p=$2 how; shift 2
  case $p in inss|gpulet) how=(--set "policy.name=$p");; *) how=(--policy "$p");; esac
  "$atoll" capacity "$sc" --quiet "${how[@]}" "$@" --json "$tmp/c.json" > /dev/null 2>&1
  python3 -c "import json,sys; r=json.load(open('$tmp/c.json')); print('%s %s %.4g %.4f' % ('$(basename "$sc")', '$p', r['scale'], r['violations']))"
}
for sc in $dir/6models-4gpu.yaml $dir/8models.yaml; do
  for p in inss gpulet gslice mps-static; do cap "$sc" $p; done
done
echo "## capacity (1 % violations), 20 s runs"
for sc in $dir/6models-4gpu.yaml $dir/8models.yaml; do
  for p in inss gpulet gslice mps-static; do cap "$sc" $p --duration-ms 20000; done
done

echo
echo "## decision time"
"$build/bin/bench_inss"
