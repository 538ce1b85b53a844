#!/bin/sh
# deps.sh - installs the Debian 12 packages the lab needs, or says what to install.
# Run by `make deps` (and so by `make run` and `make test`), and by the Dockerfile:
# this is the one list of what running the lab needs.  Extra package names as
# arguments are installed too (a test-only target's own deps step, e.g.
# `make valgrind` passes valgrind); `make run` never asks for those.
#   golang-go, g++, libboost-context-dev: the reference peers (go, fcontext);
#   without them the lab still builds and marks those variants unavailable.
#   wrk: echo's `--opt client=wrk` cross-check.
set -u
PKGS="gcc make pkg-config liburing-dev libseccomp-dev libjson-c-dev libcmocka-dev gnuplot-nox iproute2 procps golang-go g++ libboost-context-dev wrk $*"
missing=""
for p in $PKGS; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "lab: missing Debian packages:$missing" >&2
  echo "lab: install them with: sudo apt-get install -y$missing" >&2
  exit 1
fi
echo "lab: installing missing Debian packages:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "lab: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing || {
  echo "lab: apt-get install failed for:$missing" >&2; exit 1; }
