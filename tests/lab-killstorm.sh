#!/bin/sh
# Description: kill storm.  Ten signals, each drawn from SIGINT, SIGTERM,
# SIGHUP, SIGPIPE, SIGUSR1 and SIGKILL, go at random moments to a `lab run`
# (after each death a `--resume` of it takes the next ones).  After every
# signal: SIGPIPE is ignored and the run goes on; any other ends the harness
# with 128+N (137 for SIGKILL; 0 if the run had just finished), never 141; the
# harness leaves no cgroup of its pid (a SIGKILLed one's are gone after the
# next command); every point file is complete.  Then a last `--resume`
# completes the summary with every point exactly once.  Prints the seed
# (LAB_STORM_SEED=N replays a storm).
. tests/helpers/sandbox-common.sh

OUT="$TMP/storm"
SCALE=1000,2000,5000,10000
N_POINTS=8
seed=${LAB_STORM_SEED:-$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')}
echo "seed $seed"
# The storm's plan, one line per signal: delay in ms (0..699), signal index (1..6).
awk -v s="$seed" 'BEGIN { srand(s); for (i = 0; i < 40; i++) printf "%d %d\n", int(rand() * 700), 1 + int(rand() * 6) }' \
  >"$TMP/plan"

alive() { [ -e "/proc/$1" ] && [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" != Z ]; }
no_groups() {
  c=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "lab-$1" 2>/dev/null | head -n 3)
  [ -z "$c" ] || fail "$2: cgroups of pid $1 left: $c"
}
# Every point file is whole JSON (written atomically): it ends with `}`
# and names its status.
points_whole() {
  for f in "$OUT"/points/*.json; do
    [ -e "$f" ] || continue
    [ "$(tail -c 2 "$f" | tr -d '\n')" = "}" ] && grep -q '"status"' "$f" || fail "partial point file $f"
  done
}
start() {
  if [ -f "$OUT/meta.json" ]; then
    "$LAB" run --resume "$OUT" >>"$TMP/log" 2>&1 & pid=$!
  else
    # killed before it wrote meta.json: nothing to resume, start again
    "$LAB" run spawn --variants pthread,coro --scale $SCALE --out "$OUT" >>"$TMP/log" 2>&1 & pid=$!
  fi
  echo "started lab run, pid $pid"
}

start
killed=""
sent=0
step=0
while [ $sent -lt 10 ]; do
  step=$((step + 1))
  ms=$(sed -n "${step}p" "$TMP/plan" | cut -d' ' -f1)
  sig=$(echo INT TERM HUP PIPE USR1 KILL | cut -d' ' -f"$(sed -n "${step}p" "$TMP/plan" | cut -d' ' -f2)")
  sleep "$(awk -v m="$ms" 'BEGIN { printf "%.3f", m / 1000 }')"
  if ! alive $pid; then
    # it finished between signals: collect it and start another round
    wait $pid; rc=$?
    [ $rc = 0 ] || { tail -n 20 "$TMP/log"; fail "run $pid ended by itself with $rc"; }
    no_groups $pid "finished run"
    [ "$(tail -n +2 "$OUT/summary.csv" | wc -l)" = $N_POINTS ] && break
    start; continue
  fi
  kill -$sig $pid 2>/dev/null || continue
  sent=$((sent + 1))
  echo "signal $sent: SIG$sig to $pid after ${ms} ms"
  if [ $sig = PIPE ]; then
    sleep 0.2
    alive $pid || { wait $pid; rc=$?; [ $rc = 0 ] || fail "SIGPIPE ended the harness: exit $rc"; start; }
    continue
  fi
  i=0
  while alive $pid && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  if alive $pid; then kill -KILL $pid; fail "the harness did not exit within 30 s of SIG$sig"; fi
  wait $pid; rc=$?
  case $sig in INT) n=2 ;; TERM) n=15 ;; HUP) n=1 ;; USR1) n=10 ;; KILL) n=9 ;; esac
  want=$((128 + n))
  echo "  exit $rc"
  [ $rc = $want ] || [ $rc = 0 ] || { tail -n 20 "$TMP/log"; fail "SIG$sig: exit $rc, want $want"; }
  if [ $sig = KILL ]; then killed="$killed $pid"; else no_groups $pid "after SIG$sig"; fi
  points_whole
  start
  # the new command has swept what a SIGKILLed harness left
  sleep 0.3
  for k in $killed; do no_groups $k "after SIGKILL and the next command"; done
done

# The storm is over: let the last run end, then resume to completion.
i=0
while alive $pid && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
alive $pid && { kill -KILL $pid; fail "the last run did not end within 60 s"; }
wait $pid
"$LAB" run --resume "$OUT" >"$TMP/final.log" 2>&1 & pid=$!
wait $pid || { cat "$TMP/final.log"; fail "the final --resume failed"; }
cat "$TMP/final.log"
no_groups $pid "final resume"
for k in $killed; do no_groups $k "end of the storm"; done
points_whole
rows=$(tail -n +2 "$OUT/summary.csv" | wc -l)
[ "$rows" = $N_POINTS ] || fail "summary has $rows rows, want $N_POINTS: $(cat "$OUT/summary.csv")"
[ "$(cut -d, -f1-4 "$OUT/summary.csv" | sort | uniq -d)" = "" ] || fail "a point appears twice"
[ "$(grep -c ',ok,' "$OUT/summary.csv")" = $N_POINTS ] || fail "not every point ok: $(cat "$OUT/summary.csv")"
echo "PASS"
