#!/bin/sh
# Description: the bad-input table (issue 14 §3): every input that was once silently changed
# or hung is refused with exit 2 and a message naming the file, flag or field - duplicate keys
# (memory.max, seccomp: null, defaultAction), a FIFO, /dev/zero, /dev/urandom, a directory or a
# >1 MiB file as a profile, pids.max 2^63 and above the kernel's limit, integers json-c would
# clamp (2^64 as a seccomp argument, errnoRet 2^63, memory.max 10^23), a NUL in a hostname or
# a key, invalid UTF-8, "1e3M"/"1.3K"/"0x10" sizes, --stack 1e3M in lab and in a workload,
# --pids-max 2^63-1, a FIFO as meta.json for --resume, --out "", --profile "", --scale 1,,2 /
# ,1 / 1, , --variants coro, , --repeat 1e3.  Each runs
# under `timeout 20` so a hang fails the entry instead of the suite.  Controls: --stack 1.5M
# is accepted by lab and by the workload alike (it used to be refused by every workload).
set -u
B=${LAB_BUILD:-build}
LAB=$B/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
mkdir -p "$T" || exit 1
fails=0; n=0
check() { # "message substring" command args... : expects exit 2 and the substring
  msg=$1; shift
  n=$((n + 1))
  timeout -k 5 20 "$@" >"$T/out" 2>&1 </dev/null; rc=$?
  if [ "$rc" -ne 2 ]; then
    echo "FAIL: $* exited $rc, expected 2"; head -n 5 "$T/out"; fails=$((fails + 1)); return
  fi
  if ! grep -qF -- "$msg" "$T/out"; then
    echo "FAIL: $*: message lacks \`$msg\`:"; head -n 5 "$T/out"; fails=$((fails + 1)); return
  fi
  echo "ok: $(echo "$*" | cut -c1-90) -> 2: $(head -n 1 "$T/out" | cut -c1-150)"
}
[ -x "$LAB" ] || { echo "FAIL: $LAB not built"; exit 1; }
S="$LAB sandbox --profile"
p() { printf '%s' "$2" > "$T/$1"; echo "$T/$1"; }

# --- profiles: the file itself
check "duplicate key \`memory.max\`" $S "$(p dup-mem.json '{"limits":{"memory.max":"16M","memory.max":"max"}}')" -- true
check "line 2, column 2: duplicate key \`seccomp\`" $S "$(p dup-sec.json '{"seccomp":"seccomp/default.json",
 "seccomp":null}')" -- true
check "duplicate key \`name\`" $S "$(p dup-esc.json '{"name":"a","n\u0061me":"b"}')" -- true
mkfifo "$T/fifo.json"
check "fifo.json\` is a FIFO" $S "$T/fifo.json" -- true
check "\`/dev/zero\` is a character device" $S /dev/zero -- true
check "\`/dev/urandom\` is a character device" $S /dev/urandom -- true
check "is a directory" $S "$T" -- true
head -c 1100000 /dev/zero | tr '\0' ' ' > "$T/big.json"
check "big.json\` is 1100000 bytes, more than the 1048576 allowed" $S "$T/big.json" -- true
check "does-not-exist.json" $S "$T/does-not-exist.json" -- true
check "line 1, column" $S "$(p broken.json '{"limits":')" -- true
printf '{"name":"\377\376"}' > "$T/utf8.json"
check "invalid utf-8" $S "$T/utf8.json" -- true
check "holds a NUL" $S "$(p key-nul.json '{"name\u0000x":"y"}')" -- true
# --- profiles: values
check "\`limits.pids.max\`: 9223372036854775808 is above the largest value 4194304" \
  $S "$(p pids63.json '{"limits":{"pids.max":9223372036854775808}}')" -- true
check "\`limits.pids.max\`: 5000000 is above" $S "$(p pids5m.json '{"limits":{"pids.max":5000000}}')" -- true
check "integer \`100000000000000000000000\` is out of range" \
  $S "$(p mem-huge.json '{"limits":{"memory.max":100000000000000000000000}}')" -- true
check "\`limits.memory.max\`: bad size \`1e3M\`" $S "$(p mem-e.json '{"limits":{"memory.max":"1e3M"}}')" -- true
check "\`limits.memory.max\`: bad size \`1.3K\`" $S "$(p mem-frac.json '{"limits":{"memory.max":"1.3K"}}')" -- true
check "\`limits.memory.max\`: bad size \`0x10M\`" $S "$(p mem-hex.json '{"limits":{"memory.max":"0x10M"}}')" -- true
check "\`hostname\`: \`ab\\u0000...\` holds a NUL" $S "$(p host.json '{"hostname":"ab\u0000cd"}')" -- true
check "too large" $S "$(p rlim.json '{"rlimits":{"RLIMIT_NOFILE":9223372036854775808}}')" -- true
check "unknown field" $S "$(p unknown.json '{"limitz":{}}')" -- true
# --- seccomp profiles
SC="$LAB sandbox --seccomp"
check "integer \`18446744073709551616\` is out of range" $SC "$(p arg64.json '{"defaultAction":"SCMP_ACT_ALLOW",
"syscalls":[{"names":["getppid"],"action":"SCMP_ACT_ERRNO","args":[{"index":0,"value":18446744073709551616,"op":"SCMP_CMP_EQ"}]}]}')" -- true
check "duplicate key \`defaultAction\`" $SC "$(p dupact.json '{"defaultAction":"SCMP_ACT_ALLOW","defaultAction":"SCMP_ACT_KILL"}')" -- true
check "\`defaultErrnoRet\`: expected an integer below 2^63" \
  $SC "$(p errno63.json '{"defaultAction":"SCMP_ACT_ERRNO","defaultErrnoRet":9223372036854775808}')" -- true
check "\` is a FIFO" $SC "$T/fifo.json" -- true
# --- command line
R="$LAB run spawn --variants pthread,coro --scale 10"
check "--out: empty directory name" $LAB run spawn --out ""
check "--profile: empty file name" $R --profile "" --out "$T/r"
check "--scale: empty entry in \`1,,2\`" $LAB run spawn --scale 1,,2 --out "$T/r"
check "--scale: empty entry in \`,1\`" $LAB run spawn --scale ,1 --out "$T/r"
check "--scale: empty entry in \`1,\`" $LAB run spawn --scale 1, --out "$T/r"
check "--variants: empty entry" $LAB run spawn --variants coro, --out "$T/r"
check "--repeat: bad number \`1e3\`" $R --repeat 1e3 --out "$T/r"
check "--stack: bad size \`1e3M\`" $R --stack 1e3M --out "$T/r"
check "--stack: bad size \`1.3K\`" $R --stack 1.3K --out "$T/r"
check "--stack: \`1K\` is out of range" $R --stack 1K --out "$T/r"
check "--memory-max: bad size \`1e3M\`" $LAB sandbox --memory-max 1e3M -- true
check "\`--pids-max\`: 9223372036854775807 is above the largest value 4194304" $LAB sandbox --pids-max 9223372036854775807 -- true
mkdir -p "$T/fifo-run" && mkfifo "$T/fifo-run/meta.json"
check "meta.json\` is a FIFO" $LAB run --resume "$T/fifo-run"
check "option \`--stack\`: bad size \`1e3M\`" "$B/bin/wl-spawn" --variant pthread --n 10 --stack 1e3M
check "option \`--stack\`: \`1K\` is below 2048" "$B/bin/wl-spawn" --variant pthread --n 10 --stack 1K
[ -e "$T/r" ] && { echo "FAIL: a refused run created $T/r"; fails=$((fails + 1)); }

# --- controls: what must be accepted still is (one parser: lab and workloads agree)
if ! "$B/bin/wl-spawn" --variant pthread --n 10 --stack 1.5M >"$T/out" 2>&1; then
  echo "FAIL: wl-spawn --stack 1.5M refused:"; cat "$T/out"; fails=$((fails + 1))
elif ! grep -q '"stack_bytes": *1572864' "$T/out"; then
  echo "FAIL: wl-spawn --stack 1.5M did not use 1572864 bytes:"; cat "$T/out"; fails=$((fails + 1))
else
  echo "ok: wl-spawn --stack 1.5M accepted (stack_bytes 1572864)"
fi
check_ok() { if ! timeout 20 "$@" >"$T/out" 2>&1; then echo "FAIL: $* was refused:"; cat "$T/out"; fails=$((fails + 1)); else echo "ok: $* accepted"; fi; }
check_ok $LAB sandbox --memory-max 1.5G -- true
check_ok $S "$(p good.json '{"limits":{"memory.max":"1.5G","pids.max":4194304}}')" -- true

echo "$n bad inputs checked, $fails failure(s)"
[ "$fails" -eq 0 ] || exit 1
exit 0
