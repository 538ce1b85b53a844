#!/bin/sh
# Description: the sandbox on a real cgroup-v2 kernel, in a qemu VM
# (tools/vm/run.sh; the same as `make test-cgroup2`).  Exit 0 pass, 1 fail,
# 77 skip with the reason (no qemu, kernel package not fetchable, ...).
cd "$(dirname "$0")/.." || exit 1
sh tools/vm/run.sh "${LAB_BUILD:-build}"
