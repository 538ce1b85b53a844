#!/bin/sh
# deps.sh - makes sure a headless browser is here for tests/report-html.sh.
#
#   sh tools/browser/deps.sh
#
# Test-only package (tools/deps.sh, which `make run` uses, does not install
# it): Debian's chromium.  Installed with apt-get when root.  Exit 0 when
# ready, 77 with a "SKIP: ..." line saying why when it cannot be had.
set -u
skip() { echo "SKIP: $*"; exit 77; }

sh "$(dirname "$0")/../test-deps.sh" browser chromium || exit $?
command -v chromium >/dev/null 2>&1 || skip "chromium not found after installing it"
exit 0
