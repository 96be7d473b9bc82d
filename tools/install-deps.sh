#!/usr/bin/env bash
# Installs what atoll needs to build and test on Debian 12, and nothing that is already there.
# As root it runs apt-get; otherwise it prints the apt-get line to run and fails.
#   tools/install-deps.sh            build + test dependencies (valgrind: the memcheck smoke tests;
#                                    python3-yaml: tools/calibration-*.py read profiles;
#                                    help2man: the installed man pages, from each tool's --help)
#   tools/install-deps.sh --extra P  also Debian packages P (e.g. for proofs or plots)
#   tools/install-deps.sh --fuzz     also clang and its libFuzzer runtime, for tools/fuzz
#   tools/install-deps.sh --gpu      also the HIP compiler and runtime (ROCm 5.2, ~650 MB) for
#                                    -DATOLL_HIP=ON; CUDA comes from NVIDIA's toolkit in /usr/local/cuda
#   tools/install-deps.sh --mpi      also Open MPI (libopenmpi-dev, openmpi-bin) for mpirun -n N atoll
#                                    sweep|explore (CMake's ATOLL_MPI turns on when it is found)
#   tools/install-deps.sh --proofs   also Frama-C (WP), Why3, Z3, CVC4 and Spin (~1 GB) for proofs/run
set -euo pipefail

packages=(cmake make gcc pkg-config libyaml-dev zlib1g-dev libsqlite3-dev libcmocka-dev python3 graphviz
          python3-matplotlib python3-yaml valgrind help2man)
while [ $# -gt 0 ]; do
  case "$1" in
    --extra) shift; packages+=($1) ;;
    --gpu) packages+=(hipcc libamdhip64-dev rocm-device-libs) ;;
    --fuzz) packages+=(clang libclang-rt-dev) ;;
    --mpi) packages+=(libopenmpi-dev openmpi-bin) ;;
    --proofs) packages+=(frama-c-base why3 z3 cvc4 spin); proofs=1 ;;
    *) echo "usage: $0 [--extra 'PKG ...'] [--gpu] [--fuzz] [--mpi] [--proofs]" >&2; exit 2 ;;
  esac
  shift
done

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "atoll needs: ${missing[*]}" >&2
  echo "run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "${missing[@]}" >/dev/null
# Why3 finds the provers it drives (Z3, CVC4) only once told to look.
if [ "${proofs:-0}" = 1 ]; then
  why3 config detect >/dev/null
fi
