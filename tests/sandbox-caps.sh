#!/bin/sh
# Description: the capability sets the workload holds are the profile's.
# /proc/self/status read inside: CapBnd, CapEff, CapPrm and CapInh equal the
# mask of the profile's `capabilities` (the default profile's list, a short
# custom list, an empty list, "all" = every capability the harness holds),
# CapAmb is 0 and NoNewPrivs is 1 (also without a seccomp filter); the point
# JSON lists the same names.  Catches a sandbox that keeps the harness's full
# set (CapEff 000001ffffffffff) or drops only some of the sets.
. tests/helpers/sandbox-common.sh

# mask NAME...: the hex mask (16 digits, as /proc prints it) of capability names
mask() {
  for n in "$@"; do echo "$n"; done | awk '
    BEGIN { split("CHOWN DAC_OVERRIDE DAC_READ_SEARCH FOWNER FSETID KILL SETGID SETUID SETPCAP " \
                  "LINUX_IMMUTABLE NET_BIND_SERVICE NET_BROADCAST NET_ADMIN NET_RAW IPC_LOCK IPC_OWNER " \
                  "SYS_MODULE SYS_RAWIO SYS_CHROOT SYS_PTRACE SYS_PACCT SYS_ADMIN SYS_BOOT SYS_NICE " \
                  "SYS_RESOURCE SYS_TIME SYS_TTY_CONFIG MKNOD LEASE AUDIT_WRITE AUDIT_CONTROL SETFCAP " \
                  "MAC_OVERRIDE MAC_ADMIN SYSLOG WAKE_ALARM BLOCK_SUSPEND AUDIT_READ PERFMON BPF " \
                  "CHECKPOINT_RESTORE", n, " ")
            for (i = 1; i in n; i++) bit["CAP_" n[i]] = i - 1 }
    { if (!($1 in bit)) { print "unknown " $1 > "/dev/stderr"; exit 1 } hi += 0; b = bit[$1]
      if (b >= 32) hi += 2 ^ (b - 32); else lo += 2 ^ b }
    END { printf "%08x%08x\n", hi, lo }'
}

# check NAME EXPECTED-MASK PROFILE-ARGS...
check() {
  name=$1; want=$2; shift 2
  "$LAB" sandbox --json "$TMP/$name.json" "$@" -- /bin/grep -E '^(Cap|NoNewPrivs)' /proc/self/status \
    >"$TMP/$name.out" 2>"$TMP/$name.err" || fail "$name: sandbox failed: $(cat "$TMP/$name.err")"
  sed "s/^/  $name: /" "$TMP/$name.out"
  for set in CapBnd CapEff CapPrm CapInh; do
    got=$(sed -n "s/^$set:[[:space:]]*//p" "$TMP/$name.out")
    [ "$got" = "$want" ] || fail "$name: $set is $got, the profile says $want"
  done
  [ "$(sed -n 's/^CapAmb:[[:space:]]*//p' "$TMP/$name.out")" = 0000000000000000 ] || fail "$name: ambient set not empty"
  [ "$(sed -n 's/^NoNewPrivs:[[:space:]]*//p' "$TMP/$name.out")" = 1 ] || fail "$name: no_new_privs not set"
}

# The default profile: its list, as the point JSON resolves it.
names=$(tr -d '\n ' <containers/default.json | sed 's/.*"capabilities":\[\([^]]*\)\].*/\1/' | tr -d '"' | tr , ' ')
[ -n "$names" ] || fail "containers/default.json lists no capabilities"
want=$(mask $names) || fail "bad name in containers/default.json"
check default "$want"
for n in $names; do grep -q "\"$n\"" "$TMP/default.json" || fail "point JSON does not list $n"; done
# Docker's default set without CAP_MKNOD; never the admin capabilities.
case " $names " in *" CAP_SYS_ADMIN "*|*" CAP_MKNOD "*|*" CAP_SYS_MODULE "*|*" CAP_SYS_PTRACE "*)
  fail "default profile keeps a dangerous capability: $names" ;; esac

printf '{ "capabilities": ["CAP_KILL", "CAP_CHOWN"], "seccomp": null }\n' >"$TMP/two.json"
check two "$(mask CAP_KILL CAP_CHOWN)" --profile "$TMP/two.json"
[ "$(mask CAP_KILL CAP_CHOWN)" = 0000000000000021 ] || fail "mask() is wrong"

printf '{ "capabilities": [], "seccomp": null }\n' >"$TMP/none.json"
check none 0000000000000000 --profile "$TMP/none.json"

# "all": every capability the harness itself holds (here, without
# CAP_SYS_RESOURCE, its bounding set is not the full 0..cap_last_cap).
harness=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
printf '{ "capabilities": "all", "seccomp": null }\n' >"$TMP/all.json"
check all "$harness" --profile "$TMP/all.json"

# An unknown name is refused before anything runs.
printf '{ "capabilities": ["CAP_FLY"] }\n' >"$TMP/bad.json"
"$LAB" sandbox --profile "$TMP/bad.json" -- /bin/true 2>"$TMP/bad.err"; rc=$?
[ $rc = 2 ] && grep -q 'capabilities\[0\].*CAP_FLY' "$TMP/bad.err" || fail "unknown capability: exit $rc, $(cat "$TMP/bad.err")"
echo "PASS"
