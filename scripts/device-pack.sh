#!/usr/bin/env bash
# Packs a build for the GPU machine (see docs/development.md): $BUILD, by
# default build-device, configured with -Dgpu_archs=90 (all five
# architectures make every binary ~27 MB).  Strips debug information from
# its binaries so that it and .device stay under the device tool's 64 MiB,
# then runs the shared pack script.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export BUILD=${BUILD:-build-device}
# Object files are not needed there but count against the 64 MiB carried:
# they wait beside the build dir between packs, timestamps kept, so that
# the next compile is incremental.
stash="$BUILD.objects"
if [ -d "$stash" ]; then
  (cd "$stash" && find . -type f) | while read -r f; do
    mv "$stash/$f" "$BUILD/$f"
  done
  rm -rf "$stash"
fi
# configured by setup.sh, which pins the nvcc in the build (and, on meson
# before 1.4, its dependency files): it reconfigures a build it made, and
# makes anew one configured another way
bash scripts/setup.sh -Dgpu_archs=90 >/dev/null
find "$BUILD" -type f \( -name '*.so' -o -name '*.a' -o -name '*.o' -o -perm -u+x \) \
  -exec sh -c 'head -c4 "$1" | grep -q ELF && strip --strip-debug "$1"' _ {} \;
find "$BUILD" -type f -name '*.o' | while read -r f; do
  rel=${f#"$BUILD"/}
  mkdir -p "$stash/$(dirname "$rel")"
  mv "$f" "$stash/$rel"
done
# per-test registries are remade where the tests run
find "$BUILD" -name "*.registry" -delete
bash ../shared/device/pack.sh "$@"
du -sh "$BUILD" .device
echo "run there with carry [\".device\", \"$BUILD\"] and BUILD=\$PWD/$BUILD in the command"
