#!/usr/bin/env bash
# Builds the CUDA and HIP back-end modules with atoll under ASan + UBSan in BUILD_DIR, fails on any
# compiler warning, and runs the gpu-build tests (device code for the configured architectures, the
# modules' exports, an atoll that links no GPU runtime, `atoll selftest` exiting 4 without a GPU).
# CUDA needs NVIDIA's toolkit in /usr/local/cuda (nvcc); without it only HIP is built, loudly.
# The compiler settings are the asan preset's (CMakePresets.json), so that CI, which passes
# build/asan, builds atoll's objects once for this stage and its ASan stage.
#   tools/ci-gpu-build.sh BUILD_DIR
set -euo pipefail
build=${1:?usage: tools/ci-gpu-build.sh BUILD_DIR}
cd "$(dirname "$0")/.."

cuda=ON
targets=(atoll atoll_backend_hip)
if [ -x /usr/local/cuda/bin/nvcc ]; then
  targets+=(atoll_backend_cuda)
else
  echo "WARNING: /usr/local/cuda/bin/nvcc not found: the CUDA back-end is NOT built or checked" >&2
  cuda=OFF
fi
mkdir -p "$build"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-g -O1" \
  -DATOLL_SANITIZE=address,undefined,float-cast-overflow -DATOLL_CUDA=$cuda -DATOLL_HIP=ON \
  >"$build/gpu-configure.log" 2>&1 || { cat "$build/gpu-configure.log"; exit 1; }
log="$build/gpu-build.log"
if ! cmake --build "$build" -j2 --target "${targets[@]}" >"$log" 2>&1; then
  cat "$log"
  exit 1
fi
tail -n 3 "$log"
if grep -n -i "warning" "$log"; then
  echo "the GPU build printed warnings (above)" >&2
  exit 1
fi
ctest --test-dir "$build" -L gpu-build --output-on-failure --no-label-summary
