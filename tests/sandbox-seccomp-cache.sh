#!/bin/sh
# Description: the compiled seccomp program cache (harness/seccomp-cache.h).
# A repository profile compiled once is stored (one file per profile and
# capability set) and a second run enforces the same filter from it: the
# KILL rule of seccomp/kill-getppid.json still ends the point as `seccomp`
# naming getppid; another capability set is another entry; a truncated or
# garbled cache file is ignored (the filter is compiled again, still
# enforced); a profile outside the repository is never stored.
. tests/helpers/sandbox-common.sh

export LAB_SECCOMP_CACHE="$TMP/cache"
cat >"$TMP/getppid.c" <<'C'
#include <stdio.h>
#include <unistd.h>
int main (void) { printf ("before\n"); fflush (stdout); getppid (); printf ("after\n"); return 0; }
C
cc -O1 -o "$TMP/getppid" "$TMP/getppid.c" || fail "building getppid"

killed() { # NAME ARGS...: the point must end `seccomp`, killed on getppid
  n=$1; shift
  "$LAB" sandbox --json "$TMP/$n.json" "$@" -- "$TMP/getppid" >"$TMP/$n.out" 2>"$TMP/$n.err"
  rc=$?
  [ $rc = 159 ] && json_has "$TMP/$n.json" status '"seccomp"' && grep -q getppid "$TMP/$n.json" &&
    ! grep -q after "$TMP/$n.out" || fail "$n: not killed by the cached filter (exit $rc): $(cat "$TMP/$n.err")"
}

killed cold --seccomp seccomp/kill-getppid.json
[ "$(ls "$TMP/cache" 2>/dev/null | grep -c '\.bpf$')" = 1 ] || fail "no cache file after the first run: $(ls -la "$TMP/cache" 2>&1)"
f=$(ls "$TMP/cache"/*.bpf)
killed warm --seccomp seccomp/kill-getppid.json
[ "$(ls "$TMP/cache" | grep -c '\.bpf$')" = 1 ] || fail "the second run added a file instead of using the first"

printf '{ "capabilities": ["CAP_KILL"] }\n' >"$TMP/kill-only.json"
killed caps --profile "$TMP/kill-only.json" --seccomp seccomp/kill-getppid.json
[ "$(ls "$TMP/cache" | grep -c '\.bpf$')" = 2 ] || fail "another capability set did not get its own entry"

# A damaged file is a miss: compiled again and enforced.
head -c 20 "$f" >"$f.short" && mv "$f.short" "$f"
killed truncated --seccomp seccomp/kill-getppid.json
printf 'garbage garbage garbage garbage garbage garbage' >"$f"
killed garbled --seccomp seccomp/kill-getppid.json

# Outside the repository: compiled each time, never stored.
cp seccomp/kill-getppid.json "$TMP/mine.json"
before=$(ls "$TMP/cache" | wc -l)
killed outside --seccomp "$TMP/mine.json"
[ "$(ls "$TMP/cache" | wc -l)" = "$before" ] || fail "a profile outside the repository was stored: $(ls "$TMP/cache")"
echo "PASS"
