#!/bin/sh
# Description: `lab run` progress.  On a terminal (a pty from script(1)) one live status line:
# "[done/total ETA m:ss] <point>  <elapsed> s  RSS <now>  cgroup <now>", redrawn in place (\r, no
# newline per ok point), with the ETA once a point has finished; not on a terminal, one line per
# finished point naming its status, as before.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}/lab-progress
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the sandbox needs root"; exit 77; }
command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1) to give lab a terminal (bsdutils)"; exit 77; }
rm -rf "$T"; mkdir -p "$T"

# memory parks its tasks for about a second, so the line is redrawn with a live RSS.
TERM=xterm script -qfec "$LAB run memory --variants coro --scale 1000 --repeat 2 --out $T/tty" "$T/typescript" \
  > /dev/null 2>&1 || fail "lab run on a pty exited $?: $(cat "$T/typescript")"
out=$(tr '\r' '\n' < "$T/typescript")
echo "$out" | grep -q '^\[1/2\] memory-coro-n1000-r1  [0-9.]* s' || fail "no live line for point 1: $out"
echo "$out" | grep -q '^\[1/2\] memory-coro-n1000-r1  [0-9.]* s  RSS [0-9.]* [KM]iB  cgroup [0-9.]* [KM]iB' \
  || fail "no live RSS and cgroup figure while point 1 ran: $out"
echo "$out" | grep -q '^\[2/2 ETA [0-9]*:[0-9][0-9]\] memory-coro-n1000-r1\|^\[2/2 ETA [0-9]*:[0-9][0-9]\] memory-coro-n1000-r2' \
  || fail "no ETA once a point finished: $out"
grep -q 'memory-coro-n1000-r1 *ok' "$T/typescript" && fail "an ok point got its own line on a terminal: $out"
[ "$(grep -c '^memory,coro,1000,[12],ok,' "$T/tty/summary.csv")" = 2 ] || fail "tty run lost points: $(cat "$T/tty/summary.csv")"

"$LAB" run memory --variants coro --scale 1000 --repeat 2 --out "$T/pipe" > "$T/pipe.log" 2>&1 || fail "piped run: $?"
[ "$(grep -c '^memory-coro-n1000-r[12] *ok  *[0-9.]* s' "$T/pipe.log")" = 2 ] || fail "not one line per point: $(cat "$T/pipe.log")"
grep -q 'ETA\|\[1/2' "$T/pipe.log" && fail "live line written to a pipe: $(cat "$T/pipe.log")"
echo "PASS"
