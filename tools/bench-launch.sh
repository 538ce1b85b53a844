#!/bin/bash
# bench-launch.sh - launch cost of the sandbox beside bubblewrap's (issue 14,
# "Launch cost").  Not a test: timings belong in a report, not in a pass/fail.
#
#   bash tools/bench-launch.sh [N] [LAB...]
#
# Runs N (default 30) rounds; each round launches, one after the other,
# `LAB sandbox --json /dev/null -- /bin/true` for every LAB given (default
# ./lab; give two builds to compare them in one run) and
# `bwrap --unshare-all --ro-bind / / /bin/true`, so that every variant sees
# the same load.  Prints per variant the median, min and p90 wall time in ms
# (measured here with bash's $EPOCHREALTIME: no fork around the launch), and
# the ratio of each lab median to bwrap's.  Needs root (the sandbox), bash 5,
# and bwrap (Debian package `bubblewrap`; without it the bwrap row is left out).
# Quote figures only from a quiet machine, e.g. under the team's lock:
#   flock /work/coord/bench.lock bash tools/bench-launch.sh 30
set -u
N=${1:-30}
shift 2>/dev/null
LABS=("$@")
[ ${#LABS[@]} -eq 0 ] && LABS=(./lab)
case $N in '' | *[!0-9]*) echo "bench-launch: N must be a number, got \`$N'" >&2; exit 2 ;; esac
for l in "${LABS[@]}"; do
  [ -x "$l" ] || { echo "bench-launch: \`$l' is not an executable lab" >&2; exit 2; }
done
BWRAP=$(command -v bwrap || true)
[ -z "$BWRAP" ] && echo "bench-launch: bwrap not found (apt-get install bubblewrap): its row is left out" >&2

declare -A T
now_us() { local t=${EPOCHREALTIME/[.,]/}; echo "$t"; }

# Warm up (page cache, the seccomp cache).
for l in "${LABS[@]}"; do "$l" sandbox --json /dev/null -- /bin/true || exit 1; done
[ -n "$BWRAP" ] && { "$BWRAP" --unshare-all --ro-bind / / /bin/true || exit 1; }

for ((i = 0; i < N; i++)); do
  for l in "${LABS[@]}"; do
    a=${EPOCHREALTIME/[.,]/}
    "$l" sandbox --json /dev/null -- /bin/true || { echo "bench-launch: \`$l sandbox' failed" >&2; exit 1; }
    b=${EPOCHREALTIME/[.,]/}
    T[$l]+="$((b - a)) "
  done
  if [ -n "$BWRAP" ]; then
    a=${EPOCHREALTIME/[.,]/}
    "$BWRAP" --unshare-all --ro-bind / / /bin/true || exit 1
    b=${EPOCHREALTIME/[.,]/}
    T[bwrap]+="$((b - a)) "
  fi
done

stats() { # prints "median min p90" in ms of the microsecond values in $1
  tr ' ' '\n' <<<"$1" | grep . | sort -n | awk '{ v[NR] = $1 }
    END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
          p = v[int(NR * 0.9 + 0.999)]; printf "%.2f %.2f %.2f\n", m / 1000, v[1] / 1000, p / 1000 }'
}
printf '%-40s %8s %8s %8s %8s\n' "variant ($N interleaved rounds)" median_ms min_ms p90_ms vs_bwrap
bw=""
[ -n "$BWRAP" ] && read -r bw bmin bp90 <<<"$(stats "${T[bwrap]}")"
for l in "${LABS[@]}"; do
  read -r m mn p <<<"$(stats "${T[$l]}")"
  r=-
  [ -n "$bw" ] && r=$(awk -v a="$m" -v b="$bw" 'BEGIN { printf "%.2fx", a / b }')
  printf '%-40s %8s %8s %8s %8s\n' "$l sandbox -- /bin/true" "$m" "$mn" "$p" "$r"
done
[ -n "$bw" ] && printf '%-40s %8s %8s %8s %8s\n' "bwrap --unshare-all --ro-bind / /" "$bw" "$bmin" "$bp90" 1.00x
exit 0
