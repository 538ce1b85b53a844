#!/bin/sh
# run.sh - the test runner, in the style of liburing's test/runtests.sh.
#
#   sh tests/run.sh BUILD [runtime]
#
# Runs every C test ($BUILD/tests/*) and every shell test (tests/*.sh but this
# one), each under `timeout`, from the repository root with LAB_BUILD=$BUILD and a
# fresh LAB_TMP directory.  Exit codes: 0 pass, 77 skip (the test prints why),
# anything else fails; a timeout is reported apart from failures.  With
# `runtime`, only the coroutine runtime's tests (coro-*) run, e.g. for make asan.
# With LAB_VALGRIND=1 the C tests run under valgrind.
# Closes with "N passed, N failed, N skipped"; exits 1 if anything failed.
set -u
BUILD=${1:-build}
ONLY=${2:-}
TIMEOUT=${LAB_TEST_TIMEOUT:-600}
cd "$(dirname "$0")/.." || exit 1
export LAB_BUILD="$BUILD"
pass=0; fail=0; skip=0; failed=""
tmproot=$(mktemp -d /tmp/lab-tests.XXXXXX)
trap 'rm -rf "$tmproot"' EXIT INT TERM

run_one() {
  name=$1; shift
  export LAB_TMP="$tmproot/$name"
  mkdir -p "$LAB_TMP"
  start=$(date +%s.%N)
  timeout -k 10 "$TIMEOUT" "$@" >"$LAB_TMP.log" 2>&1
  rc=$?
  secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  case $rc in
    0) pass=$((pass + 1)); printf 'PASS  %-28s %6ss\n' "$name" "$secs" ;;
    77) skip=$((skip + 1)); printf 'SKIP  %-28s %s\n' "$name" "$(grep -i skip "$LAB_TMP.log" | tail -n 1)" ;;
    124|137) fail=$((fail + 1)); failed="$failed $name"
       printf 'TIMEOUT %-26s after %ss\n' "$name" "$TIMEOUT"; tail -n 30 "$LAB_TMP.log" ;;
    *) fail=$((fail + 1)); failed="$failed $name"
       printf 'FAIL  %-28s exit %d\n' "$name" "$rc"; tail -n 40 "$LAB_TMP.log" ;;
  esac
}

for t in "$BUILD"/tests/*; do
  [ -x "$t" ] || continue
  name=$(basename "$t")
  [ -n "$ONLY" ] && case $name in coro-*) ;; *) continue ;; esac
  if [ "${LAB_VALGRIND:-0}" = 1 ]; then
    run_one "$name" valgrind -q --error-exitcode=1 --leak-check=no "$t"
  else
    run_one "$name" "$t"
  fi
done
if [ -z "$ONLY" ]; then
  for t in tests/*.sh; do
    [ "$(basename "$t")" = run.sh ] && continue
    [ -f "$t" ] || continue
    run_one "$(basename "$t" .sh)" sh "$t"
  done
fi
[ -n "$failed" ] && echo "failed:$failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
