#!/bin/sh
# deps.sh - what `make docker` and the docker test need beyond `make deps`:
# a container engine (podman where no Docker engine works; runc, which drives
# hybrid cgroup hosts where crun cannot) and debootstrap for the local
# debian:12 base.  Test-only: `make run` never installs these.
# Exit 0 when ready, 77 with "SKIP: ..." when they cannot be had.
set -u
skip() { echo "SKIP: $*"; exit 77; }
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  exit 0
fi
PKGS="podman runc debootstrap"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "$(id -u)" -eq 0 ] || skip "missing Debian packages:$missing (install them with: sudo apt-get install -y$missing)"
echo "docker: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed; cannot install$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || skip "apt-get install failed for:$missing"
