#!/bin/sh
# deps.sh - what `make docker` and the docker test need beyond `make deps`:
# a container engine (podman where no Docker engine works; runc, which drives
# hybrid cgroup hosts where crun cannot) and debootstrap for the local
# debian:12 base.  Test-only: `make run` never installs these.
# Exit 0 when ready, 77 with "SKIP: ..." when they cannot be had.
set -u
if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
  exit 0
fi
sh "$(dirname "$0")/../test-deps.sh" docker podman runc debootstrap
