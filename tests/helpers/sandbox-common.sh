# sandbox-common.sh - sourced by tests/sandbox-*.sh: finds the harness, skips
# (exit 77, with the reason) where the sandbox cannot run, and builds helpers.
LAB=${LAB_BUILD:-build}/bin/lab
TMP=${LAB_TMP:-$(mktemp -d)}
[ -x "$LAB" ] || { echo "SKIP: $LAB not built"; exit 77; }
[ "$(id -u)" = 0 ] || { echo "SKIP: the sandbox needs root"; exit 77; }
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
  grep -qw memory /sys/fs/cgroup/cgroup.controllers 2>/dev/null \
    || { echo "SKIP: no cgroup v2 memory controller"; exit 77; }
else
  awk '$1 == "memory" && $2 != 0 && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups \
    || { echo "SKIP: no cgroup memory controller"; exit 77; }
fi

fail() { echo "FAIL: $*"; exit 1; }

# build_helper NAME: compiles tests/helpers/NAME.c into $TMP/NAME
build_helper() {
  ${CC:-cc} -O1 -o "$TMP/$1" "tests/helpers/$1.c" || fail "building helper $1"
}

# json_has FILE KEY VALUE: the pretty JSON holds "KEY":VALUE (VALUE quoted if a string)
json_has() {
  grep -q "\"$2\":$3" "$1"
}

# no_leftovers: no lab-* cgroup of this process tree and no process from $1 (a pattern)
no_lab_cgroups() {
  left=$(find /sys/fs/cgroup -name "lab-$1" 2>/dev/null)
  [ -z "$left" ] || fail "cgroups left: $left"
}
