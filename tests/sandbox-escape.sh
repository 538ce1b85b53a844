#!/bin/sh
# Description: root inside the sandbox cannot change the host (issue 14 §1).
# Each escape found by the attack pass is tried under the default profile and
# must be denied, then under an explicitly permissive test profile (every
# capability, nothing read-only or masked, no seccomp filter) where it must
# succeed, as the control that the probe itself works.  The controls never
# change the host: a sysctl gets the value it already has, files are only
# opened for writing (no byte written), the device node is made in a private
# tmpfs, and files land in this test's own $TMP.
#   printk_ratelimit   write (the value it has + 1) to /proc/sys/kernel/printk_ratelimit
#   drop_caches        open /proc/sys/vm/drop_caches for writing
#   core_pattern       open /proc/sys/kernel/core_pattern for writing
#   mknod              mknod a block device (7,0) in /tmp
#   host-tmp           a file written into /tmp stays on the host
#   root-write         a file created at / (the host's root file system)
#   unshare-n          unshare -n under a Docker-style profile whose unshare
#                      rule applies to holders of CAP_SYS_ADMIN only
. tests/helpers/sandbox-common.sh

# permissive: every capability, /proc/sys etc. writable (fresh /proc), nothing
# masked, no seccomp; the root stays read-only and /tmp private, so the
# controls cannot touch the host by accident.
cat >"$TMP/permissive.json" <<'J'
{ "name": "permissive", "capabilities": "all", "readonly_paths": [], "masked_paths": [],
  "seccomp": null, "tmp_size": "1M" }
J
# host-rw: the host's root and /tmp as they are (for the /tmp control only).
cat >"$TMP/host-rw.json" <<'J'
{ "name": "host-rw", "capabilities": "all", "rootfs_readonly": false, "tmp_size": 0, "dev": "host",
  "seccomp": null }
J

# run NAME PROFILE-ARGS -- CMD: output (stdout+stderr) in $TMP/NAME.out, exit in $rc
run() {
  n=$1; shift
  "$LAB" sandbox --json "$TMP/$n.json" "$@" >"$TMP/$n.out" 2>&1
  rc=$?
}
denied() { # NAME: the probe printed DENIED
  grep -qx DENIED "$TMP/$1.out" || fail "$1: not denied under the default profile: $(cat "$TMP/$1.out")"
  echo "denied: $1"
}
allowed() { # NAME: the probe printed ALLOWED
  grep -qx ALLOWED "$TMP/$1.out" || fail "$1 (control): not allowed under the permissive profile: $(cat "$TMP/$1.out")"
  echo "control ok: $1"
}
probe='then echo ALLOWED; else echo DENIED; fi'

# --- sysctls ----------------------------------------------------------------
old=$(cat /proc/sys/kernel/printk_ratelimit)
new=$((old + 1))
run printk -- /bin/sh -c "if echo $new > /proc/sys/kernel/printk_ratelimit; $probe"
# Put the host's value back first if the probe got through.
[ "$(cat /proc/sys/kernel/printk_ratelimit)" = "$old" ] || {
  echo "$old" >/proc/sys/kernel/printk_ratelimit; fail "printk_ratelimit changed on the host (restored)"; }
denied printk
run printk-c --profile "$TMP/permissive.json" -- \
  /bin/sh -c "if echo $old > /proc/sys/kernel/printk_ratelimit; $probe"
allowed printk-c
[ "$(cat /proc/sys/kernel/printk_ratelimit)" = "$old" ] || fail "control changed printk_ratelimit"

for f in vm/drop_caches kernel/core_pattern; do
  b=$(basename $f)
  run "$b" -- /bin/sh -c "if (: > /proc/sys/$f); $probe"
  denied "$b"
  run "$b-c" --profile "$TMP/permissive.json" -- /bin/sh -c "if (: > /proc/sys/$f); $probe"
  allowed "$b-c"
done

# --- device nodes -------------------------------------------------------------
run mknod -- /bin/sh -c "if mknod /tmp/blk b 7 0; $probe"
denied mknod
run mknod-c --profile "$TMP/permissive.json" -- /bin/sh -c "if mknod /tmp/blk b 7 0 && [ -b /tmp/blk ]; $probe"
allowed mknod-c

# --- files on the host ----------------------------------------------------------
mark="lab-escape-$$"
run hosttmp -- /bin/sh -c "mkdir -p $TMP && echo x > $TMP/$mark && echo written inside"
[ $rc = 0 ] && grep -q 'written inside' "$TMP/hosttmp.out" || fail "host-tmp: the write failed inside: $(cat "$TMP/hosttmp.out")"
[ ! -e "$TMP/$mark" ] || fail "host-tmp: a file written into /tmp inside is on the host"
echo "denied: host-tmp (written into the private /tmp, not on the host)"
run hosttmp-c --profile "$TMP/host-rw.json" -- /bin/sh -c "echo x > $TMP/$mark"
[ -e "$TMP/$mark" ] || fail "host-tmp (control): the file did not reach the host's /tmp: $(cat "$TMP/hosttmp-c.out")"
rm -f "$TMP/$mark"
echo "control ok: host-tmp"

run rootw -- /bin/sh -c "if (: > /$mark); $probe"
denied rootw
[ ! -e "/$mark" ] || { rm -f "/$mark"; fail "root-write: /$mark created on the host"; }
grep -q 'Read-only file system' "$TMP/rootw.out" || fail "root-write: not refused as read-only: $(cat "$TMP/rootw.out")"

# --- namespaces through a Docker-style caps rule ----------------------------------
# As moby's default profile: unshare/setns/mount only for holders of CAP_SYS_ADMIN
# (written here as an ERRNO rule excluded for them, on an allow-all default).
cat >"$TMP/docker-style.json" <<'J'
{ "defaultAction": "SCMP_ACT_ALLOW",
  "syscalls": [ { "names": ["unshare", "setns", "mount", "umount2"], "action": "SCMP_ACT_ERRNO",
                  "errnoRet": 1, "excludes": { "caps": ["CAP_SYS_ADMIN"] } } ] }
J
command -v unshare >/dev/null || { echo "SKIP: no unshare(1) for the last probe"; exit 77; }
run unshare --seccomp "$TMP/docker-style.json" -- /bin/sh -c "if unshare -n true; $probe"
denied unshare
run unshare-c --profile "$TMP/permissive.json" --seccomp "$TMP/docker-style.json" -- \
  /bin/sh -c "if unshare -n true; $probe"
allowed unshare-c
echo "PASS"
