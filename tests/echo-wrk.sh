#!/bin/sh
# Description: our load generator and Debian's wrk agree on one server.  In a
# network namespace of its own, one wl-echo (epoll, proto=http) is measured
# five times by each, alternating (wrk -t1 -c50 -d1s; wl-loadgen --conns 50
# --closed 1, closed loop): the median of the five wl-loadgen/wrk ratios must
# lie within 0.6..1.67 and every wl-loadgen run must check every answer.
# The 10% bar belongs to the benchmark (lab run echo --opt client=wrk; the
# report says by how much they differ): on this shared host the load swings
# by factors between two back-to-back seconds (seen: 29K vs 83K req/s for
# the same client), so a timed test can only catch a generator that counts
# wrong by a large factor (double counting, a lost phase), not a 10% drift.
set -u
B=${LAB_BUILD:-build}/bin
T=${LAB_TMP:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a network namespace"; exit 77; }
command -v wrk >/dev/null || { echo "SKIP: wrk is not installed (make deps installs it)"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare(1)"; exit 77; }

unshare -n sh -c '
  ip link set lo up || exit 77
  "$0/wl-echo" --variant epoll --n 100 --opt port=7002 --opt proto=http > "$1/server.out" 2>&1 &
  srv=$!
  i=0; until grep -q "@lab-ready" "$1/server.out"; do i=$((i+1)); [ $i -lt 100 ] || exit 3; sleep 0.05; done
  for k in 1 2 3 4 5; do
    wrk -t1 -c50 -d1s http://127.0.0.1:7002/ > "$1/wrk$k.out" 2>&1 || exit 4
    "$0/wl-loadgen" --port 7002 --conns 50 --proto http --warmup 0.2 --closed 1 --rate 0 > "$1/lg$k.out" 2>&1 || exit 5
  done
  kill -TERM $srv; wait $srv
' "$B" "$T"
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: cannot bring lo up in a new network namespace"; exit 77; }
[ $rc -eq 0 ] || { cat "$T"/*.out; fail "the runs failed ($rc)"; }
ratios=""
for k in 1 2 3 4 5; do
  w=$(sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$T/wrk$k.out")
  l=$(sed -n 's/.*"ops_per_s":\([0-9.e+]*\).*/\1/p' "$T/lg$k.out")
  grep -q '"status":"ok"' "$T/lg$k.out" || fail "wl-loadgen run $k: $(cat "$T/lg$k.out")"
  [ -n "$w" ] && [ -n "$l" ] || fail "no figures in run $k: wrk '$w', wl-loadgen '$l'"
  r=$(awk -v l="$l" -v w="$w" 'BEGIN { printf "%.4f", l / w }')
  echo "run $k: wrk $w req/s, wl-loadgen $l req/s, ratio $r"
  ratios="$ratios $r"
done
med=$(echo $ratios | tr ' ' '\n' | sort -n | sed -n 3p)
awk -v m="$med" 'BEGIN { exit !(m >= 0.6 && m <= 1.67) }' || fail "median ratio wl-loadgen/wrk $med is outside 0.6..1.67"
echo "PASS: median ratio $med"
