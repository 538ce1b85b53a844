#!/bin/sh
# test-deps.sh - installs the Debian packages a test-only target needs, or
# says why it cannot (a skip, never a failure of the suite).
#
#   sh tools/test-deps.sh WHO PKG...
#
# WHO prefixes the messages ("vm", "fuzz", "browser", "docker").  Missing
# packages are installed with apt-get when root.  Exit 0 when all are
# installed, 77 with a "SKIP: ..." line saying why otherwise.  tools/deps.sh,
# which `make run` uses, never installs these.  Used by tools/*/deps.sh.
set -u
who=$1
shift
skip() { echo "SKIP: $*"; exit 77; }
missing=""
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
[ "$(id -u)" -eq 0 ] || skip "missing Debian packages:$missing (install them with: sudo apt-get install -y$missing)"
echo "$who: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null 2>&1 || skip "apt-get update failed; cannot install$missing"
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null 2>&1 || skip "apt-get install failed for:$missing"
