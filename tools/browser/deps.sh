#!/bin/sh
# deps.sh - makes sure a headless browser is here for tests/report-html.sh.
#
#   sh tools/browser/deps.sh
#
# Test-only package (tools/deps.sh, which `make run` uses, does not install
# it): Debian's chromium.  Installed with apt-get when root.  Exit 0 when
# ready, 77 with a "SKIP: ..." line saying why when it cannot be had.
set -u
PKGS="chromium"

skip() { echo "SKIP: $*"; exit 77; }

missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
  [ "$(id -u)" -eq 0 ] || skip "missing Debian packages:$missing (install them with: sudo apt-get install -y$missing)"
  echo "browser: installing missing Debian packages:$missing"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed; cannot install$missing"
  # shellcheck disable=SC2086
  apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 ||
    skip "apt-get install failed for:$missing"
fi
command -v chromium >/dev/null 2>&1 || skip "chromium not found after installing it"
exit 0
