#!/bin/sh
# Description: end to end, as a user runs it: `lab run spawn --variants pthread,coro --scale 1000` writes summary.csv
# (exact columns, one ok row per variant), meta.json, one JSON per point, plots and report.md;
# an interrupted run keeps its finished points and `--resume` completes it without redoing them
# (and removes the NAME.tmp.<pid> files a killed run leaves);
# no sandbox cgroup (hence no workload process: a cgroup with a process in it
# cannot be removed) of these runs is left behind.  The checks look only at
# the cgroups of our own harness pids: other runs may share the machine.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the sandbox needs root"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
# leftovers PID: no cgroup of the harness PID in any hierarchy
leftovers() {
  c=$(find /sys/fs/cgroup -maxdepth 6 -type d -name "lab-$1" 2>/dev/null | head -n 3)
  [ -z "$c" ] || fail "cgroups left behind: $c"
}
OUT="$T/run1"
"$LAB" run spawn --variants pthread,coro --scale 1000 --out "$OUT" > "$T/run1.log" 2>&1 &
pid=$!
wait $pid || { rc=$?; cat "$T/run1.log"; fail "lab run exited $rc"; }
cat "$T/run1.log"
head -n 1 "$OUT/summary.csv" | grep -qx 'experiment,variant,n,repeat,status,wall_s,cpu_user_s,cpu_sys_s,rss_peak_bytes,vss_peak_bytes,swap_peak_bytes,cgroup_mem_peak_bytes,kernel_mem_bytes,vol_ctxsw,invol_ctxsw,ops,ops_per_s,lat_p50_ns,lat_p99_ns,lat_p999_ns,lat_max_ns,rss_baseline_bytes,cgroup_baseline_bytes,start_lat_p50_ns,start_lat_p99_ns' \
  || fail "summary.csv header: $(head -n 1 "$OUT/summary.csv")"
[ "$(grep -c '^spawn,pthread,1000,1,ok,' "$OUT/summary.csv")" = 1 ] || fail "no ok pthread row: $(cat "$OUT/summary.csv")"
[ "$(grep -c '^spawn,coro,1000,1,ok,' "$OUT/summary.csv")" = 1 ] || fail "no ok coro row: $(cat "$OUT/summary.csv")"
# wall_s (6th) and cgroup_mem_peak_bytes (12th) and ops (16th) must be measured, not empty.
awk -F, 'NR > 1 && ($6 == "" || $6 <= 0 || $12 == "" || $12 <= 0 || $16 != 1000) { exit 1 }' "$OUT/summary.csv" \
  || fail "unmeasured figures in: $(cat "$OUT/summary.csv")"
for f in meta.json report.md points/spawn-pthread-n1000-r1.json points/spawn-coro-n1000-r1.json plots/spawn-wall.png; do
  [ -s "$OUT/$f" ] || fail "missing $f"
done
for k in '"date"' '"kernel"' '"cpu_model"' '"cores"' '"mem_total_bytes"' '"mode"' '"kernel.pid_max"' '"lab_revision"' '"build_flags"' '"argv"'; do
  grep -q "$k" "$OUT/meta.json" || fail "meta.json lacks $k"
done
for k in '"status":"ok"' '"cgroup"' '"backend"' '"workload"' '"seccomp' '"profile"'; do
  grep -q "$k" "$OUT/points/spawn-coro-n1000-r1.json" || fail "point JSON lacks $k"
done
head -c 8 "$OUT/plots/spawn-wall.png" | od -c | grep -q 'P   N   G' || fail "spawn-wall.png is not a PNG"
grep -q 'C1' "$OUT/report.md" || fail "report.md lacks the claims section"
leftovers $pid

# Interrupt after the first point finished, then resume.
OUT2="$T/run2"
"$LAB" run spawn --variants pthread,coro --scale 1000,2000,3000 --out "$OUT2" > "$T/run2.log" 2>&1 &
pid=$!
i=0
while [ ! -s "$OUT2/points/spawn-pthread-n1000-r1.json" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
kill -INT $pid
wait $pid; rc=$?
echo "interrupted lab run exited $rc"
cat "$T/run2.log"
case $rc in
  130) grep -q "continue with .lab run --resume $OUT2" "$T/run2.log" || fail "interrupted run gave no --resume hint" ;;
  0) echo "note: the run finished before SIGINT reached it" ;;
  *) fail "interrupted lab run exited $rc, want 130 (128 + SIGINT)" ;;
esac
n_before=$(ls "$OUT2"/points/*.json | wc -l)
[ "$n_before" -ge 1 ] || fail "interrupted run kept no point"
leftovers $pid
# What a SIGKILLed run leaves: a half-written point and summary (NAME.tmp.<pid>).
printf '{"status":' > "$OUT2/points/spawn-coro-n3000-r1.json.tmp.999999"
printf 'experiment,' > "$OUT2/summary.csv.tmp.999999"
"$LAB" run --resume "$OUT2" > "$T/run3.log" 2>&1 &
pid=$!
wait $pid || { cat "$T/run3.log"; fail "resume failed"; }
cat "$T/run3.log"
grep -Eq "resumed: $n_before points? (was|were) already done" "$T/run3.log" || fail "resume did not reuse the $n_before finished points"
[ "$(tail -n +2 "$OUT2/summary.csv" | wc -l)" = 6 ] || fail "resumed summary has not 6 rows: $(cat "$OUT2/summary.csv")"
left=$(find "$OUT2" -name '*.tmp.*')
[ -z "$left" ] || fail "resume left partial files: $left"
grep -q "removed 2 partial files" "$T/run3.log" || fail "resume did not say it removed the 2 partial files"
leftovers $pid
echo "lab-run-spawn: all checks passed"
