#!/bin/sh
# Description: --timeout kills the whole sandbox (the command and its
# children) after the deadline: status `timeout`, exit 137, wall time near
# the timeout; a command that ends in time is `ok`.
. tests/helpers/sandbox-common.sh

start=$(date +%s.%N)
"$LAB" sandbox --timeout 1 --json "$TMP/to.json" -- /bin/sh -c 'sleep 60 & sleep 60; echo done' & pid=$!
wait $pid; rc=$?
secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
cat "$TMP/to.json"
[ $rc = 137 ] || fail "exit $rc, expected 137"
json_has "$TMP/to.json" status '"timeout"' || fail "status is not timeout"
awk -v s="$secs" 'BEGIN { exit !(s >= 0.9 && s < 5) }' || fail "took ${secs}s for a 1 s timeout"
no_lab_cgroups $pid
"$LAB" sandbox --timeout 5 --json "$TMP/ok.json" -- /bin/sleep 0.2 || fail "short command: exit $?"
json_has "$TMP/ok.json" status '"ok"' || fail "short command not ok"
echo "PASS"
