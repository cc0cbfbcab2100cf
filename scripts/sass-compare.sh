#!/usr/bin/env bash
# The SASS of every kernel in kernels/, for each architecture of the
# build, one line each ("sm_XX kernel sha256[:16] bytes", sorted): run it
# before and after a change that should leave the machine code alone, and
# diff the two files.
#
#   bash scripts/sass-compare.sh > /tmp/sass-before.txt
#   ... the change ...
#   bash scripts/sass-compare.sh > /tmp/sass-after.txt
#   diff /tmp/sass-before.txt /tmp/sass-after.txt && echo identical
#
# A difference in one kernel alone may not be the change's: ptxas has
# given blur_h_kernel<1,16> (the CUDA-core path) different code for the
# same tree in one run of several (2026-11-28, CUDA 13.0).  Run it again
# before reading much into it.
#
# ARCHS (default: meson_options.txt's gpu_archs), NVCC (default: the
# toolkit of /usr/local/cuda).  Every .cu under kernels/ is a unit of its
# own (the included variants are .cuh), compiled with every folder of
# kernels/ on the include path.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
NVCC=${NVCC:-/usr/local/cuda/bin/nvcc}
ARCHS=${ARCHS:-$(sed -n "s/.*gpu_archs.*value : \[\(.*\)\].*/\1/p" meson_options.txt | tr -d "', " | sed 's/\(..\)/\1 /g')}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
includes=$(find kernels -type d | sed 's/^/-I/' | tr '\n' ' ')
for arch in $ARCHS; do
  for cu in $(find kernels -name '*.cu' | sort); do
    out="$tmp/sm_$arch-$(echo "$cu" | tr / _).cubin"
    # shellcheck disable=SC2086
    "$NVCC" -cubin -arch="sm_$arch" -O2 -std=c++17 $includes -o "$out" "$cu"
    python3 scripts/sass-hash.py "$out" | sed "s/^/sm_$arch /"
  done
done | grep -v "^sm_[0-9]* $" | sort
