#!/bin/sh
# Description: experiment udp keeps its books.  With the receiver's SO_RCVBUF forced small,
# datagrams are dropped, and every one is counted: attempts = received + kernel drops
# (that namespace's /proc/net/snmp) + EAGAIN retries, recomputed here from the point's
# figures, with status ok and drops > 0.  Every variant balances at a normal buffer;
# sendto makes one system call per datagram, coro-uring far fewer (sends batched in its ring).
# Bad options (batch 0, batch above UIO_MAXIOV, size above 65507) exit 2 naming the
# option, from the workload and from `lab run` before anything runs.
set -u
B=${LAB_BUILD:-build}
LAB=$B/bin/lab
WL=$B/bin/wl-udp
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the sandbox (own network namespace) needs root"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
num() { sed -n "s/.*\"$1\":\(-\{0,1\}[0-9][0-9.e+]*\).*/\1/p"; }

# Each run in its own network namespace: the snmp counters are that namespace's only.
run() { "$LAB" sandbox -- "$WL" "$@" 2>/dev/null | grep '^@lab-report' | tail -n 1; }

check_account() { # $1 = report line, $2 = what
  a=$(echo "$1" | num attempts); rx=$(echo "$1" | num received)
  d=$(echo "$1" | num kernel_drops); e=$(echo "$1" | num eagain_retried)
  [ -n "$a" ] && [ -n "$rx" ] && [ -n "$d" ] && [ -n "$e" ] || fail "$2: no account in: $1"
  [ "$a" -eq $((rx + d + e)) ] || fail "$2: $a attempts != $rx received + $d dropped + $e EAGAIN"
  echo "$1" | grep -q '"balanced":true' || fail "$2: account not marked balanced: $1"
  echo "$1" | grep -q '"status":"ok"' || fail "$2: status not ok: $1"
  echo "$2: $a = $rx + $d + $e"
}

line=$(run --variant sendmmsg --n 50000 --opt rcvbuf=2048)
check_account "$line" "sendmmsg, rcvbuf 2048"
d=$(echo "$line" | num kernel_drops)
[ "$d" -gt 0 ] || fail "a 2 KiB receive buffer dropped nothing: $line"
echo "$line" | grep -q '"udp_RcvbufErrors":[1-9]' || fail "drops not seen as RcvbufErrors: $line"

for v in sendto uring coro-uring; do
  line=$(run --variant $v --n 20000)
  check_account "$line" "$v"
  s=$(echo "$line" | num syscalls_per_dgram)
  echo "$v: $s syscalls per datagram"
done
[ "$(echo "$(run --variant sendto --n 5000)" | num syscalls_per_dgram)" = 1 ] || fail "sendto is not 1 syscall per datagram"
# coro-uring batches its sends through the ring (coro_config.writes_via_ring): 64 coroutines
# fill the SQ between two submits, far below one system call per datagram
s=$(echo "$(run --variant coro-uring --n 20000)" | num syscalls_per_dgram)
awk -v s="$s" 'BEGIN { exit !(s < 0.5) }' || fail "coro-uring makes $s system calls per datagram: its sends are not batched"

for bad in batch=0 batch=1025 size=65508; do
  "$WL" --variant sendmmsg --n 10 --opt $bad > /dev/null 2> "$LAB_TMP/err" && fail "wl-udp took --opt $bad"
  rc=$?; [ $rc -eq 2 ] || fail "wl-udp --opt $bad exited $rc, not 2"
  grep -q "${bad%%=*}" "$LAB_TMP/err" || fail "message does not name ${bad%%=*}: $(cat "$LAB_TMP/err")"
  "$LAB" run udp --scale 10 --out "$LAB_TMP/bad" --opt $bad > /dev/null 2> "$LAB_TMP/err"
  rc=$?; [ $rc -eq 2 ] || fail "lab run udp --opt $bad exited $rc, not 2"
  grep -q "${bad%%=*}" "$LAB_TMP/err" || fail "lab's message does not name ${bad%%=*}: $(cat "$LAB_TMP/err")"
  [ ! -e "$LAB_TMP/bad/summary.csv" ] || fail "lab run --opt $bad ran points"
done
"$LAB" run blocking --scale 10 --out "$LAB_TMP/bad" --opt rate=0 > /dev/null 2> "$LAB_TMP/err"
[ $? -eq 2 ] && grep -q rate "$LAB_TMP/err" || fail "lab run --opt rate=0 not refused naming rate: $(cat "$LAB_TMP/err")"
echo PASS
