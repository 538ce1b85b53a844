#!/bin/sh
# Description: liveness of a harness's cgroups comes from the lock it holds,
# not from its pid.  `lab-<N>` groups (with a point inside) whose pid N is a
# live process that is no harness - a reused pid - are removed by the next lab
# command, whichever: doctor, list, plot, sandbox, run; each says so.  A
# SIGKILLed harness's groups go at the very next `lab list`, even while its
# sandbox's init (a clone holding copies of its fds) is still dying.  The
# groups of a live harness (a sandbox; a run stopped between points) stay.
. tests/helpers/sandbox-common.sh

# The parent directories where this shell's harnesses make their lab-<pid>.
parents() {
  if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
    echo "/sys/fs/cgroup$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup)" | sed 's|/$||'
  else
    for c in pids memory; do
      p=$(awk -F: -v c=$c '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' /proc/self/cgroup)
      echo "/sys/fs/cgroup/$c$p" | sed 's|/$||'
    done
  fi
}
# plant N: a lab-N group with a point in it, in every parent
plant() {
  for p in $(parents); do mkdir -p "$p/lab-$1/point-x" || fail "cannot make $p/lab-$1"; done
}
gone() { [ -z "$(find /sys/fs/cgroup -name "lab-$1" 2>/dev/null)" ]; }
# check WHAT N LOG: lab-N is gone, and LOG says our command removed it
check() {
  gone "$2" || { cat "$3"; fail "$1: lab-$2 is still there: $(find /sys/fs/cgroup -name "lab-$2")"; }
  if grep -q "removed cgroup .*lab-$2. left by a killed harness (pid $2)" "$3"; then
    echo "$1: removed lab-$2"
  else
    echo "note: $1: lab-$2 was removed by another lab command first"
  fi
}

# A process that is no harness, under a pid that has lab-<pid> groups.
sleep 300 & other=$!
unplant() {
  kill $other 2>/dev/null
  for p in $(parents); do rmdir "$p/lab-$other/point-x" "$p/lab-$other" 2>/dev/null; done
}
trap unplant EXIT
for cmd in doctor list plot sandbox run; do
  plant $other
  case $cmd in
    plot) "$LAB" plot "$TMP/not-a-run" >/dev/null 2>"$TMP/$cmd.err" ;;
    sandbox) "$LAB" sandbox --json /dev/null -- /bin/true 2>"$TMP/$cmd.err" || fail "lab sandbox failed" ;;
    run) "$LAB" run spawn --scale 1000 --variants coro --out "$TMP/run" >/dev/null 2>"$TMP/$cmd.err" \
           || { cat "$TMP/$cmd.err"; fail "lab run failed"; } ;;
    *) "$LAB" $cmd >/dev/null 2>"$TMP/$cmd.err" ;;
  esac
  check "lab $cmd" $other "$TMP/$cmd.err"
done
kill $other

# A live harness keeps its groups while another command sweeps.
"$LAB" sandbox --json /dev/null -- /bin/sleep 3 & live=$!
i=0
while gone $live && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
gone $live && fail "no lab-$live while the sandbox runs"
"$LAB" list >/dev/null 2>"$TMP/live.err"
gone $live && fail "lab list removed the groups of a live harness (pid $live)"
grep -q "lab-$live" "$TMP/live.err" && fail "lab list named a live harness's group: $(cat "$TMP/live.err")"
wait $live || fail "the live harness failed after the sweep"
gone $live || fail "lab-$live left after its harness ended"

# A live `lab run` keeps its lock across points (the harness never drops it by
# closing another fd of its group): stopped after two points, a sweep leaves
# its groups alone, and it completes.
"$LAB" run spawn --variants pthread,coro --scale 1000,2000,3000 --out "$TMP/live-run" >"$TMP/live-run.log" 2>&1 & run=$!
i=0
while [ ! -s "$TMP/live-run/points/spawn-coro-n1000-r1.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -STOP $run
gone $run && { kill -CONT $run; fail "no lab-$run while the run is stopped between points"; }
"$LAB" list >/dev/null 2>"$TMP/live-run.err"
gone $run && { kill -CONT $run; fail "lab list removed the groups of a live lab run (pid $run)"; }
kill -CONT $run
wait $run || { cat "$TMP/live-run.log"; fail "the live run failed after the sweep"; }
[ "$(grep -c ',ok,' "$TMP/live-run/summary.csv")" = 6 ] || fail "live run: $(cat "$TMP/live-run/summary.csv")"
gone $run || fail "lab-$run left after its run ended"

# A SIGKILLed harness: its groups stay until the next command.
"$LAB" sandbox --json /dev/null -- /bin/sleep 30 & dead=$!
i=0
while gone $dead && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $dead; wait $dead 2>/dev/null
"$LAB" list >/dev/null 2>"$TMP/dead.err"
check "lab list after SIGKILL" $dead "$TMP/dead.err"
echo "PASS"
