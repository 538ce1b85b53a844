#!/bin/sh
# Description: experiment blocking in a small deterministic case: one worker, one CPU-bound
# coroutine, one waiter fed 100 messages/s.  With plain read(2) (coro-blocking) the worker
# sleeps in the kernel between messages, so the CPU-bound coroutine's ready-to-running gap
# is about the 10 ms between messages once per message (at most 61 units run between
# two messages, so those waits are more than 1% of the gaps); with coro_read on io_uring
# (coro-uring) only the waiter parks and the CPU-bound coroutine keeps running.  The test
# checks the order, by structure and not by a timing threshold: the gap's p99 is larger
# with coro-blocking, the CPU-bound work done smaller; and every message was handled.
set -u
WL=${LAB_BUILD:-build}/bin/wl-blocking
fail() { echo "FAIL: $*"; exit 1; }
num() { sed -n "s/.*\"$1\":\(-\{0,1\}[0-9][0-9.e+]*\).*/\1/p"; }
run() { "$WL" --n 20 --threads 1 --opt cpu_tasks=1 --opt waiters=1 --opt rate=100 "$@" | grep '^@lab-report'; }

b=$(run --variant coro-blocking) || fail "coro-blocking run failed"
u=$(run --variant coro-uring) || fail "coro-uring run failed"
echo "$b"; echo "$u"
for l in "$b" "$u"; do
  [ "$(echo "$l" | num lat_samples)" = 20 ] || fail "not every message handled: $l"
done
bg=$(echo "$b" | num cpu_gap_p99_ns); ug=$(echo "$u" | num cpu_gap_p99_ns)
[ -n "$bg" ] && [ -n "$ug" ] || fail "no cpu_gap_p99_ns"
[ "$bg" -gt "$ug" ] || fail "coro-blocking's CPU task gap p99 $bg ns is not above coro-uring's $ug ns"
echo "cpu gap p99: coro-blocking $bg ns > coro-uring $ug ns"
bu=$(echo "$b" | num cpu_units); uu=$(echo "$u" | num cpu_units)
[ "$bu" -lt "$uu" ] || fail "coro-blocking did as much CPU work ($bu units) as coro-uring ($uu)"
echo "cpu units: coro-blocking $bu < coro-uring $uu"
"$WL" --variant pthread --n 5 --opt rate=0 > /dev/null 2>&1
[ $? -eq 2 ] || fail "rate=0 not refused with exit 2"
echo PASS
