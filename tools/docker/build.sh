#!/bin/sh
# build.sh - `make docker`: builds the lab's image (tag lab:latest, or $LAB_IMAGE)
# from the Dockerfile with docker, or podman where no Docker engine works.
# The debian:12 base comes from the engine's store or registry
# (LAB_DOCKER_PULL=1), else tools/docker/base.sh makes it locally.
# The image the tag named before, once the build has moved the tag off it and
# no other tag names it, is removed (with the layers only it used): repeated
# builds do not pile up untagged images (1.2 GB each) in the engine's store.
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
old=$($ENGINE image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null)
echo "docker: $ENGINE build -t $IMAGE ($rev)"
# shellcheck disable=SC2086
$ENGINE build $BUILD_FLAGS --build-arg LAB_REVISION="$rev" -t "$IMAGE" . || {
  echo "docker: $ENGINE build failed" >&2; exit 1; }
new=$($ENGINE image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null)
if [ -n "$old" ] && [ "$old" != "$new" ] \
   && [ "$($ENGINE image inspect --format '{{len .RepoTags}}' "$old" 2>/dev/null)" = 0 ]; then
  if $ENGINE rmi "$old" >/dev/null 2>&1; then
    echo "docker: removed the untagged image $IMAGE named before ($(echo "$old" | cut -c1-12))"
  else
    echo "docker: kept the image $IMAGE named before ($(echo "$old" | cut -c1-12)): in use"
  fi
fi
size=$($ENGINE image inspect --format '{{.Size}}' "$IMAGE" 2>/dev/null)
echo "docker: built $IMAGE in $(( $(date +%s) - start )) s, $(( ${size:-0} / 1048576 )) MiB"
