#!/usr/bin/env bash
# Packs ./build for the GPU machine (see docs/development.md): strips debug
# information from the build's binaries so that build + .device stay under
# the device tool's 64 MiB, then runs the shared pack script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
find build -type f \( -name '*.so' -o -name '*.a' -o -perm -u+x \) \
  -exec sh -c 'head -c4 "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
# per-test registries are remade where the tests run
find build -name "*.registry" -delete
bash ../shared/device/pack.sh "$@"
du -sh build .device
