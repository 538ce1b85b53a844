#!/bin/sh
# run.sh - `make docker-run`: runs the lab's image with the flags this host
# needs and ./results mounted at /lab/results, so the run's results land on
# the host.  Arguments go to `lab` (default: the image's CMD, = `make run`).
#   LAB_RESULTS=DIR   another host directory for the results
#   LAB_IMAGE=NAME    another image (default lab:latest)
# podman (cgroupfs manager) leaves its groups (libpod_parent) at the
# hierarchy roots: those that appeared during the run are removed, so the
# host is left as it was.  LAB_RUN_FLAGS adds engine flags.
set -u
cd "$(dirname "$0")/../.." || exit 1
IMAGE=${LAB_IMAGE:-lab:latest}
RESULTS=${LAB_RESULTS:-$PWD/results}
conf=$(sh tools/docker/engine.sh) || { echo "$conf"; exit 77; }
eval "$conf"
$ENGINE image inspect "$IMAGE" >/dev/null 2>&1 || { echo "docker: no image $IMAGE: run make docker first" >&2; exit 2; }
mkdir -p "$RESULTS" || { echo "docker: cannot create results directory $RESULTS" >&2; exit 2; }
RESULTS=$(cd "$RESULTS" && pwd)

# Only podman's own groups (libpod*) that appeared during the run are
# removed: other cgroups may come and go meanwhile (e.g. another lab run).
cg_dirs() { find /sys/fs/cgroup -mindepth 1 -maxdepth 4 -type d -path '*libpod*' 2>/dev/null | sort; }
before=$(mktemp) && after=$(mktemp) || exit 1
trap 'rm -f "$before" "$after"' EXIT
cg_dirs > "$before"
# shellcheck disable=SC2086
$ENGINE run --rm $RUN_FLAGS ${LAB_RUN_FLAGS:-} -v "$RESULTS:/lab/results" "$IMAGE" "$@"
rc=$?
if [ "$ENGINE" = podman ]; then
  cg_dirs > "$after"
  # Deepest first; rmdir keeps a group that still holds processes.
  comm -13 "$before" "$after" | awk '{ print length($0) " " $0 }' | sort -rn | cut -d' ' -f2- |
    while read -r d; do rmdir "$d" 2>/dev/null; done
fi
exit $rc
