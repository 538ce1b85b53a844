#!/bin/sh
# deps.sh - makes sure the host can run `make test-cgroup2`'s VM.
#
#   sh tools/vm/deps.sh
#
# Needs qemu-system-x86 (installed with apt-get when root) and apt itself, used
# only to *download* the guest's packages (linux-image-cloud-amd64 and
# busybox-static), never to install them on the host.  Exit 0 when ready, 77
# with a "SKIP: ..." line saying why when the VM cannot run here.
set -u
PKGS="qemu-system-x86"

skip() { echo "SKIP: $*"; exit 77; }

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" -eq 0 ] || skip "missing Debian packages:$missing (install them with: sudo apt-get install -y$missing)"
  echo "vm: installing missing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed; cannot install$missing"
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 ||
    skip "apt-get install failed for:$missing"
fi
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 not found after installing qemu-system-x86"
command -v apt-get >/dev/null 2>&1 || skip "apt-get not found: the guest kernel comes from Debian's linux-image-cloud-amd64"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not found: needed to unpack the guest's packages"
exit 0
