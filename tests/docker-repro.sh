#!/bin/sh
# Description: Docker reproduction - the Dockerfile builds for real (docker,
# or podman where no Docker engine works), `lab doctor` runs in the image and
# names the container case, `lab run spawn switch --scale 1000` in it leaves
# summary, plots and meta.json in the mounted results directory with figures
# measured in the container, bad cases (read-only results volume, not
# privileged, no engine) give clear messages, and no container, untagged
# image, build container or podman cgroup is left behind.  Skips (77) where no engine can build here.
set -u
cd "$(dirname "$0")/.." || exit 1
TMP=${LAB_TMP:-$(mktemp -d)}
mkdir -p "$TMP" || exit 1
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: building and running the image needs root here"; exit 77; }
sh tools/docker/deps.sh || exit $?
# One image build at a time on this host (two test runs at once would race
# on the lab:latest tag and podman's cgroups).
exec 9>/run/lock/lab-docker-test.lock 2>/dev/null || exec 9>/tmp/lab-docker-test.lock
flock -w 900 9 || fail "another docker test held /run/lock/lab-docker-test.lock for 15 minutes"

# No engine: a clear message, as a skip.
out=$(LAB_ENGINE=no-such-engine sh tools/docker/engine.sh) && fail "engine.sh accepted a missing engine"
echo "$out" | grep -q "no-such-engine is not installed" || fail "missing engine message: $out"

conf=$(sh tools/docker/engine.sh) || { echo "$conf"; exit 77; }
eval "$conf"
echo "engine: $ENGINE ($CG_MODE): build $BUILD_FLAGS; run $RUN_FLAGS"
# What the engine's store holds before: untagged images, and (podman) build
# containers; a build must add neither (make docker removes the image it replaced).
store() {
  $ENGINE images -q --filter dangling=true 2>/dev/null | sort
  [ "$ENGINE" = podman ] && $ENGINE ps -aq --external 2>/dev/null | sort
}
store_before=$(store)
start=$(date +%s)
sh tools/docker/build.sh > "$TMP/build.log" 2>&1
rc=$?
[ $rc = 77 ] && { grep SKIP "$TMP/build.log"; exit 77; }
[ $rc = 0 ] || { tail -n 30 "$TMP/build.log"; fail "make docker failed (exit $rc)"; }
tail -n 2 "$TMP/build.log"
[ "$(store)" = "$store_before" ] || fail "the build left untagged images or build containers: $(store | grep -vxF "$store_before")"

running_before=$($ENGINE ps -aq | sort)
libpod_before=$(find /sys/fs/cgroup -maxdepth 4 -type d -path '*libpod*' 2>/dev/null | sort)

# doctor in the image: exit 0, names the engine and the cgroup case.
LAB_RESULTS="$TMP/results" sh tools/docker/run.sh doctor > "$TMP/doctor.out" 2>&1 \
  || { cat "$TMP/doctor.out"; fail "lab doctor in the container failed"; }
grep -q "^container  $ENGINE, privileged; cgroup" "$TMP/doctor.out" \
  || { cat "$TMP/doctor.out"; fail "doctor does not name the container case"; }

# The reproduction itself, results on the host.
LAB_RESULTS="$TMP/results" sh tools/docker/run.sh run spawn switch --scale 1000 > "$TMP/run.out" 2>&1 \
  || { tail -n 20 "$TMP/run.out"; fail "lab run in the container failed"; }
echo "build + runs: $(( $(date +%s) - start )) s"
d="$TMP/results/latest"
[ -f "$d/summary.csv" ] || fail "no summary.csv in the mounted results directory"
ok=$(awk -F, 'NR > 1 && $5 == "ok" && $6 > 0 { n++ } END { print n + 0 }' "$d/summary.csv")
rows=$(awk 'END { print NR - 1 }' "$d/summary.csv")
[ "$rows" -ge 5 ] && [ "$ok" = "$rows" ] || { cat "$d/summary.csv"; fail "expected every spawn/switch point ok with wall_s > 0"; }
for p in spawn-wall switch-ns-per-op; do
  [ -s "$d/plots/$p.png" ] || fail "plot $p.png missing or empty"
done
python3 - "$d/meta.json" "$ENGINE" <<'PY' || fail "meta.json does not say it ran in a container"
import json, sys
m = json.load(open(sys.argv[1]))
c = m["host"]["container"]
assert c["in_container"] and c["engine"] == sys.argv[2] and c["privileged"], c
assert m["host"]["cgroup"]["mode"] in ("v1", "v2", "hybrid"), m["host"]["cgroup"]
assert m["lab_revision"] != "unknown", m["lab_revision"]
PY

# Bad cases: a read-only results volume; a container that is not privileged.
mkdir -p "$TMP/ro"
out=$($ENGINE run --rm $(echo "$RUN_FLAGS" | sed 's/--privileged//') -v "$TMP/ro:/lab/results:ro" lab:latest run spawn --scale 1000 2>&1)
rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "not writable" || fail "read-only results volume: exit $rc: $out"
out=$($ENGINE run --rm $(echo "$RUN_FLAGS" | sed 's/--privileged//') lab:latest doctor 2>&1)
rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "not privileged: cgroup files are read-only; run with --privileged" \
  || fail "unprivileged doctor: exit $rc: $out"
# Those two ran without run.sh: remove podman's groups they made, as run.sh does.
for g in $(find /sys/fs/cgroup -maxdepth 4 -type d -path '*libpod*' 2>/dev/null | sort -r); do
  echo "$libpod_before" | grep -qx "$g" || rmdir "$g" 2>/dev/null
done

# Nothing left: no container, no podman cgroup that was not there before.
[ "$($ENGINE ps -aq | sort)" = "$running_before" ] || fail "containers left: $($ENGINE ps -a)"
libpod_after=$(find /sys/fs/cgroup -maxdepth 4 -type d -path '*libpod*' 2>/dev/null | sort)
[ "$libpod_after" = "$libpod_before" ] || fail "podman cgroups left: $libpod_after"
echo "image $($ENGINE image inspect --format '{{.Size}}' lab:latest | awk '{ printf "%d MiB", $1 / 1048576 }')"
exit 0
