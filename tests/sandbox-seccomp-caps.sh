#!/bin/sh
# Description: a seccomp profile's includes/excludes `caps` are judged
# against the sandbox's capabilities after the drop, as Docker judges them
# against the container's, not against the harness's full set.  A rule that
# denies getppid(2) with EPERM
#   - "includes": {"caps": ["CAP_SYS_ADMIN"]} applies only under a profile that
#     keeps CAP_SYS_ADMIN ("all"), not under the default profile;
#   - "excludes": {"caps": ["CAP_SYS_ADMIN"]} applies under the default profile
#     only.
# With the harness's set (it holds CAP_SYS_ADMIN) both would come out the
# other way round under the default profile.
. tests/helpers/sandbox-common.sh

cat >"$TMP/ppid.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
int main (void) {
  /* glibc's getppid() sets no errno: the raw syscall does. */
  long p = syscall (SYS_getppid);
  printf ("getppid=%s\n", p >= 0 ? "ok" : strerrorname_np (errno));
  return 0;
}
C
cc -O1 -o "$TMP/ppid" "$TMP/ppid.c" || fail "building ppid"

for kind in includes excludes; do
  printf '{ "defaultAction": "SCMP_ACT_ALLOW", "syscalls": [ { "names": ["getppid"], "action": "SCMP_ACT_ERRNO", "errnoRet": 1, "%s": { "caps": ["CAP_SYS_ADMIN"] } } ] }\n' \
    "$kind" >"$TMP/$kind.json"
done
printf '{ "capabilities": "all", "seccomp": null }\n' >"$TMP/all.json"

# run NAME ARGS...: prints the probe's getppid= line
run() {
  n=$1; shift
  "$LAB" sandbox --json "$TMP/$n.json.out" "$@" -- "$TMP/ppid" >"$TMP/$n.out" 2>"$TMP/$n.err" ||
    fail "$n: sandbox failed: $(cat "$TMP/$n.err")"
  sed -n 's/^getppid=//p' "$TMP/$n.out"
}
r=$(run inc-default --seccomp "$TMP/includes.json")
[ "$r" = ok ] || fail "includes CAP_SYS_ADMIN applied under the default profile (getppid=$r): judged against the harness's caps"
r=$(run inc-all --profile "$TMP/all.json" --seccomp "$TMP/includes.json")
[ "$r" = EPERM ] || fail "includes CAP_SYS_ADMIN not applied when the sandbox keeps it (getppid=$r)"
r=$(run exc-default --seccomp "$TMP/excludes.json")
[ "$r" = EPERM ] || fail "excludes CAP_SYS_ADMIN: rule not applied under the default profile (getppid=$r)"
r=$(run exc-all --profile "$TMP/all.json" --seccomp "$TMP/excludes.json")
[ "$r" = ok ] || fail "excludes CAP_SYS_ADMIN applied although the sandbox keeps it (getppid=$r)"
# The warning names whose capabilities were used.
grep -q "the sandbox's capabilities" "$TMP/inc-default.err" || fail "no warning naming the sandbox's capabilities: $(cat "$TMP/inc-default.err")"
echo "PASS"
