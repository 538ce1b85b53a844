#!/bin/sh
# base.sh - makes the Dockerfile's base image (debian:12) available to a local
# engine that cannot reach an image registry.
#
#   sh tools/docker/base.sh ENGINE CACHE_DIR
#
# When ENGINE already has docker.io/library/debian:12 (pulled from a registry,
# or imported earlier) it does nothing.  Otherwise it builds a minimal Debian 12
# root filesystem with debootstrap from the host's own Debian mirror (the first
# URI in its apt sources), caches it as CACHE_DIR/debian-12.tar, and imports it
# under the official name, so the same Dockerfile uses the official image where
# a registry is reachable and this one where it is not.
# Exit 0 when the base exists, 77 with "SKIP: ..." when it cannot be made.
set -u
ENGINE=${1:-podman}
CACHE=${2:-build/docker}
IMAGE=docker.io/library/debian:12
skip() { echo "SKIP: $*"; exit 77; }

$ENGINE image inspect "$IMAGE" >/dev/null 2>&1 && exit 0
mkdir -p "$CACHE" || skip "cannot create $CACHE"
tar="$CACHE/debian-12.tar"
if [ ! -s "$tar" ]; then
  command -v debootstrap >/dev/null 2>&1 || skip "no debootstrap (apt-get install debootstrap) to make the debian:12 base"
  [ "$(id -u)" -eq 0 ] || skip "debootstrap needs root to make the debian:12 base"
  mirror=$(sed -n 's/^URIs:[[:space:]]*\([^[:space:]]*\).*/\1/p' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1)
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' /etc/apt/sources.list 2>/dev/null)
  [ -n "$mirror" ] || skip "no Debian mirror in the host's apt sources for debootstrap"
  root="$CACHE/rootfs.$$"
  rm -rf "$root"
  echo "docker: building the debian:12 base with debootstrap from $mirror (once; cached in $tar)"
  if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$CACHE/debootstrap.log" 2>&1; then
    rm -rf "$root"
    skip "debootstrap failed (see $CACHE/debootstrap.log)"
  fi
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
  tar -C "$root" --numeric-owner -cf "$tar.tmp" . && mv "$tar.tmp" "$tar" || { rm -rf "$root" "$tar.tmp"; skip "cannot write $tar"; }
  rm -rf "$root"
fi
$ENGINE import --change 'CMD ["/bin/bash"]' "$tar" "$IMAGE" >/dev/null || skip "$ENGINE import of $tar failed"
echo "docker: imported $tar as $IMAGE"
