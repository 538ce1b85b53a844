#!/bin/sh
# Description: the sandbox's cgroup limits hold: a command that allocates
# beyond --memory-max ends with status `oom` (exit 137, oom_kill counted);
# a bounded fork bomb (10000 forks) under --pids-max 50 sees forks fail with
# EAGAIN and never exceeds 50 tasks; without the limit the same bomb is not
# stopped at 50 (so the check can fail).
. tests/helpers/sandbox-common.sh
build_helper forkbomb

# 1. memory: allocate and touch 256 MiB under a 64 MiB limit.
cat > "$TMP/alloc.c" <<'C'
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
int main (void) { size_t n = 256u << 20; volatile char *p = malloc (n); if (!p) return 3;
  for (size_t i = 0; i < n; i += 4096) p[i] = 1;
  printf ("allocated %d\n", p[n - 4096]); return 0; }
C
cc -O1 -o "$TMP/alloc" "$TMP/alloc.c" || fail "building alloc"
"$LAB" sandbox --memory-max 64M --json "$TMP/oom.json" -- "$TMP/alloc" & pid=$!
wait $pid; rc=$?
cat "$TMP/oom.json"
[ $rc = 137 ] || fail "oom: exit $rc, expected 137"
json_has "$TMP/oom.json" status '"oom"' || fail "oom: status is not oom"
grep -q '"oom_kill":[1-9]' "$TMP/oom.json" || fail "oom: no oom_kill counted"
grep -q '"mem_peak_bytes":6[0-9]\{7\}' "$TMP/oom.json" || fail "oom: memory peak not near 64 MiB"
no_lab_cgroups $pid

# 2. the same command fits in 512M: ok.
"$LAB" sandbox --memory-max 512M --json "$TMP/fit.json" -- "$TMP/alloc" >/dev/null || fail "512M: not ok"
json_has "$TMP/fit.json" status '"ok"' || fail "512M: status not ok"

# 3. pids.max holds a fork bomb.
"$LAB" sandbox --pids-max 50 --json "$TMP/pids.json" -- "$TMP/forkbomb" 10000 >"$TMP/bomb.out" & pid=$!
wait $pid; rc=$?
cat "$TMP/bomb.out"
[ $rc = 0 ] || fail "fork bomb: exit $rc"
forked=$(sed -n 's/.*forked=\([0-9]*\).*/\1/p' "$TMP/bomb.out")
failed=$(sed -n 's/.*failed=\([0-9]*\).*/\1/p' "$TMP/bomb.out")
[ -n "$forked" ] && [ "$forked" -le 49 ] || fail "fork bomb: forked $forked (> 49 children under pids.max 50)"
[ "$failed" -gt 9000 ] || fail "fork bomb: only $failed forks failed"
grep -q '"pids_peak":50\b\|"pids_peak":50,' "$TMP/pids.json" || grep -q '"pids_peak":null' "$TMP/pids.json" \
  || fail "fork bomb: pids_peak is not 50"
no_lab_cgroups $pid

# 4. control: with pids.max 500 the bomb gets further than 50.
"$LAB" sandbox --pids-max 500 --json "$TMP/pids2.json" -- "$TMP/forkbomb" 200 >"$TMP/bomb2.out" || fail "control bomb"
grep -q 'forked=200 failed=0' "$TMP/bomb2.out" || fail "control: $(cat "$TMP/bomb2.out")"
echo "PASS"
