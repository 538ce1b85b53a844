#!/bin/sh
# Description: `lab run echo` end to end, as a user runs it, short phases:
# every variant ends ok with the client's figures in summary.csv (capacity,
# open-loop percentiles in order), points/<id>.hgrm in HdrHistogram's format,
# the client's own record (its cgroup, CPU, the setns'd loopback) beside the
# server's, both plots and C5/C7/C8 in the report.  Failure paths, each a
# recorded status with its reason and the run going on: a count over
# RLIMIT_NOFILE (limit), a server that never gets ready (timeout: by the
# point's --timeout, and by the shorter --opt ready_timeout_s), a server
# crash mid-run (crashed, client reaped), a port in use, a client that cannot
# connect, the client killed mid-run; contradictory or bad options (exit 2).  After each run and after SIGINT to the
# harness mid-point: no cgroup of that harness left, no server or client
# process of it alive (checked by pid: other runs share this machine).
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the sandbox needs root"; exit 77; }
SHORT="--opt phase_s=0.5 --opt warmup_s=0.2 --opt rate=2000 --timeout 30"

# no_leftovers HARNESS_PID PIDS...: no lab-<pid> cgroup, none of the pids alive
no_leftovers() {
  h=$1; shift
  c=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "lab-$h" 2>/dev/null | head -n 3)
  [ -z "$c" ] || fail "cgroups left behind: $c"
  for p in "$@"; do
    [ -d "/proc/$p" ] && [ "$(cat /proc/$p/stat 2>/dev/null | cut -d' ' -f3)" != Z ] && fail "process $p ($(cat /proc/$p/comm 2>/dev/null)) left alive"
  done
  return 0
}
# descendants PID: every process below PID now
descendants() {
  for c in $(cat /proc/$1/task/*/children 2>/dev/null); do echo "$c"; descendants "$c"; done
}

# --- bad input: exit 2 naming the option, before any directory is made ------
for bad in "client=wrk" "server_cpus=99" "phase_s=abc" "rate=0" "proto=smtp" "ready_timeout_s=0" "open_s=0" "open_s=5x"; do
  msg=$("$LAB" run echo --scale 100 --opt $bad --out "$T/bad" 2>&1); rc=$?
  [ $rc -eq 2 ] || fail "--opt $bad: exit $rc, not 2"
  echo "$msg" | grep -q "${bad%%=*}" || fail "--opt $bad: the message does not name it: $msg"
  [ ! -e "$T/bad" ] || fail "--opt $bad: a run directory was made"
done

# --- every variant ok -------------------------------------------------------
OUT="$T/ok"
"$LAB" run echo --scale 100 $SHORT --out "$OUT" > "$T/ok.log" 2>&1 &
pid=$!
seen=""
while kill -0 $pid 2>/dev/null; do seen="$seen $(descendants $pid)"; sleep 0.2; done
wait $pid || { cat "$T/ok.log"; fail "lab run echo exited $?"; }
cat "$T/ok.log"
no_leftovers $pid $seen
for v in thread epoll uring coro-epoll coro-uring; do
  row=$(grep "^echo,$v,100,1," "$OUT/summary.csv") || fail "no $v row"
  echo "$row" | awk -F, '{ if ($5 != "ok" || $16 <= 0 || $17 <= 0 || $18 <= 0 || $19 < $18 || $20 < $19 || $21 < $20 || $12 <= 0) exit 1 }' \
    || fail "$v: status/figures wrong in: $row"
  h="$OUT/points/echo-$v-n100-r1.hgrm"
  head -n 1 "$h" | grep -q 'Value     Percentile TotalCount 1/(1-Percentile)' || fail "$h: not a percentile distribution"
  tail -n 2 "$h" | grep -q 'Total count' || fail "$h: no footer"
  j="$OUT/points/echo-$v-n100-r1.json"
  for k in '"client":' '"client_figures":' '"label":"loadgen"' '"open_sent":' '"cpu_sys_s":' '"mem_peak_bytes":' '"ready":'; do
    grep -q "$k" "$j" || fail "$j lacks $k"
  done
  grep -q '"cpuset.cpus":"0"' "$j" || fail "$j: the server's cpuset is not recorded"
  # phase_s alone sets both phases
  grep -q '"closed_s":0.5,' "$j" && grep -q '"open_s":0.5,' "$j" || fail "$j: phase_s=0.5 did not set both phases"
done
grep -q 'multishot_recv' "$OUT/points/echo-uring-n100-r1.json" || fail "uring's features are not recorded"
for p in echo-throughput echo-latency-n100; do
  [ -s "$OUT/plots/$p.png" ] || fail "missing plot $p"
done
for c in C5 C7 C8; do grep -q "\*\*$c\*\*" "$OUT/report.md" || fail "report lacks $c"; done
grep -q 'open-loop rate' "$OUT/report.md" || fail "report lacks the echo table"

# --- failure statuses -------------------------------------------------------
expect() { # NAME STATUS PATTERN ARGS...
  name=$1 st=$2 pat=$3; shift 3
  "$LAB" run echo --scale 100 --variants epoll $SHORT --out "$T/$name" "$@" > "$T/$name.log" 2>&1 &
  p=$!; seen=""
  while kill -0 $p 2>/dev/null; do seen="$seen $(descendants $p)"; sleep 0.1; done
  wait $p || { cat "$T/$name.log"; fail "$name: lab run exited $?"; }
  line=$(grep '^echo-' "$T/$name.log")
  echo "$line"
  echo "$line" | grep -q " $st " || fail "$name: not $st: $line"
  echo "$line" | grep -q "$pat" || fail "$name: the detail lacks '$pat': $line"
  no_leftovers $p $seen
}
expect limit limit 'RLIMIT_NOFILE' --scale 30000
expect noready timeout 'never reported ready' --opt fault=no-ready --timeout 3
# the ready timeout ends it long before the point's own --timeout 300
t0=$(date +%s)
expect readytimeout timeout 'never reported ready.*ready timeout, 1 s' --opt fault=no-ready --opt ready_timeout_s=1 --timeout 300
[ $(($(date +%s) - t0)) -lt 120 ] || fail "ready_timeout_s=1 did not end the point before its 300 s timeout"
expect crash crashed 'SIGABRT.*client .loadgen. .*reaped' --opt fault=crash
expect portinuse crashed 'Address already in use' --opt fault=port-in-use
expect refuse crashed 'cannot connect to 127.0.0.1:8080.*refused' --opt fault=refuse

# --- the client killed mid-run ----------------------------------------------
"$LAB" run echo --scale 100 --variants epoll --opt phase_s=3 --opt rate=2000 --out "$T/kill" > "$T/kill.log" 2>&1 &
p=$!; seen=""; killed=""
while kill -0 $p 2>/dev/null; do
  seen="$seen $(descendants $p)"
  if [ -z "$killed" ]; then
    for c in $(descendants $p); do
      [ "$(cat /proc/$c/comm 2>/dev/null)" = wl-loadgen ] && { kill -KILL $c; killed=$c; }
    done
  fi
  sleep 0.1
done
wait $p || { cat "$T/kill.log"; fail "client-kill run exited $?"; }
[ -n "$killed" ] || fail "never saw the client to kill"
grep '^echo-' "$T/kill.log" | grep -q "crashed.*client .loadgen. killed by SIGKILL" || fail "client kill: $(cat "$T/kill.log")"
no_leftovers $p $seen

# --- SIGINT to the harness mid-point ----------------------------------------
"$LAB" run echo --scale 100 --variants epoll --opt phase_s=5 --opt rate=2000 --out "$T/int" > "$T/int.log" 2>&1 &
p=$!; seen=""; i=0
until grep -q wl-loadgen /proc/$(descendants $p | tr '\n' ' ' | sed 's/ .*//')/comm 2>/dev/null || [ $i -ge 100 ]; do
  for c in $(descendants $p); do [ "$(cat /proc/$c/comm 2>/dev/null)" = wl-loadgen ] && i=1000; done
  seen="$seen $(descendants $p)"; i=$((i + 1)); sleep 0.1
done
seen="$seen $(descendants $p)"
kill -INT $p
wait $p; rc=$?
[ $rc -eq 130 ] || { cat "$T/int.log"; fail "SIGINT: exit $rc, not 130"; }
no_leftovers $p $seen
echo "PASS"
