#!/usr/bin/env bash
# Installs what gst-cudafilters needs (Debian 12 or 13 packages) and builds it
# into ./build ($BUILD if set).  Safe to run again: it installs only what is
# missing and reconfigures an existing build.
#   bash scripts/setup.sh [meson options, e.g. -Dgpu_archs=90]
# The CUDA Toolkit is $NVCC's, else that of the nvcc on PATH, else
# /usr/local/cuda's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages="meson ninja-build pkg-config gcc g++ python3
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev
  libgstreamer-plugins-bad1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
  gstreamer1.0-libav python3-gi python3-gst-1.0 gir1.2-gstreamer-1.0"
missing=$(for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"
done)
if [ -n "$missing" ]; then
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  echo "setup: installing" $missing
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi

# The CUDA Toolkit (>= 12): $NVCC, else nvcc on PATH (Debian's
# nvidia-cuda-toolkit puts it in /usr/bin), else NVIDIA's default location.
nvcc=${NVCC:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
  echo "setup: the CUDA Toolkit (nvcc) was not found; install CUDA >= 12 or set NVCC=/path/to/nvcc" >&2
  exit 1
fi
nvcc="$(cd "$(dirname "$nvcc")" && pwd)/$(basename "$nvcc")"
echo "setup: CUDA Toolkit of $nvcc"

# meson reads no NVCC variable, and keeps the compiler it finds on PATH by
# its bare name, so that each later compile would take whichever nvcc PATH
# then names.  A native file pins the full path in the build; a build made
# with another nvcc is made anew (meson never redetects a compiler).
# meson before 1.4 (Debian 12 has 1.0) never has nvcc write the dependency
# files ninja reads, so that a changed header would rebuild nothing: there
# nvcc is called through scripts/nvcc-depfile, which has it write them.
build=${BUILD:-build}
native="$build/cuda-native.ini"
cuda="'$nvcc'"
if python3 -c 'import sys; v = sys.argv[1].split(".")
sys.exit(0 if (int(v[0]), int(v[1])) < (1, 4) else 1)' "$(meson --version)"; then
  cuda="['$PWD/scripts/nvcc-depfile', '$nvcc']"
fi
if [ -f "$build/build.ninja" ]; then
  if grep -qxF "cuda = $cuda" "$native" 2>/dev/null; then
    set -- --reconfigure "$@"
  else
    echo "setup: $build was not configured with $nvcc this way; configuring it anew"
    rm -rf "$build"
  fi
fi
# Debian's nvcc takes ptxas, nvlink and fatbinary from PATH (NVIDIA's
# finds its own): the chosen toolkit's directory goes first for this build
# and should stay first for later ones
export PATH="$(dirname "$nvcc"):$PATH"
mkdir -p "$build"
printf "[binaries]\ncuda = %s\n" "$cuda" >"$native"

# meson prints its errors on standard output: on failure, show its log
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! meson setup --native-file "$native" "$@" "$build" >"$log" 2>&1; then
  cat "$log" >&2
  echo "setup: meson setup failed (above)" >&2
  exit 1
fi
sed -n '/^gst-cudafilters/,$p' "$log"
meson compile -C "$build"
