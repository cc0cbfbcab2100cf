#!/usr/bin/env bash
# Runs a command in a Debian 13 ("trixie") chroot, which has GStreamer 1.26,
# and, with --cuda12, Debian's own CUDA Toolkit 12.4 (nvidia-cuda-toolkit,
# from non-free: /usr/bin/nvcc, headers in /usr/include, libraries in
# /usr/lib/x86_64-linux-gnu).  CI builds and tests the project there too.
#   bash scripts/debian13.sh ROOT [--cuda12] [CMD]
# ROOT is made once (debootstrap, from this machine's Debian mirror), then
# reused.  CMD runs inside through sh -c, from the project's root (bound at
# the same path), with /proc, /dev and (without --cuda12) this machine's
# /usr/local/cuda bound for its duration, and Debian's default PATH;
# scripts/setup.sh there installs what the build needs.
# Needs root (debootstrap, mount, chroot).
set -euo pipefail
root=${1:?usage: debian13.sh ROOT [--cuda12] [CMD]}
shift
cuda12=0
if [ "${1:-}" = --cuda12 ]; then cuda12=1; shift; fi
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=$(realpath -m "$root")
[ "$(id -u)" = 0 ] || { echo "debian13.sh: needs root (debootstrap, mount, chroot)" >&2; exit 1; }

# the mirror this machine's own apt uses (deb822 or one-line sources)
mirror=$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $3 !~ /security/ {print $2; exit}' \
  /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null || true)
mirror=${mirror:-http://deb.debian.org/debian}
security=$(awk '/^URIs:/ && /security/ {print $2; exit}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
security=${security:-${mirror%/debian}/debian-security}

mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
    umount -R "${mounts[i]}" 2>/dev/null || umount -lR "${mounts[i]}" || true
  done
}
trap cleanup EXIT
bind() {  # bind DIR TARGET [--rbind]: undone when this script ends
  mkdir -p "$2"
  mountpoint -q "$2" && return 0
  mount "${3:---bind}" "$1" "$2"
  mount --make-rslave "$2"   # an unmount here never reaches this machine's mounts
  mounts+=("$2")
}
# Debian's PATH, not this machine's: Debian's nvcc takes ptxas, nvlink and
# fatbinary from the first directory on PATH that has them
inside() {
  chroot "$root" /usr/bin/env -u LIBRARY_PATH \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    /bin/sh -c "$1" </dev/null
}

if [ ! -x "$root/usr/bin/apt-get" ]; then
  if ! command -v debootstrap >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
  fi
  echo "debian13.sh: debootstrap trixie into $root from $mirror (a few minutes)" >&2
  rm -rf "$root"
  debootstrap --variant=minbase trixie "$root" "$mirror" >/dev/null </dev/null
fi
components="main"
[ "$cuda12" = 1 ] && components="main contrib non-free"
printf 'deb %s trixie %s\ndeb %s trixie-updates %s\ndeb %s trixie-security %s\n' \
  "$mirror" "$components" "$mirror" "$components" "$security" "$components" \
  > "$root/etc/apt/sources.list"
cp /etc/resolv.conf "$root/etc/resolv.conf"
bind /proc "$root/proc"
bind /dev "$root/dev" --rbind

if [ "$cuda12" = 1 ] && ! inside 'dpkg-query -W -f="\${Status}" nvidia-cuda-toolkit 2>/dev/null | grep -q "ok installed"'; then
  echo "debian13.sh: installing Debian's CUDA Toolkit (nvidia-cuda-toolkit, about 2 GB)" >&2
  inside 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit >/dev/null'
fi
[ $# -gt 0 ] || exit 0

# with --cuda12 this machine's toolkit stays out: nothing of it can be
# mixed into the build
if [ "$cuda12" = 0 ] && [ -d /usr/local/cuda ]; then
  bind /usr/local/cuda "$root/usr/local/cuda"
fi
bind "$src" "$root$src"
inside "cd '$src' && $*"
