#!/bin/sh
# entrypoint.sh - the container's entry point: prepares cgroups, then runs
# `lab` with the container's arguments.
#
# cgroup v2 with a private cgroup namespace (`--cgroupns=private`, docker's
# default on v2): the container's root cgroup holds its processes, and a v2
# cgroup that holds processes cannot hand controllers to children.  As
# docker-in-docker does, move every process into a leaf `/init` and enable the
# controllers in the root's cgroup.subtree_control; the lab then nests its
# `lab-<pid>` groups below /init as it does on a host.
# cgroup v1 / hybrid: the lab nests under the container's own cgroup of each
# hierarchy, as on the host; nothing to do.
# Read-only cgroup files (not --privileged) are left as they are: `lab doctor`
# says what is missing.
set -u
CG=/sys/fs/cgroup
say() { echo "lab-container: $*" >&2; }

if [ "$(stat -f -c %T "$CG" 2>/dev/null)" = cgroup2fs ] && [ "$(cat /proc/self/cgroup)" = "0::/" ] \
  && [ -w "$CG/cgroup.procs" ]; then
  mkdir -p "$CG/init" 2>/dev/null
  # Processes can come and go while they move; repeat until the root is empty.
  for _ in 1 2 3 4 5; do
    [ -s "$CG/cgroup.procs" ] || break
    while read -r p; do echo "$p" > "$CG/init/cgroup.procs" 2>/dev/null; done < "$CG/cgroup.procs"
  done
  ctl=$(sed -e 's/\([^ ]\+\)/+\1/g' "$CG/cgroup.controllers")
  [ -n "$ctl" ] && { echo "$ctl" > "$CG/cgroup.subtree_control" 2>/dev/null \
    || say "could not enable controllers ($ctl) in $CG/cgroup.subtree_control"; }
fi

if [ "${1:-}" = run ] && ! [ -w /lab/results ]; then
  say "results volume /lab/results is not writable: mount a writable directory," \
      "e.g. -v \"\$PWD/results:/lab/results\" (without :ro)"
  exit 2
fi
export LAB_CONTAINER=${LAB_CONTAINER:-1}
exec /lab/build/bin/lab "$@"
