#!/bin/sh
# Description: nothing is left behind - no `lab-*` cgroup of the harness, no
# process of the workload - after a normal run, after SIGKILL of the
# workload, after SIGTERM of the harness, and after SIGKILL of the harness
# mid-run; the next `lab sandbox` removes what the killed harness left and
# says so (tests/lab-stale-cgroups.sh: any command does, by lock).
. tests/helpers/sandbox-common.sh

# A sleep duration only our workloads use, to find their processes (the
# harness's own command line names the script, so match the sleeps and the
# script's interpreter line, never the harness).
secs=$((600000 + $$))
printf '#!/bin/sh\nsleep %s & sleep %s\n' $secs $secs >"$TMP/sleeper.sh"; chmod +x "$TMP/sleeper.sh"
# Polls up to 10 s: on a loaded machine the pid namespace's teardown after its
# init dies can take longer than a fixed short sleep.
no_procs() {
  i=0
  while { pgrep -f "^sleep $secs" >/dev/null || pgrep -f "^/bin/sh $TMP/sleeper.sh" >/dev/null; } && [ $i -lt 100 ]; do
    sleep 0.1; i=$((i + 1))
  done
  if pgrep -f "^sleep $secs" >/dev/null || pgrep -f "^/bin/sh $TMP/sleeper.sh" >/dev/null; then
    fail "$1: workload processes remain after 10 s"
  fi
}

# Waits (up to 10 s, for a loaded machine) until the sandboxed sleeper runs.
wait_workload() {
  i=0
  while ! pgrep -f "^/bin/sh $TMP/sleeper.sh" >/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
  pgrep -f "^/bin/sh $TMP/sleeper.sh" >/dev/null || fail "$1: workload did not start"
}

# 1. normal run
"$LAB" sandbox --json /dev/null -- /bin/true & pid=$!; wait $pid || fail "normal run"
no_lab_cgroups $pid

# 2. SIGKILL of the workload (pid 1 of the sandbox, seen from the host)
"$LAB" sandbox --json "$TMP/k.json" -- "$TMP/sleeper.sh" & pid=$!
wait_workload "SIGKILL of the workload"
w=$(pgrep -f "^/bin/sh $TMP/sleeper.sh")
[ "$(pgrep -f "^sleep $secs" | wc -l)" = 2 ] || fail "workload's children not found"
kill -9 $w
wait $pid; rc=$?
[ $rc = 137 ] || fail "killed workload: exit $rc"
json_has "$TMP/k.json" status '"crashed"' || fail "killed workload: status not crashed"
no_lab_cgroups $pid; no_procs "SIGKILL of the workload"

# 3. SIGTERM of the harness: it kills the point and removes its cgroups
"$LAB" sandbox --json /dev/null -- "$TMP/sleeper.sh" & pid=$!
wait_workload "SIGTERM of the harness"
kill -TERM $pid; wait $pid; rc=$?
[ $rc = 143 ] || fail "SIGTERM harness: exit $rc"
no_lab_cgroups $pid; no_procs "SIGTERM of the harness"

# 4. SIGKILL of the harness: the workload dies with it (PDEATHSIG on pid 1),
#    its cgroups stay until the next run removes them.
"$LAB" sandbox --json /dev/null -- "$TMP/sleeper.sh" & pid=$!
wait_workload "SIGKILL of the harness"
[ -n "$(find /sys/fs/cgroup -name "lab-$pid")" ] || fail "no lab-$pid cgroup while running"
kill -KILL $pid; wait $pid 2>/dev/null
no_procs "SIGKILL of the harness"
[ -n "$(find /sys/fs/cgroup -name "lab-$pid")" ] || echo "note: lab-$pid already gone"
"$LAB" sandbox --json /dev/null -- /bin/true 2>"$TMP/next.err" & p2=$!; wait $p2 || fail "next run"
cat "$TMP/next.err"
# Any lab command sweeps (liveness by lock): another one running meanwhile on
# this machine may have removed it first.
if ! grep -q "removed cgroup .*lab-$pid. left by a killed harness (pid $pid)" "$TMP/next.err"; then
  [ -z "$(find /sys/fs/cgroup -name "lab-$pid")" ] || fail "next run did not remove lab-$pid"
  echo "note: lab-$pid was removed by another lab command first"
fi
no_lab_cgroups $pid; no_lab_cgroups $p2
echo "PASS"
