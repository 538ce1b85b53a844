#!/bin/sh
# fetch.sh - downloads one Debian package (never installs it) and unpacks it
# into a cache keyed by the package's version.
#
#   sh tools/vm/fetch.sh PACKAGE CACHE_DIR
#
# A metapackage (linux-image-cloud-amd64) is followed to the package it
# depends on (linux-image-6.1.0-NN-cloud-amd64).  Prints the unpacked tree's
# directory, CACHE_DIR/<package>_<version>/root, on stdout.  When apt cannot
# say what the current version is (no package lists, no network), the newest
# tree already in the cache is used.  Exit 77 with "SKIP: ..." when neither
# works.
set -u
pkg=$1
label=$1
cache=$2
mkdir -p "$cache" || exit 1

skip() { echo "SKIP: $*"; exit 77; }

candidate() { # PACKAGE -> version apt would install, or nothing
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2; exit }'
}

ver=$(candidate "$pkg")
if [ -z "$ver" ] && [ "$(id -u)" -eq 0 ]; then
  apt-get update -qq >/dev/null 2>&1
  ver=$(candidate "$pkg")
fi
# Follow a metapackage to the one package that holds the files.
case $pkg in
  linux-image-cloud-amd64)
    if [ -n "$ver" ]; then
      real=$(apt-cache depends "$pkg" 2>/dev/null | awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }')
      [ -n "$real" ] || skip "cannot resolve \`$pkg\` to a kernel package"
      pkg=$real
      ver=$(candidate "$pkg")
    else
      pkg=linux-image-
    fi ;;
esac

if [ -z "$ver" ]; then
  # Offline: the newest cached tree of this package, if any.
  dir=$(ls -d "$cache/$pkg"*_*/root 2>/dev/null | sort -V | tail -n 1)
  [ -n "$dir" ] || skip "apt knows no version of \`$label\` (no package lists or no network) and nothing is cached in $cache"
  echo "vm: apt knows no version of \`$label\`; using the cached $dir" >&2
  echo "$dir"
  exit 0
fi

key=$(printf '%s_%s' "$pkg" "$ver" | tr ':' '+')
dir="$cache/$key"
if [ ! -f "$dir/.unpacked" ]; then
  rm -rf "$dir"
  mkdir -p "$dir/deb" || exit 1
  echo "vm: downloading $pkg $ver" >&2
  (cd "$dir/deb" && apt-get download -qq "$pkg=$ver" >/dev/null 2>&1) ||
    { rm -rf "$dir"; skip "\`apt-get download $pkg=$ver\` failed (no network?)"; }
  deb=$(ls "$dir/deb"/*.deb 2>/dev/null | head -n 1)
  [ -n "$deb" ] || { rm -rf "$dir"; skip "apt-get download left no .deb for $pkg"; }
  dpkg-deb -x "$deb" "$dir/root" || { rm -rf "$dir"; echo "vm: cannot unpack $deb" >&2; exit 1; }
  # The guest boots the kernel with everything it needs built in: keep only
  # boot/ of a kernel package (its modules are ~100 MB).
  case $pkg in linux-image-*) rm -rf "$dir/root/lib" "$dir/root/usr" ;; esac
  touch "$dir/.unpacked"
fi
echo "$dir/root"
