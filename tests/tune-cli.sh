#!/bin/sh
# Description: `lab tune` without --apply: bad input (unknown experiment, bad scale, bad swap size,
# --swap-dir without --swap, --undo mixed with other flags, bad pressure sizes) exits 2 naming
# what was wrong; --apply/--swap/--undo as non-root exit 2 saying to run as root; the table's
# "needed" numbers are computed from the scale (pid_max >= (n + host threads) x 8/7, max_map_count >= 2n;
# spawn counts n alive only with join=after).
set -u
. tests/helpers/cli-check.sh
[ -x "$LAB" ] || { echo "FAIL: $LAB not built"; exit 1; }
check 0 "usage: lab tune" tune --help
check 2 "unknown experiment \`nosuch\`" tune nosuch
check 2 "bad number \`12x\`" tune memory --scale 12x
check 2 "impossible scale \`0\`" tune memory --scale 0
check 2 "--swap: bad size \`12Q\`" tune --swap 12Q
check 2 "\`max\` is not a size" tune --swap max
check 2 "--swap-dir needs --swap SIZE" tune --swap-dir "$T"
check 2 "--undo takes no experiments" tune --undo --apply
check 2 "--undo takes no experiments" tune --undo memory
check 2 "kib must be a whole number 4..65536" tune pressure --opt kib=2
check 2 "fraction must be 0.05..0.95" tune pressure --opt fraction=1.5
check 2 "unrecognized option" tune --bogus
check 2 "No such file" tune --swap 16M --swap-dir "$T/does-not-exist" --state "$T/st.json"
[ -e "$T/st.json" ] && { echo "FAIL: a refused --swap wrote the state file"; fails=$((fails + 1)); }

# Numbers: for memory at 200000 tasks, pid_max needs >= (200000 + the host's threads + 10000) x 8/7.
"$LAB" tune memory --scale 200000 > "$T/show" 2>&1 || { echo "FAIL: lab tune memory exited $?"; fails=$((fails + 1)); }
threads=$(cut -d' ' -f4 /proc/loadavg | cut -d/ -f2)
pid=$(awk '$1 == "kernel.pid_max" { print $4 }' "$T/show")
maps=$(awk '$1 == "vm.max_map_count" { print $4 }' "$T/show")
# (x 8/7: the profiles' pids.max auto keeps 1/8 for the host)
if [ -z "$pid" ] || [ "$pid" -lt $((210000 * 8 / 7)) ] || [ "$pid" -gt $(((210000 + threads + 2000) * 8 / 7 + 1000)) ]; then
  echo "FAIL: pid_max needed \`$pid\` for 200000 tasks and $threads host threads"; cat "$T/show"; fails=$((fails + 1))
else echo "ok: pid_max needed $pid"; fi
if [ -z "$maps" ] || [ "$maps" -lt 400000 ] || [ "$maps" -gt 411000 ]; then
  echo "FAIL: max_map_count needed \`$maps\` for 200000 tasks"; cat "$T/show"; fails=$((fails + 1))
else echo "ok: max_map_count needed $maps"; fi
# switch keeps 2 tasks alive: nothing to raise.
"$LAB" tune switch --scale 1000000 > "$T/show2" 2>&1
if grep -q RAISE "$T/show2"; then echo "FAIL: switch needs no raise:"; cat "$T/show2"; fails=$((fails + 1)); else echo "ok: switch needs nothing"; fi

# spawn's reaper joins threads as they end: only join=after keeps n alive.
"$LAB" tune spawn --scale 1000000 > "$T/show3" 2>&1
"$LAB" tune spawn --scale 1000000 --opt join=after > "$T/show4" 2>&1
if grep -q RAISE "$T/show3" || [ "$(awk '$1 == "kernel.pid_max" { print $4 }' "$T/show4")" -le 1000000 ]; then
  echo "FAIL: spawn at 1M: reaper mode needs nothing, join=after needs pid_max > 1M:"; cat "$T/show3" "$T/show4"; fails=$((fails + 1))
else echo "ok: spawn needs depend on join"; fi
# Not root: --apply, --swap and --undo refuse with what to run.
if command -v setpriv > /dev/null && [ "$(id -u)" = 0 ]; then
  NR=$(mktemp -d /tmp/lab-tune-nonroot.XXXXXX); trap 'rm -rf "$NR"' EXIT
  cp "$LAB" "$NR/lab"; chmod 755 "$NR" "$NR/lab"
  for a in "--apply" "--undo" "--swap 16M"; do
    setpriv --reuid=65534 --regid=65534 --clear-groups "$NR/lab" tune $a --state "$NR/nobody.json" > "$T/out" 2>&1; rc=$?
    if [ $rc -ne 2 ] || ! grep -q "must run as root" "$T/out"; then
      echo "FAIL: non-root lab tune $a exited $rc:"; cat "$T/out"; fails=$((fails + 1))
    else echo "ok: non-root lab tune $a -> 2"; fi
  done
else echo "note: non-root checks need setpriv and root"; fi
[ $fails -eq 0 ] || exit 1
exit 0
