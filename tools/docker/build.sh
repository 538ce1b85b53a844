#!/bin/sh
# build.sh - `make docker`: builds the lab's image (tag lab:latest, or $LAB_IMAGE)
# from the Dockerfile with docker, or podman where no Docker engine works.
# The debian:12 base comes from the engine's store or registry
# (LAB_DOCKER_PULL=1), else tools/docker/base.sh makes it locally.
# Exit 77 with "SKIP: ..." when no engine can build here.
set -u
cd "$(dirname "$0")/../.." || exit 1
IMAGE=${LAB_IMAGE:-lab:latest}
conf=$(sh tools/docker/engine.sh) || { echo "$conf"; exit 77; }
eval "$conf"
if ! $ENGINE image inspect docker.io/library/debian:12 >/dev/null 2>&1 && [ "${LAB_DOCKER_PULL:-0}" != 1 ]; then
  sh tools/docker/base.sh "$ENGINE" build/docker || exit $?
fi
rev=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
[ -n "$(git status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ] && rev="$rev-dirty"
start=$(date +%s)
echo "docker: $ENGINE build -t $IMAGE ($rev)"
# shellcheck disable=SC2086
$ENGINE build $BUILD_FLAGS --build-arg LAB_REVISION="$rev" -t "$IMAGE" . || {
  echo "docker: $ENGINE build failed" >&2; exit 1; }
size=$($ENGINE image inspect --format '{{.Size}}' "$IMAGE" 2>/dev/null)
echo "docker: built $IMAGE in $(( $(date +%s) - start )) s, $(( ${size:-0} / 1048576 )) MiB"
