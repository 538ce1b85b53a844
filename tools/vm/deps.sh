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
skip() { echo "SKIP: $*"; exit 77; }

sh "$(dirname "$0")/../test-deps.sh" vm qemu-system-x86 || exit $?
command -v qemu-system-x86_64 >/dev/null 2>&1 || skip "qemu-system-x86_64 not found after installing qemu-system-x86"
command -v apt-get >/dev/null 2>&1 || skip "apt-get not found: the guest kernel comes from Debian's linux-image-cloud-amd64"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not found: needed to unpack the guest's packages"
exit 0
