#!/bin/sh
# Description: the open-loop generator does not hide a stall (coordinated
# omission).  In a network namespace of its own, wl-echo (epoll) is stopped
# with SIGSTOP for 400 ms in the middle of wl-loadgen's 2 s open-loop phase at
# 1000 requests/s: the stall must show as latency (max >= 300 ms, p99.9 >=
# 200 ms) and nothing may go missing (every request sent answered, about
# rate x duration of them, each recorded once in the .hgrm).  A closed-loop
# generator would have sent nothing during the stall and recorded one slow
# request per connection.  Also: an address outside 127.0.0.0/8 is refused
# with exit 2 and a message naming it.
set -u
B=${LAB_BUILD:-build}/bin
T=${LAB_TMP:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a network namespace"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare(1)"; exit 77; }

out=$("$B/wl-loadgen" --port 80 --conns 1 --addr 192.168.1.1 2>&1); rc=$?
[ $rc -eq 2 ] || fail "a non-loopback target exited $rc, not 2"
echo "$out" | grep -q "192.168.1.1.*not a loopback" || fail "refusal does not name the address: $out"

unshare -n sh -c '
  ip link set lo up || exit 77
  "$0/wl-echo" --variant epoll --n 50 --opt port=7001 > "$1/server.out" 2>&1 &
  srv=$!
  i=0; until grep -q "@lab-ready" "$1/server.out"; do i=$((i+1)); [ $i -lt 100 ] || exit 3; sleep 0.05; done
  "$0/wl-loadgen" --port 7001 --conns 50 --warmup 0 --closed 0.2 --open 2 --rate 1000 --drain 3 \
     --hgrm "$1/stall.hgrm" > "$1/client.out" 2>&1 &
  cli=$!
  sleep 1.2            # connect + closed 0.2 s, then ~1 s into the open phase
  kill -STOP $srv; sleep 0.4; kill -CONT $srv
  wait $cli; rc=$?
  kill -TERM $srv; wait $srv
  exit $rc
' "$B" "$T"
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: cannot bring lo up in a new network namespace"; exit 77; }
[ $rc -eq 0 ] || { cat "$T/client.out" "$T/server.out"; fail "the run failed ($rc)"; }
rep=$(grep '^@lab-report' "$T/client.out") || fail "no report: $(cat "$T/client.out")"
num() { echo "$rep" | sed -n "s/.*\"$1\":\([0-9.e+]*\).*/\1/p"; }
sent=$(num open_sent); done_=$(num open_done); un=$(num open_unanswered); mx=$(num lat_max_ns)
p999=$(num lat_p999_ns); samples=$(num lat_samples)
echo "sent=$sent answered=$done_ unanswered=$un samples=$samples p99.9=${p999}ns max=${mx}ns"
[ "$sent" = 2000 ] || fail "open loop sent $sent requests, not 2000 (1000/s for 2 s: every due request is sent, late or not)"
[ "$done_" = "$sent" ] && [ "$un" = 0 ] || fail "requests went missing: sent $sent, answered $done_"
[ "$samples" = "$sent" ] || fail "recorded $samples latencies for $sent requests"
[ "$mx" -ge 300000000 ] || fail "a 400 ms stall shows as max latency ${mx} ns (< 300 ms): it was hidden"
[ "$p999" -ge 200000000 ] || fail "p99.9 ${p999} ns: the stall's requests were not counted as late"
tail -n 2 "$T/stall.hgrm" | grep -q "Total count    = *$sent\]" || fail "the .hgrm does not count $sent requests"
echo "PASS"
