#!/bin/sh
# Description: a short, bounded libFuzzer run (FUZZ_TEST_SECONDS, default 20 s per target)
# of the profile and seccomp parsers (tools/fuzz/run.sh, the same as `make fuzz`), built
# with clang -fsanitize=fuzzer,address,undefined; fails on any crash, sanitizer report,
# hang (>10 s per input) or bad input reported as a harness failure, printing the
# finding's file.  Skips (77) when clang or libFuzzer is missing and cannot be installed.
# The fuzz build, corpus and findings stay under $LAB_TMP; the source tree is untouched.
set -u
cd "$(dirname "$0")/.." || exit 1
out="${LAB_TMP:-/tmp}/fuzz"
FUZZ_SAVE=0 sh tools/fuzz/run.sh "${FUZZ_TEST_SECONDS:-20}" "$out"
rc=$?
[ "$rc" -eq 77 ] && exit 77
[ "$rc" -eq 0 ] || { echo "FAIL: the fuzzer found something (inputs under $out/findings-*)"; exit 1; }
# The run must have executed inputs, not merely built: every target reports a count.
grep -q "stat::number_of_executed_units: *[1-9]" "$out/fuzz-profile.log" &&
  grep -q "stat::number_of_executed_units: *[1-9]" "$out/fuzz-seccomp.log" ||
  { echo "FAIL: a fuzz target executed nothing"; exit 1; }
exit 0
