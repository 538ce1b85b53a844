#!/bin/sh
# Description: a closed output pipe is an ordinary write error, never a death
# by SIGPIPE (exit 141) that skips the cleanup: `lab doctor`, `lab list` and
# `lab run` writing into a pipe nobody reads exit 1 naming "Broken pipe";
# the run leaves no cgroup of its pid, keeps summary.csv and its finished
# points, and `--resume` completes it.  Also the way a user does it,
# `lab run ... | head -c 10`.
. tests/helpers/sandbox-common.sh

leftovers() {
  c=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "lab-$1" 2>/dev/null | head -n 3)
  [ -z "$c" ] || fail "$2: cgroups left behind: $c"
}

# fd 5: the write end of a FIFO whose only reader has gone, so every write
# fails with EPIPE (as `| true` does, without its race).
mkfifo "$TMP/fifo" || fail "mkfifo"
exec 4<>"$TMP/fifo" 5>"$TMP/fifo" 4<&-

for cmd in doctor list; do
  "$LAB" $cmd >&5 2>"$TMP/$cmd.err"; rc=$?
  echo "lab $cmd into a closed pipe: exit $rc: $(cat "$TMP/$cmd.err")"
  [ $rc = 1 ] || fail "lab $cmd into a closed pipe exited $rc, want 1"
  grep -q "writing to standard output: Broken pipe" "$TMP/$cmd.err" || fail "lab $cmd: no EPIPE message"
done

OUT="$TMP/run"
"$LAB" run spawn --variants pthread,coro --scale 1000,2000 --out "$OUT" >&5 2>"$TMP/run.err" & pid=$!
wait $pid; rc=$?
cat "$TMP/run.err"
[ $rc = 1 ] || fail "lab run into a closed pipe exited $rc, want 1"
grep -q "writing to standard output: Broken pipe" "$TMP/run.err" || fail "lab run: no EPIPE message"
grep -q "continue with .lab run --resume $OUT" "$TMP/run.err" || fail "lab run: no --resume hint"
leftovers $pid "lab run into a closed pipe"
head -n 1 "$OUT/summary.csv" | grep -q '^experiment,variant,n,' || fail "no summary.csv after the closed pipe"
exec 5>&-

"$LAB" run --resume "$OUT" >"$TMP/resume.log" 2>&1 & pid=$!
wait $pid || { cat "$TMP/resume.log"; fail "resume after the closed pipe failed"; }
leftovers $pid "resume"
[ "$(grep -c '^spawn,[a-z]*,[0-9]*,1,ok,' "$OUT/summary.csv")" = 4 ] || fail "resumed summary: $(cat "$OUT/summary.csv")"

# As a user types it: the reader exits after 10 bytes while the run goes on.
( "$LAB" run spawn --variants pthread,coro --scale 1000,2000 --out "$TMP/head" 2>"$TMP/head.err" & echo $! >"$TMP/head.pid"
  wait $!; echo $? >"$TMP/head.rc" ) | head -c 10 >/dev/null
rc=$(cat "$TMP/head.rc"); pid=$(cat "$TMP/head.pid")
echo "lab run | head -c 10: exit $rc"
case $rc in
  1) grep -q "Broken pipe" "$TMP/head.err" || fail "| head: exit 1 without the EPIPE message" ;;
  0) echo "note: the run ended before head closed the pipe" ;;
  *) cat "$TMP/head.err"; fail "lab run | head -c 10 exited $rc" ;;
esac
leftovers "$pid" "lab run | head -c 10"
echo "PASS"
