#!/bin/sh
# Description: the default profiles leave the host a reserve of pids.  Every
# profile with `"pids.max": "auto"` (default, pthread, io_uring, swap) gets
# min(kernel.pid_max, kernel.threads-max) minus max(1024, 1/8) of it, computed
# here from /proc/sys and compared with what the point's cgroup holds (read
# on the host while the point runs) and what its JSON records; and the value
# is below the host's cap, so a thread bomb in a default point cannot take
# every pid.  An explicit "max" stays unlimited.
. tests/helpers/sandbox-common.sh

pid_max=$(cat /proc/sys/kernel/pid_max); threads_max=$(cat /proc/sys/kernel/threads-max)
cap=$pid_max; [ "$threads_max" -lt "$cap" ] && cap=$threads_max
reserve=$((cap / 8)); [ $reserve -lt 1024 ] && reserve=1024
want=$((cap - reserve))
echo "pid_max=$pid_max threads-max=$threads_max: pids.max auto should be $want"
[ $want -lt $cap ] || fail "no reserve: $want >= $cap"

for prof in default pthread io_uring swap; do
  [ -f "containers/$prof.json" ] || continue
  grep -q '"pids.max": "auto"' "containers/$prof.json" || fail "containers/$prof.json: pids.max is not auto"
  "$LAB" sandbox --profile "containers/$prof.json" --json "$TMP/$prof.json" -- /bin/sleep 1 & pid=$!
  i=0; f=""
  while [ -z "$f" ] && [ $i -lt 100 ]; do
    f=$(find /sys/fs/cgroup -path "*/lab-$pid/*/pids.max" 2>/dev/null | head -n 1)
    [ -n "$f" ] || { sleep 0.1; i=$((i + 1)); }
  done
  [ -n "$f" ] || fail "$prof: no pids.max in the point's cgroup"
  got=$(cat "$f")
  wait $pid || fail "$prof: sandbox failed"
  echo "$prof: $f = $got"
  [ "$got" = "$want" ] || fail "$prof: the point's cgroup has pids.max $got, want $want"
  grep -q "\"pids.max\":$want" "$TMP/$prof.json" || fail "$prof: the JSON does not record pids.max $want"
done

# "max" stays max.
"$LAB" sandbox --pids-max max --json "$TMP/max.json" -- /bin/true || fail "--pids-max max failed"
grep -q '"pids.max":"max"' "$TMP/max.json" || grep -q '"pids.max":null' "$TMP/max.json" \
  || fail "--pids-max max: $(grep -o '"pids.max":[^,]*' "$TMP/max.json")"
echo "PASS"
