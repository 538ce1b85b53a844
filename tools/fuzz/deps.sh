#!/bin/sh
# deps.sh - makes sure the host can build the fuzz targets (`make fuzz`, tests/fuzz-parsers.sh).
#
#   sh tools/fuzz/deps.sh
#
# Test-only packages (tools/deps.sh, which `make run` uses, does not install
# them): clang and libFuzzer.  Installed with apt-get when root.  Exit 0 when
# ready, 77 with a "SKIP: ..." line saying why when fuzzing cannot run here.
set -u
skip() { echo "SKIP: $*"; exit 77; }

sh "$(dirname "$0")/../test-deps.sh" fuzz clang libfuzzer-14-dev || exit $?
command -v clang >/dev/null 2>&1 || skip "clang not found after installing clang"
exit 0
