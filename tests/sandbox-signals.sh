#!/bin/sh
# Description: the workload is not pid 1 of its pid namespace (a pid 1 drops
# the signals it has no handler for that come from inside), so a signal it
# sends itself ends it as it would end it anywhere: `kill -SEGV $$` is status
# `crashed` naming SIGSEGV and exit 139, SIGTERM 143, abort() SIGABRT 134 (not
# abort's SIGSEGV fallback); exit codes pass through; a SIGTERM sent to the
# sandbox's init (pid 1) is forwarded to the workload.
. tests/helpers/sandbox-common.sh

# check NAME RC STATUS SIGNAL -- COMMAND...: exit code, status and signal in the JSON
check() {
  name=$1 want_rc=$2 want_st=$3 want_sig=$4
  shift 5
  "$LAB" sandbox --json "$TMP/$name.json" -- "$@" >"$TMP/$name.out" 2>&1; rc=$?
  st=$(grep -o '"status":"[a-z]*"' "$TMP/$name.json")
  sig=$(grep -o '"signal":[^,]*' "$TMP/$name.json")
  echo "$name: rc=$rc $st $sig"
  [ "$rc" = "$want_rc" ] || fail "$name: exit $rc, want $want_rc"
  json_has "$TMP/$name.json" status "\"$want_st\"" || fail "$name: $st, want $want_st"
  json_has "$TMP/$name.json" signal "$want_sig" || fail "$name: $sig, want $want_sig"
}

check segv 139 crashed '"SIGSEGV"' -- /bin/sh -c 'kill -SEGV $$'
check term 143 crashed '"SIGTERM"' -- /bin/sh -c 'kill -TERM $$'
check exit3 3 ok null -- /bin/sh -c 'exit 3'
check exit0 0 ok null -- /bin/true
# Init forwards SIGTERM to the workload (sh waits in `sleep`, then dies of it).
check fwd 143 crashed '"SIGTERM"' -- /bin/sh -c 'kill -TERM 1; sleep 5'
if command -v python3 >/dev/null; then
  check abort 134 crashed '"SIGABRT"' -- "$(command -v python3)" -c 'import os; os.abort()'
else
  echo "abort: python3 missing, not checked"
fi
echo "PASS"
