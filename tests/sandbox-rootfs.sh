#!/bin/sh
# Description: the file system the workload sees under the default profile.
# The root is read-only (EROFS) while the host's stays writable; /tmp is a
# private tmpfs that refuses a write beyond its size (tmp_size, ENOSPC); /dev
# holds exactly null zero full random urandom tty pts ptmx shm and the fd
# links, /dev/null takes writes and /dev itself is read-only; the OCI masked
# paths read empty (/proc/timer_list, /sys/firmware) and /proc/sys is
# read-only; a command under /tmp still runs (its directory is bound
# read-only); a profile's `writable` directory takes writes that the host sees,
# its `binds` directory is readable but not writable.
. tests/helpers/sandbox-common.sh

out="$TMP/fs.out"
"$LAB" sandbox --json "$TMP/fs.json" -- /bin/sh -c '
  if (: > /lab-rootfs-probe) 2>/dev/null; then echo root=rw; else echo root=ro; fi
  if (: > /usr/lab-rootfs-probe) 2>/dev/null; then echo usr=rw; else echo usr=ro; fi
  echo "tmpfs=$(stat -f -c %T /tmp)"
  if head -c 70000000 /dev/zero > /tmp/big 2>/dev/null; then echo big=ok; else echo big=refused; fi
  echo "bigsize=$(stat -c %s /tmp/big)"
  rm -f /tmp/big
  echo "dev=$(ls /dev | sort | tr "\n" " ")"
  if echo x > /dev/null; then echo null=ok; fi
  if (: > /dev/lab-probe) 2>/dev/null; then echo devdir=rw; else echo devdir=ro; fi
  echo "timer_list=$(wc -c < /proc/timer_list)"
  echo "firmware=$(ls /sys/firmware | wc -l)"
  if (: > /proc/sys/kernel/hostname) 2>/dev/null; then echo procsys=rw; else echo procsys=ro; fi
  echo "shm=$(stat -f -c %T /dev/shm)"
' >"$out" 2>"$TMP/fs.err" || fail "sandbox failed: $(cat "$TMP/fs.err")"
cat "$out"
[ ! -e /lab-rootfs-probe ] || { rm -f /lab-rootfs-probe; fail "a file reached the host's /"; }
grep -qx root=ro "$out" || fail "/ is writable inside"
grep -qx usr=ro "$out" || fail "/usr is writable inside"
grep -qx tmpfs=tmpfs "$out" || fail "/tmp is not a tmpfs"
grep -qx big=refused "$out" || fail "a 70 MB write into the 64M /tmp was not refused"
size=$(sed -n 's/^bigsize=//p' "$out")
[ "$size" -le $((64 * 1048576)) ] && [ "$size" -ge $((60 * 1048576)) ] ||
  fail "/tmp took $size bytes, the profile's tmp_size is 64M"
grep -qx 'dev=fd full null ptmx pts random shm stderr stdin stdout tty urandom zero ' "$out" ||
  fail "/dev is not the minimal set: $(grep '^dev=' "$out")"
grep -qx null=ok "$out" || fail "/dev/null does not take writes"
grep -qx devdir=ro "$out" || fail "/dev is writable"
grep -qx timer_list=0 "$out" || fail "/proc/timer_list is not masked"
grep -qx firmware=0 "$out" || fail "/sys/firmware is not masked"
grep -qx procsys=ro "$out" || fail "/proc/sys is writable"
grep -qx shm=tmpfs "$out" || fail "/dev/shm is not a tmpfs"
# The host's root file system is still writable from the host.
: >"$TMP/host-probe" || fail "the host's /tmp is not writable after the run"

# A command under /tmp runs (its directory is bound); binds and writable.
mkdir -p "$TMP/ro" "$TMP/rw"
echo hello >"$TMP/ro/file"
printf '#!/bin/sh\ncat %s/ro/file\nif (: > %s/ro/new) 2>/dev/null; then echo ro-dir=rw; else echo ro-dir=ro; fi\necho inside > %s/rw/made\n' \
  "$TMP" "$TMP" "$TMP" >"$TMP/script.sh"
chmod +x "$TMP/script.sh"
printf '{ "name": "binds", "binds": ["%s/ro"], "writable": ["%s/rw"] }\n' "$TMP" "$TMP" >"$TMP/binds.json"
"$LAB" sandbox --profile "$TMP/binds.json" --json "$TMP/binds.out.json" -- "$TMP/script.sh" \
  >"$TMP/binds.out" 2>"$TMP/binds.err" || fail "binds: sandbox failed: $(cat "$TMP/binds.err")"
cat "$TMP/binds.out"
grep -qx hello "$TMP/binds.out" || fail "binds: the read-only bind is not readable"
grep -qx ro-dir=ro "$TMP/binds.out" || fail "binds: the read-only bind is writable"
[ ! -e "$TMP/ro/new" ] || fail "binds: a file reached the host through the read-only bind"
[ "$(cat "$TMP/rw/made" 2>/dev/null)" = inside ] || fail "writable: the host does not see the file written inside"

# A working directory under /tmp (a clone or scratch directory there) is found
# by name inside, read-only: a command that changes into "$PWD" (a pyenv shim
# does) runs; nothing it writes there reaches the host.
mkdir -p /tmp/lab-rootfs-cwd.$$ && echo here >/tmp/lab-rootfs-cwd.$$/mark
lab_abs=$(cd "$(dirname "$LAB")" && pwd)/$(basename "$LAB")
out=$(cd /tmp/lab-rootfs-cwd.$$ && "$lab_abs" sandbox --json "$TMP/cwd.json" -- /bin/sh -c \
  'cd "$PWD" && cat mark && if (: > new) 2>/dev/null; then echo cwd=rw; else echo cwd=ro; fi' 2>"$TMP/cwd.err")
rc=$?
ls /tmp/lab-rootfs-cwd.$$/new >/dev/null 2>&1 && { rm -rf /tmp/lab-rootfs-cwd.$$; fail "cwd: a file reached the host"; }
rm -rf /tmp/lab-rootfs-cwd.$$
[ $rc = 0 ] && [ "$out" = "here
cwd=ro" ] || fail "cwd under /tmp: exit $rc, output '$out', $(cat "$TMP/cwd.err")"

# A writable directory that does not exist is a clear error, not a silent skip.
printf '{ "writable": ["%s/missing"] }\n' "$TMP" >"$TMP/missing.json"
"$LAB" sandbox --profile "$TMP/missing.json" -- /bin/true 2>"$TMP/missing.err"; rc=$?
[ $rc != 0 ] && grep -q "missing" "$TMP/missing.err" || fail "missing writable dir: exit $rc, $(cat "$TMP/missing.err")"
# File system fields without the mount namespace are refused.
printf '{ "namespaces": ["pid"], "tmp_size": "1M" }\n' >"$TMP/nomnt.json"
"$LAB" sandbox --profile "$TMP/nomnt.json" -- /bin/true 2>"$TMP/nomnt.err"; rc=$?
[ $rc = 2 ] && grep -q 'tmp_size.*mount' "$TMP/nomnt.err" || fail "tmp_size without mount ns: exit $rc, $(cat "$TMP/nomnt.err")"
echo "PASS"
