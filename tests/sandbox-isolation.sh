#!/bin/sh
# Description: what the workload sees: only `lo` (up) in its network
# namespace, itself as pid 2, child of the sandbox's init (pid 1), and no
# host process in /proc, the profile's
# hostname, `/` as its cgroup; with the default seccomp profile it cannot
# create namespaces (unshare(CLONE_NEWNS/NEWNET), clone(CLONE_NEWPID) fail
# with EPERM), while under a permissive profile (every capability, an
# allow-all seccomp profile) the same probe succeeds.
. tests/helpers/sandbox-common.sh
build_helper nsprobe

"$LAB" sandbox --json "$TMP/iso.json" -- /bin/sh -c '
  echo "ifaces=$(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\n" ",")"
  echo "pid=$$ ppid=$PPID"
  echo "nprocs=$(ls /proc | grep -c "^[0-9]")"
  echo "host=$(hostname)"
  echo "cg=$(grep memory /proc/self/cgroup | cut -d: -f3)"
  ip -o link show lo | grep -q "UP" && echo "lo=up"
' >"$TMP/iso.out" || fail "sandbox failed"
cat "$TMP/iso.out"
grep -qx 'ifaces=lo,' "$TMP/iso.out" || fail "interfaces other than lo"
grep -qx 'pid=2 ppid=1' "$TMP/iso.out" || fail "workload is not pid 2, child of pid 1"
# init, sh, its command substitution subshell, ls and grep: a handful, never the host's.
n=$(sed -n 's/^nprocs=//p' "$TMP/iso.out")
[ "$n" -le 6 ] || fail "$n processes visible"
[ "$(ls /proc | grep -c '^[0-9]')" -gt 20 ] || fail "host has too few processes for the check to mean anything"
grep -qx 'host=lab' "$TMP/iso.out" || fail "hostname is not the profile's"
grep -qx 'cg=/' "$TMP/iso.out" || fail "cgroup namespace: not /"
grep -qx 'lo=up' "$TMP/iso.out" || fail "lo is not up"

"$LAB" sandbox --json "$TMP/ns.json" -- "$TMP/nsprobe" >"$TMP/ns.out"; rc=$?
cat "$TMP/ns.out"
[ $rc = 0 ] || fail "nsprobe: a namespace was created under the default profile"
grep -qx 'unshare_newns=EPERM' "$TMP/ns.out" || fail "unshare(CLONE_NEWNS) not EPERM"
grep -qx 'clone_newpid=EPERM' "$TMP/ns.out" || fail "clone(CLONE_NEWPID) not EPERM"

printf '{ "defaultAction": "SCMP_ACT_ALLOW" }\n' >"$TMP/allow.json"
printf '{ "name": "permissive", "capabilities": "all", "seccomp": null }\n' >"$TMP/permissive.json"
"$LAB" sandbox --profile "$TMP/permissive.json" --seccomp "$TMP/allow.json" --json "$TMP/ns2.json" \
  -- "$TMP/nsprobe" >"$TMP/ns2.out"
cat "$TMP/ns2.out"
grep -qx 'unshare_newns=ok' "$TMP/ns2.out" || fail "control: unshare failed even when allowed"
echo "PASS"
