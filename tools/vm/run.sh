#!/bin/sh
# run.sh - `make test-cgroup2`: tests the sandbox on a real cgroup-v2 kernel.
#
#   sh tools/vm/run.sh [BUILD]
#
# The host here is hybrid (v1 controllers), so the v2 backend cannot be tested
# on it.  This boots a small qemu VM under TCG with Debian's cloud kernel
# (linux-image-cloud-amd64, downloaded and unpacked, never installed) and a
# busybox-static initramfs holding the lab (tools/vm/mkinitramfs.sh); its /init
# mounts cgroup2 and runs tools/vm/guest-tests.sh as root, whose result line
# "VMTEST: N passed, N failed, N skipped" comes back on the serial console.
#
# Exit 0 when every guest test passed, 1 when one failed (or the VM hung or
# died before the result line), 77 with "SKIP: reason" when the VM cannot run
# here (no qemu, no kernel package, lab not built).  Downloads are cached
# under build/vm/cache (LAB_VM_CACHE), keyed by package version; the console log is
# BUILD/vm/console.log.
#
# Environment: LAB_VM_TIMEOUT (seconds, default 300), LAB_VM_ACCEL (default
# tcg: a KVM boot hung on this host), LAB_VM_MEM (MiB, default 1024),
# LAB_VM_SMP (default 2), LAB_VM_APPEND (extra kernel arguments;
# "vmtest.verbose" makes the guest show every sandbox run's output and JSON).
set -u
BUILD=${1:-${LAB_BUILD:-build}}
cd "$(dirname "$0")/../.." || exit 1
vm="$BUILD/vm"
# Downloads are shared by every BUILD dir (build-asan, ...).
cache=${LAB_VM_CACHE:-build/vm/cache}
timeout_s=${LAB_VM_TIMEOUT:-300}

skip() { echo "SKIP: $*"; exit 77; }
run_step() { # run a step; pass its SKIP (77) through, fail on anything else
  "$@"
  rc=$?
  [ $rc -eq 0 ] && return 0
  [ $rc -eq 77 ] && exit 77
  echo "vm: \`$*\` failed (exit $rc)" >&2
  exit 1
}

[ -x "$BUILD/bin/lab" ] || skip "$BUILD/bin/lab is not built (run \`make\` first)"
[ "$(uname -m)" = x86_64 ] || skip "the VM test boots an amd64 kernel; this host is $(uname -m)"
run_step sh tools/vm/deps.sh

kdir=$(sh tools/vm/fetch.sh linux-image-cloud-amd64 "$cache")
rc=$?; [ $rc -eq 77 ] && { echo "$kdir"; exit 77; }; [ $rc -eq 0 ] || exit 1
bdir=$(sh tools/vm/fetch.sh busybox-static "$cache")
rc=$?; [ $rc -eq 77 ] && { echo "$bdir"; exit 77; }; [ $rc -eq 0 ] || exit 1
kernel=$(ls "$kdir"/boot/vmlinuz-* 2>/dev/null | head -n 1)
[ -n "$kernel" ] || skip "no boot/vmlinuz-* in $kdir"
busybox="$bdir/bin/busybox"
[ -x "$busybox" ] || skip "no bin/busybox in $bdir"

run_step sh tools/vm/mkinitramfs.sh "$BUILD" "$busybox" "$vm/initramfs.gz" "$kdir"

accel=${LAB_VM_ACCEL:-tcg}
cpu=max
[ "$accel" = kvm ] && cpu=host
log="$vm/console.log"
echo "vm: booting $(basename "$kernel") under $accel, timeout ${timeout_s}s; console in $log"
start=$(date +%s)
# -no-reboot: a guest reboot or a kernel panic (panic=-1) ends qemu too.
timeout -k 10 "$timeout_s" qemu-system-x86_64 \
  -accel "$accel" -cpu "$cpu" -m "${LAB_VM_MEM:-1024}" -smp "${LAB_VM_SMP:-2}" \
  -nographic -no-reboot -nic none -monitor none -serial stdio \
  -kernel "$kernel" -initrd "$vm/initramfs.gz" \
  -append "console=ttyS0 panic=-1 loglevel=3 mitigations=off vmtest.accel=$accel ${LAB_VM_APPEND:-}" \
  </dev/null >"$log" 2>&1
qrc=$?
secs=$(( $(date +%s) - start ))

# The console speaks CRLF; show the guest's lines from /init's first one on.
tr -d '\r' <"$log" | sed -n 's/.*VMBOOT:/VMBOOT:/; /^VMBOOT:/,$p' | sed 's/^/  guest| /'
result=$(tr -d '\r' <"$log" | grep '^VMTEST: ' | tail -n 1)
if [ $qrc -eq 124 ] || [ $qrc -eq 137 ]; then
  echo "vm: qemu did not finish within ${timeout_s}s (hung); ${result:-no result line}"
  exit 1
fi
if [ -z "$result" ]; then
  tail -n 20 "$log"
  echo "vm: qemu exited with status $qrc after ${secs}s without a VMTEST result line"
  exit 1
fi
echo "vm: finished in ${secs}s"
echo "${result#VMTEST: }"
failed=$(echo "$result" | sed -n 's/.* \([0-9][0-9]*\) failed.*/\1/p')
passed=$(echo "$result" | sed -n 's/^VMTEST: \([0-9][0-9]*\) passed.*/\1/p')
[ "${failed:-1}" -eq 0 ] && [ "${passed:-0}" -gt 0 ]
