#!/bin/sh
# Description: `"user": true` in a profile runs the sandbox in a user
# namespace whose root is an unprivileged id outside: inside, id 0 and the
# maps "0 100000 65536"; a file written into a `writable` directory belongs to
# uid/gid 100000 on the host; a root-only host file (/etc/shadow, mode 0640)
# cannot be read; the capability sets are still the profile's; the point ends
# ok with its cgroup figures.  Without "user", the same file belongs to root.
. tests/helpers/sandbox-common.sh

[ -r /proc/self/uid_map ] || { echo "SKIP: no user namespaces in this kernel"; exit 77; }
# The unprivileged id must be able to reach the writable directory (the
# runner's temp root is mode 0700).
chmod 755 "$TMP"
chmod o+x "$(dirname "$TMP")"
mkdir -p "$TMP/rw" && chmod 777 "$TMP/rw"
printf '{ "name": "userns", "user": true, "writable": ["%s/rw"] }\n' "$TMP" >"$TMP/user.json"
"$LAB" sandbox --profile "$TMP/user.json" --json "$TMP/user.out.json" -- /bin/sh -c "
  echo id=\$(id -u):\$(id -g)
  echo uidmap=\$(cat /proc/self/uid_map | tr -s ' ' | sed 's/^ //')
  echo gidmap=\$(cat /proc/self/gid_map | tr -s ' ' | sed 's/^ //')
  grep CapEff /proc/self/status
  echo made > $TMP/rw/by-userns
  if cat /etc/shadow >/dev/null 2>&1; then echo shadow=read; else echo shadow=denied; fi
" >"$TMP/user.out" 2>"$TMP/user.err" || fail "user ns sandbox failed: $(cat "$TMP/user.err")"
cat "$TMP/user.out"
grep -qx id=0:0 "$TMP/user.out" || fail "not root inside the user namespace"
grep -qx 'uidmap=0 100000 65536' "$TMP/user.out" || fail "uid_map is not 0 100000 65536"
grep -qx 'gidmap=0 100000 65536' "$TMP/user.out" || fail "gid_map is not 0 100000 65536"
[ "$(stat -c %u:%g "$TMP/rw/by-userns" 2>/dev/null)" = 100000:100000 ] ||
  fail "the file written inside belongs to $(stat -c %u:%g "$TMP/rw/by-userns" 2>&1) on the host, not 100000:100000"
if [ -f /etc/shadow ] && [ "$(stat -c %a /etc/shadow)" = 640 ]; then
  grep -qx shadow=denied "$TMP/user.out" || fail "root in the user namespace read /etc/shadow"
fi
want=$(sed -n 's/^CapEff:[[:space:]]*//p' "$TMP/user.out")
[ "$want" = 00000000a00425fb ] || fail "CapEff in the user namespace is $want, not the default profile's"
json_has "$TMP/user.out.json" status '"ok"' || fail "point status is not ok"
tr -d ' \n' <"$TMP/user.out.json" | grep -q '"namespaces":\[[^]]*"user"' || fail "the point JSON does not list the user namespace"

# Control: without a user namespace the same write is root's on the host.
printf '{ "name": "nouser", "writable": ["%s/rw"] }\n' "$TMP" >"$TMP/nouser.json"
"$LAB" sandbox --profile "$TMP/nouser.json" --json "$TMP/nouser.out.json" -- /bin/sh -c "echo made > $TMP/rw/by-root" \
  2>"$TMP/nouser.err" || fail "sandbox failed: $(cat "$TMP/nouser.err")"
[ "$(stat -c %u "$TMP/rw/by-root")" = 0 ] || fail "control: the file is not root's"
echo "PASS"
