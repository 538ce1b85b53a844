#!/bin/sh
# Description: experiment wakeup shows claim C10 for real: pthread_cond_signal never wakes a
# thread asleep in epoll_wait (woken = 0, every wake-up missed and found by the timeout),
# while an eventfd in the epoll set does wake it; the coroutine variant is woken through
# the channel by another worker.  Counts, not timings, so a loaded machine cannot flip it.
set -u
WL=${LAB_BUILD:-build}/bin/wl-wakeup
fail() { echo "FAIL: $*"; exit 1; }
num() { sed -n "s/.*\"$1\":\(-\{0,1\}[0-9][0-9.e+]*\).*/\1/p"; }
run() { "$WL" "$@" | grep '^@lab-report'; }

c=$(run --variant condvar --n 50) || fail "condvar run failed"
echo "$c"
[ "$(echo "$c" | num woken)" = 0 ] || fail "epoll_wait returned an event for a condvar signal: $c"
[ "$(echo "$c" | num missed)" = 50 ] || fail "condvar: not every signal counted as missed: $c"
[ "$(echo "$c" | num lat_p50_ns)" -ge 500000 ] || fail "condvar: a missed wake-up took less than half the 1 ms timeout: $c"

e=$(run --variant eventfd --n 50) || fail "eventfd run failed"
echo "$e"
[ "$(echo "$e" | num woken)" -ge 25 ] || fail "eventfd woke the waiter fewer than half the times: $e"

p=$(run --variant coro --n 50 --threads 2) || fail "coro run failed"
echo "$p"
[ "$(echo "$p" | num woken)" = 50 ] || fail "coro: not every wake-up arrived: $p"
[ "$(echo "$p" | num cross_worker)" -ge 1 ] || fail "coro: never woken by another worker: $p"

"$WL" --variant condvar --n 5 --opt timeout_ms=0 > /dev/null 2> "${LAB_TMP:-/tmp}/err"
[ $? -eq 2 ] && grep -q timeout_ms "${LAB_TMP:-/tmp}/err" || fail "timeout_ms=0 not refused naming it"
echo PASS
