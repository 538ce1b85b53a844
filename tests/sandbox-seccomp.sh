#!/bin/sh
# Description: seccomp in the sandbox: a syscall the profile answers with
# ERRNO fails with EPERM while the workload goes on (seccomp/deny-openat.json:
# openat without O_CLOEXEC); a KILL action ends the point with status
# `seccomp`, exit 128+SIGSYS, and the syscall's name and number in the JSON
# (seccomp/kill-getppid.json); --seccomp-log lists the syscalls used.
. tests/helpers/sandbox-common.sh

cat > "$TMP/probe.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
int main (void) {
  int fd = open ("/etc/hostname", O_RDONLY);           /* no O_CLOEXEC: denied */
  printf ("plain=%s\n", fd >= 0 ? "ok" : strerrorname_np (errno));
  fd = open ("/etc/hostname", O_RDONLY | O_CLOEXEC);   /* allowed */
  printf ("cloexec=%s\n", fd >= 0 ? "ok" : strerrorname_np (errno));
  fflush (stdout);
  getppid ();
  printf ("after-getppid\n");
  return 0;
}
C
cc -O1 -o "$TMP/probe" "$TMP/probe.c" || fail "building probe"

"$LAB" sandbox --seccomp seccomp/deny-openat.json --json "$TMP/deny.json" -- "$TMP/probe" >"$TMP/deny.out" \
  || fail "deny-openat: exit $?"
cat "$TMP/deny.out"
grep -qx 'plain=EPERM' "$TMP/deny.out" || fail "open without O_CLOEXEC was not EPERM"
grep -qx 'cloexec=ok' "$TMP/deny.out" || fail "open with O_CLOEXEC failed"
json_has "$TMP/deny.json" status '"ok"' || fail "deny-openat: status not ok"

# Without a filter the same probe opens both: the check above can fail.
printf '{ "defaultAction": "SCMP_ACT_ALLOW" }\n' >"$TMP/allow.json"
"$LAB" sandbox --seccomp "$TMP/allow.json" --json /dev/null -- "$TMP/probe" | grep -qx 'plain=ok' \
  || fail "control: open failed without a deny rule"

"$LAB" sandbox --seccomp seccomp/kill-getppid.json --json "$TMP/kill.json" -- "$TMP/probe" >"$TMP/kill.out"; rc=$?
cat "$TMP/kill.json"
[ $rc = 159 ] || fail "kill-getppid: exit $rc, expected 159 (128+SIGSYS)"
grep -q after-getppid "$TMP/kill.out" && fail "the workload survived getppid"
json_has "$TMP/kill.json" status '"seccomp"' || fail "status is not seccomp"
json_has "$TMP/kill.json" syscall '"getppid"' || fail "syscall name missing (kernel log rate-limited?)"
json_has "$TMP/kill.json" nr 110 || fail "syscall number missing"

"$LAB" sandbox --seccomp-log --json "$TMP/log.json" -- "$TMP/probe" >/dev/null || fail "seccomp-log: exit $?"
for s in execve openat getppid write exit_group; do
  grep -q "\"$s\"" "$TMP/log.json" || fail "seccomp-log: $s not listed"
done
grep -q '"ptrace"' "$TMP/log.json" && fail "seccomp-log: ptrace listed but never called"
echo "PASS"
