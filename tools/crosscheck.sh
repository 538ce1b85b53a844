#!/bin/sh
# crosscheck.sh - an independent reading of one point per experiment, to set
# beside summary.csv: the same workload command, outside the lab's sandbox,
# under /usr/bin/time -v (whole-process rusage: max RSS, CPU, context
# switches) in a memory cgroup made for it under this shell's own memory
# cgroup (v1: memory.max_usage_in_bytes, memory.stat; v2: memory.peak), on
# the CPU the default profile pins workloads to.  Then `lab run` of the same
# points, and the figures side by side.
#
#   sh tools/crosscheck.sh [BUILD]      (root; needs /usr/bin/time: apt-get install time)
#
# What to expect: time's max RSS >= rss_peak_bytes (time's figure includes the
# pre-exec image of its fork); time's CPU and context switches >= the CSV's
# (the CSV covers the measured region only); the cgroup peaks agree within the
# noise of a shared machine.  Leaves nothing behind (its cgroup is removed).
set -eu
BUILD=${1:-build}
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "crosscheck: /usr/bin/time is missing (apt-get install time)"; exit 2; }
T=$(mktemp -d)
CPU=$(nproc); [ "$CPU" -ge 2 ] && CPU=1 || CPU=0
if [ "$(stat -f -c %T /sys/fs/cgroup)" = cgroup2fs ]; then
  CG="/sys/fs/cgroup$(awk -F: '$1 == 0 { print $3 }' /proc/self/cgroup | sed 's|/$||')/truth-xc-$$"
  PEAK=memory.peak
else
  CG="/sys/fs/cgroup/memory$(awk -F: '$2 == "memory" { print $3 }' /proc/self/cgroup | sed 's|/$||')/truth-xc-$$"
  PEAK=memory.max_usage_in_bytes
fi
cleanup() { rmdir "$CG" 2>/dev/null || true; rm -rf "$T"; }
trap cleanup EXIT INT TERM
POINTS="spawn:coro:10000 switch:pthread:100000 memory:coro-copystack:10000 seccomp:io_uring:1"
printf '%-32s %-14s %14s %14s %10s %10s %8s %8s\n' point source rss_peak_B cgroup_peak_B user_s sys_s volcs involcs
for p in $POINTS; do
  exp=${p%%:*}; rest=${p#*:}; var=${rest%%:*}; n=${rest#*:}
  mkdir "$CG"
  sh -c "echo \$\$ > '$CG/cgroup.procs'; exec taskset -c $CPU /usr/bin/time -v -o '$T/time.txt' \
         '$BUILD/bin/wl-$exp' --variant '$var' --n '$n'" > "$T/out.txt" 2>/dev/null || true
  peak=$(cat "$CG/$PEAK")
  rmdir "$CG"
  rss=$(awk -F': ' '/Maximum resident set size/ { print $2 * 1024 }' "$T/time.txt")
  usr=$(awk -F': ' '/User time/ { print $2 }' "$T/time.txt")
  sys=$(awk -F': ' '/System time/ { print $2 }' "$T/time.txt")
  vcs=$(awk -F': ' '/Voluntary context switches/ { print $2 }' "$T/time.txt")
  ics=$(awk -F': ' '/Involuntary context switches/ { print $2 }' "$T/time.txt")
  printf '%-32s %-14s %14s %14s %10s %10s %8s %8s\n' "$exp-$var-n$n" "time -v+cgroup" "$rss" "$peak" "$usr" "$sys" "$vcs" "$ics"
  ./lab run "$exp" --variants "$var" --scale "$n" --out "$T/run-$exp" > /dev/null 2>&1 || true
  awk -F, -v id="$exp-$var-n$n" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    { printf "%-32s %-14s %14s %14s %10s %10s %8s %8s\n", id, "summary.csv", $c["rss_peak_bytes"],
      $c["cgroup_mem_peak_bytes"], $c["cpu_user_s"], $c["cpu_sys_s"], $c["vol_ctxsw"], $c["invol_ctxsw"] }' \
    "$T/run-$exp/summary.csv"
  python3 - "$T/run-$exp" <<'PY' 2>/dev/null || true
import json, glob, sys
for f in glob.glob(sys.argv[1] + "/points/*.json"):
    d = json.load(open(f)); s = d["sandbox"]; w = d.get("workload") or {}
    print("%-32s %-14s %14s %14s %10s %10s %8s %8s" % ("", "sandbox (init)", s.get("max_rss_bytes"),
          (s.get("cgroup") or {}).get("end", {}).get("mem_peak_bytes"), s.get("cpu_user_s"), s.get("cpu_sys_s"),
          s.get("vol_ctxsw"), s.get("invol_ctxsw")))
    print("%-32s %-14s %14s" % ("", "workload hwm", w.get("vm_hwm_bytes")))
PY
done
