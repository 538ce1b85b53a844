#!/bin/sh
# Description: `lab compare DIR_A DIR_B` on runs written by hand (so no timing can make it flaky):
# overlapping repeats are within noise; a variant twice as slow beyond its spread is marked slower
# and, with --fail-above below its change, exits 1; a faster one is marked faster and never fails;
# a change inside --threshold is noise; compare.md and compare.html are written; bad use exits 2.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}/lab-compare
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$T"; mkdir -p "$T"

# run DIR VARIANT "WALL1 WALL2 WALL3": a results directory with three ok repeats of spawn/VARIANT/n=1000.
run() {
  mkdir -p "$1/points"
  echo '{"date":"test"}' > "$1/meta.json"
  r=0
  for w in $3; do
    r=$((r + 1))
    cat > "$1/points/spawn-$2-n1000-r$r.json" <<J
{"id":"spawn-$2-n1000-r$r","experiment":"spawn","variant":"$2","n":1000,"repeat":$r,"status":"ok","detail":"",
 "started_at":"2026-01-01T00:00:0${r}Z","summary":{"wall_s":$w,"ops_per_s":$(awk "BEGIN { print 1000 / $w }"),"cgroup_mem_peak_bytes":1048576}}
J
  done
}
run "$T/a" coro "1.0 1.1 1.2"
run "$T/same" coro "1.05 1.15 1.1"
run "$T/slow" coro "2.0 2.1 2.2"
run "$T/fast" coro "0.5 0.52 0.55"
run "$T/near" coro "1.25 1.3 1.35"
run "$T/other" pthread "1.0 1.0 1.0"

"$LAB" compare "$T/a" "$T/same" --fail-above 5 > "$T/same.out" || fail "same run: exit $? $(cat "$T/same.out")"
grep -q 'wall_s .* within noise' "$T/same.out" || fail "overlapping repeats not within noise: $(cat "$T/same.out")"
grep -v '^[0-9]* figures' "$T/same.out" | grep -q 'slower\|faster' && fail "same run marked a change: $(cat "$T/same.out")"
[ -s "$T/same/compare.md" ] && [ -s "$T/same/compare.html" ] || fail "compare.md/html not written to DIR_B"

"$LAB" compare "$T/a" "$T/slow" > "$T/slow.out" || fail "without --fail-above a slowdown exits 0, got $?"
grep -q 'wall_s .* 1\.909 *slower' "$T/slow.out" || fail "2x slower not marked slower with ratio 1.909 (2.1 / 1.1): $(cat "$T/slow.out")"
grep -q 'ns_per_op .* slower' "$T/slow.out" || fail "ns per op not slower: $(cat "$T/slow.out")"
grep -q 'cgroup_peak_B .* within noise' "$T/slow.out" || fail "equal memory not within noise: $(cat "$T/slow.out")"
"$LAB" compare "$T/a" "$T/slow" --fail-above 50 > "$T/slow50.out"; rc=$?
[ $rc = 1 ] || fail "--fail-above 50 with a 91% slowdown: exit $rc, want 1"
grep -q REGRESSION "$T/slow50.out" || fail "regression not named: $(cat "$T/slow50.out")"
"$LAB" compare "$T/a" "$T/slow" --fail-above 100 > /dev/null || fail "--fail-above 100 with a 91% slowdown must pass"
grep -q '[*][*]regression' "$T/slow/compare.md" && fail "compare.md of the last (passing) compare names a regression"

"$LAB" compare "$T/a" "$T/fast" --fail-above 1 --out "$T/new/dir" > "$T/fast.out" || fail "faster must not fail: exit $?"
grep -q 'wall_s .* faster' "$T/fast.out" || fail "2x faster not marked faster: $(cat "$T/fast.out")"
[ -s "$T/new/dir/compare.html" ] || fail "--out DIR (created): no compare.html there"

"$LAB" compare "$T/a" "$T/near" > "$T/near.out"
grep -q 'wall_s .* slower' "$T/near.out" || fail "18% apart beyond spread, default threshold 10: $(cat "$T/near.out")"
"$LAB" compare "$T/a" "$T/near" --threshold 20 > "$T/near20.out"
grep -q 'wall_s .* within noise' "$T/near20.out" || fail "18% with --threshold 20 is noise: $(cat "$T/near20.out")"

"$LAB" compare "$T/a" "$T/other" > "$T/other.out" 2>&1; rc=$?
[ $rc = 2 ] || fail "nothing in common: exit $rc, want 2"
grep -q 'no (experiment, variant, n)' "$T/other.out" || fail "nothing in common not said: $(cat "$T/other.out")"
"$LAB" compare "$T/a" "$T/missing" > "$T/m.out" 2>&1; rc=$?
[ $rc = 2 ] || fail "missing DIR_B: exit $rc, want 2"
grep -q "$T/missing" "$T/m.out" || fail "missing dir not named: $(cat "$T/m.out")"
"$LAB" compare "$T/a" "$T/same" --threshold ten > "$T/t.out" 2>&1; rc=$?
[ $rc = 2 ] && grep -q -- '--threshold' "$T/t.out" || fail "bad --threshold: exit $rc $(cat "$T/t.out")"
"$LAB" compare "$T/a" > /dev/null 2>&1; [ $? = 2 ] || fail "one directory: want exit 2"
echo "PASS"
