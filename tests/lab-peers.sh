#!/bin/sh
# Description: reference peers as variants - `go` (spawn, memory, switch) and
# `fcontext` (switch) run in the same sandbox and the same run as the lab's own
# variants, report the same figures (wall, ops, latencies or ns per switch)
# plus the Go version and GOMAXPROCS, and appear in the report's tables and
# the C1/C2 verdicts; a peer whose binary is not built (toolchain missing) is
# listed as unavailable with the package to install, and its points end
# `skipped` with that reason while the rest of the run goes on.
set -u
. tests/helpers/sandbox-common.sh
BIN=${LAB_BUILD:-build}/bin
[ -x "$BIN/wl-spawn-go" ] || { echo "SKIP: the Go peers are not built (golang-go missing)"; exit 77; }

out="$TMP/run"
"$LAB" run spawn memory switch --scale 1000 --variants coro,go,fcontext --out "$out" > "$TMP/run.log" 2>&1 \
  || { cat "$TMP/run.log"; fail "lab run with the peers failed"; }
csv="$out/summary.csv"
for p in spawn,go memory,go switch,go switch,coro; do
  awk -F, -v e="${p%,*}" -v v="${p#*,}" '$1 == e && $2 == v && $5 == "ok" && $6 > 0 { f = 1 } END { exit !f }' "$csv" \
    || { cat "$csv"; fail "$p: no ok row with wall_s > 0"; }
done
if [ -x "$BIN/wl-switch-fcontext" ]; then
  awk -F, '$1 == "switch" && $2 == "fcontext" && $5 == "ok" && $6 > 0 { f = 1 } END { exit !f }' "$csv" \
    || fail "switch,fcontext: no ok row"
  grep -q '"raw_switch_ns"' "$out/points/switch-fcontext-n1000-r1.json" || fail "fcontext point has no raw_switch_ns"
fi
python3 - "$out" <<'PY' || fail "peer figures"
import json, os, sys
d = sys.argv[1]
sp = json.load(open(os.path.join(d, "points", "spawn-go-n1000-r1.json")))
w = sp["workload"]
assert w["go_version"].startswith("go"), w
assert 1 <= w["gomaxprocs"] <= os.cpu_count(), w
assert w["ops"] == 1000 and w["lat_samples"] == 1000, w
# Every goroutine slept at least 1 ms: the figures are the sleeps measured.
assert w["lat_p50_ns"] >= 1000000 and w["lat_max_ns"] >= w["lat_p99_ns"] >= w["lat_p50_ns"], w
mem = json.load(open(os.path.join(d, "points", "memory-go-n1000-r1.json")))["workload"]
assert mem["done"] == 1000 and mem["rss_bytes"] > 0 and mem["bytes_per_task"] > 0, mem
sw = json.load(open(os.path.join(d, "points", "switch-go-n1000-r1.json")))["workload"]
assert sw["ops"] == 2000 and sw["ns_per_switch"] > 0 and sw["gomaxprocs"] == 1, sw
PY
grep -q "Go's goroutines here" "$out/report.md" || fail "C1/C2 verdicts do not show the go figures"
grep -q '| go |' "$out/report.md" || fail "the report's tables have no go row"

# Without the peers' binaries (as on a host without golang-go or Boost): a
# copy of the build's bin/ without them.
mkdir -p "$TMP/nopeers/bin"
for f in "$BIN"/*; do
  case $(basename "$f") in *-go|*-fcontext) ;; *) cp -p "$f" "$TMP/nopeers/bin/" ;; esac
done
LAB_ROOT=$PWD "$TMP/nopeers/bin/lab" list > "$TMP/list.out" 2>&1 || fail "lab list without peers"
grep -q "unavailable: peer \`go\` not built: the Go toolchain is missing (apt-get install golang-go" "$TMP/list.out" \
  || { cat "$TMP/list.out"; fail "lab list does not mark go unavailable"; }
LAB_ROOT=$PWD "$TMP/nopeers/bin/lab" run spawn switch --scale 1000 --variants coro,go,fcontext --out "$TMP/np" \
  > "$TMP/np.log" 2>&1 || { cat "$TMP/np.log"; fail "lab run without peers failed"; }
awk -F, '$2 == "go" && $5 != "skipped" { bad = 1 } $2 == "go" { n++ } END { exit bad || n != 2 }' "$TMP/np/summary.csv" \
  || { cat "$TMP/np/summary.csv"; fail "go points not skipped"; }
awk -F, '$2 == "coro" && $5 == "ok" { n++ } END { exit n != 2 }' "$TMP/np/summary.csv" || fail "coro points not ok without peers"
grep -q 'apt-get install golang-go' "$TMP/np/points/spawn-go-n1000-r1.json" || fail "skipped go point does not say what to install"
exit 0
