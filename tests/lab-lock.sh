#!/bin/sh
# Description: one run per results directory.  While `lab run --out D` holds D
# (its lock; the holder is stopped with SIGSTOP so the test does not depend on
# timing), a second `lab run --out D` and a `lab run --resume D` are refused
# with exit 2 naming the holder's pid and command, and write nothing; two
# concurrent `--resume` of one directory: the second is refused and the first
# completes every point exactly once.  Default directories are unique: runs
# whose default name (the UTC second) already exists get a new `-N` name and
# never touch the existing one; results/latest points at a new run.
. tests/helpers/sandbox-common.sh

# wait_holder DIR PID: until DIR/.lock names PID (up to 20 s on a loaded machine)
wait_holder() {
  i=0
  while ! grep -q "^pid $2: " "$1/.lock" 2>/dev/null && [ $i -lt 200 ]; do
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1; i=$((i + 1))
  done
  grep -q "^pid $2: " "$1/.lock" 2>/dev/null
}
# refused WHAT PID ARGS...: `lab ARGS` exits 2 naming PID as the holder
refused() {
  what=$1 holder=$2; shift 2
  "$LAB" "$@" >"$TMP/refused.log" 2>&1; rc=$?
  cat "$TMP/refused.log"
  [ $rc = 2 ] || fail "$what: exit $rc, want 2"
  grep -q "is in use by pid $holder: lab run" "$TMP/refused.log" || fail "$what: the holder (pid $holder) is not named"
}
rows() { tail -n +2 "$1/summary.csv" | wc -l; }

# 1. Two runs with one --out.
D="$TMP/d"
"$LAB" run spawn --variants pthread,coro --scale 1000,2000 --out "$D" >"$TMP/a.log" 2>&1 & a=$!
wait_holder "$D" $a || { cat "$TMP/a.log"; fail "the first run never held $D"; }
kill -STOP $a
n_before=$(ls "$D/points" | wc -l)
refused "second --out" $a run spawn --variants pthread,coro --scale 1000,2000 --out "$D"
refused "--resume of a directory in use" $a run --resume "$D"
[ "$(ls "$D/points" | wc -l)" = "$n_before" ] || { kill -CONT $a; fail "a refused run wrote into $D/points"; }
kill -CONT $a
wait $a || { cat "$TMP/a.log"; fail "the holder failed after the refusals"; }
[ "$(rows "$D")" = 4 ] || fail "first run: summary has not 4 rows: $(cat "$D/summary.csv")"
[ "$(grep -c ',ok,' "$D/summary.csv")" = 4 ] || fail "first run: not 4 ok rows: $(cat "$D/summary.csv")"

# 2. Two concurrent resumes: an interrupted run (SIGINT after its first point),
#    resumed twice at once.
R="$TMP/r"
"$LAB" run spawn --variants pthread,coro --scale 1000,2000,3000 --out "$R" >"$TMP/r.log" 2>&1 & p=$!
i=0
while [ ! -s "$R/points/spawn-pthread-n1000-r1.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $p; wait $p
"$LAB" run --resume "$R" >"$TMP/r1.log" 2>&1 & r1=$!
wait_holder "$R" $r1 || { cat "$TMP/r1.log"; fail "the first resume never held $R"; }
kill -STOP $r1
refused "second --resume" $r1 run --resume "$R"
kill -CONT $r1
wait $r1 || { cat "$TMP/r1.log"; fail "the first resume failed"; }
[ "$(rows "$R")" = 6 ] || fail "resumed run: summary has not 6 rows: $(cat "$R/summary.csv")"
[ "$(cut -d, -f1-4 "$R/summary.csv" | sort | uniq -d)" = "" ] || fail "a point appears twice: $(cat "$R/summary.csv")"

# 3. Unique default directories, under a private root (LAB_ROOT) so nothing
#    is written into the repository's results/.
ROOT="$TMP/root"
mkdir -p "$ROOT/results"
ln -s "$PWD/containers" "$ROOT/containers"; ln -s "$PWD/seccomp" "$ROOT/seccomp"
# The names of the next 20 seconds exist already, with a marker inside.
now=$(date -u +%s)
for s in $(seq 0 20); do
  d="$ROOT/results/$(date -u -d @$((now + s)) +%Y%m%dT%H%M%SZ)-spawn"
  mkdir "$d"; echo taken >"$d/marker"
done
LAB_ROOT="$ROOT" "$LAB" run spawn --variants pthread,coro --scale 1000 >"$TMP/u1.log" 2>&1 & u1=$!
LAB_ROOT="$ROOT" "$LAB" run spawn --variants pthread,coro --scale 1000 >"$TMP/u2.log" 2>&1 & u2=$!
wait $u1 || { cat "$TMP/u1.log"; fail "default-named run 1 failed"; }
wait $u2 || { cat "$TMP/u2.log"; fail "default-named run 2 failed"; }
d1=$(sed -n 's/^lab: results in //p' "$TMP/u1.log"); d2=$(sed -n 's/^lab: results in //p' "$TMP/u2.log")
echo "default directories: $d1 $d2"
[ -n "$d1" ] && [ -n "$d2" ] && [ "$d1" != "$d2" ] || fail "two runs shared a default directory: $d1 $d2"
for d in "$d1" "$d2"; do
  case $d in *-spawn-[0-9]*) ;; *) fail "$d: an existing default name was reused" ;; esac
  [ ! -e "$d/marker" ] || fail "$d: a run wrote into an existing directory"
  [ "$(rows "$d")" = 2 ] || fail "$d: summary has not 2 rows"
done
[ "$(cat "$ROOT"/results/*/marker | wc -l)" = 21 ] || fail "an existing directory lost its marker"
[ "$(ls "$ROOT"/results/*/points 2>/dev/null | grep -c json)" -ge 4 ] || fail "points missing"
l=$(readlink "$ROOT/results/latest")
[ "$ROOT/results/$l" = "$d1" ] || [ "$ROOT/results/$l" = "$d2" ] || fail "results/latest -> $l, not a new run"
echo "PASS"
