#!/bin/sh
# engine.sh - prints the container engine `make docker` uses, with the flags
# this host needs, as shell assignments:
#   ENGINE=docker|podman  BUILD_FLAGS=...  RUN_FLAGS=...  CG_MODE=v2|v1
# A working Docker engine wins; otherwise podman.  Exit 77 with "SKIP: ..."
# when neither can run here (the message says what to install).
#   LAB_ENGINE=podman  forces one.
set -u
skip() { echo "SKIP: $*"; exit 77; }

engine=${LAB_ENGINE:-}
if [ -z "$engine" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then
    engine=docker
  elif command -v podman >/dev/null 2>&1; then
    engine=podman
  elif command -v docker >/dev/null 2>&1; then
    skip "docker is installed but its engine does not answer (docker info failed: is dockerd running, may this user use it?); or install podman"
  else
    skip "no container engine: install docker.io or podman (apt-get install -y podman)"
  fi
fi
command -v "$engine" >/dev/null 2>&1 || skip "LAB_ENGINE=$engine is not installed"

if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" = cgroup2fs ]; then
  cg=v2
  # Private cgroup namespace: the entry point moves the container's
  # processes to /init and delegates the controllers (as docker-in-docker).
  run="--privileged --cgroupns=private"
else
  cg=v1
  # v1 / hybrid: the lab nests under the container's own cgroup; crun
  # refuses hybrid hierarchies, runc drives them.
  run="--privileged --cgroupns=host"
  [ "$engine" = podman ] && run="$run --runtime runc --cgroup-manager cgroupfs"
fi
# podman sets the container's RLIMIT_NOFILE and RLIMIT_NPROC above what a host
# without CAP_SYS_RESOURCE lets it raise them to (runc: "error setting
# rlimit"): NOFILE follows the host's; podman itself runs with NPROC capped
# at 32768, which binds no one here (uid 0 of the initial user namespace is
# exempt from RLIMIT_NPROC).
[ "$engine" = podman ] && run="$run --ulimit nofile=$(ulimit -Sn):$(ulimit -Hn) --ulimit nproc=32768:32768"
# Engines cap the container's pids (podman: 2048 by default), which would stop
# a pthread point at ~2K threads and look like a memory limit from inside;
# the lab's own pids.max (the profile's "auto") bounds each point instead.
run="$run --pids-limit=-1"
# The lab needs no network: its experiments talk inside their own network
# namespaces.
run="$run --network none"
build=""
# podman (buildah) as root without a nested user namespace: chroot isolation.
[ "$engine" = podman ] && build="--isolation chroot"
echo "ENGINE=$engine"
echo "BUILD_FLAGS='$build'"
echo "RUN_FLAGS='$run'"
echo "CG_MODE=$cg"
