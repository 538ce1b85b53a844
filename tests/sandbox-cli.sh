#!/bin/sh
# Description: `lab sandbox` as a command: bad use exits 2 naming the flag;
# the command's exit code passes through (7), a killed command gives 128+sig;
# a command the child cannot exec is a harness error (exit 1) that names the
# step; the JSON goes to --json FILE and holds status, figures and cgroup.
. tests/helpers/sandbox-common.sh

expect_usage() { # FLAG-NAME ARGS...
  name=$1; shift
  "$LAB" sandbox "$@" 2>"$TMP/err"; rc=$?
  [ $rc = 2 ] || fail "$*: exit $rc, expected 2"
  grep -q -- "$name" "$TMP/err" || fail "$*: message does not name $name: $(cat "$TMP/err")"
}
expect_usage --pids-max --pids-max abc -- /bin/true
expect_usage --memory-max --memory-max 12Q -- /bin/true
expect_usage --timeout --timeout
expect_usage --bogus --bogus -- /bin/true
expect_usage COMMAND
expect_usage no-such-cmd -- no-such-cmd
"$LAB" sandbox --help | grep -q 'usage: lab sandbox' || fail "--help"

"$LAB" sandbox --json "$TMP/x.json" -- /bin/sh -c 'echo out; echo err >&2; exit 7' >"$TMP/out" 2>"$TMP/err"; rc=$?
[ $rc = 7 ] || fail "exit code: $rc, expected 7"
grep -qx out "$TMP/out" || fail "stdout did not pass through"
grep -qx err "$TMP/err" || fail "stderr did not pass through"
json_has "$TMP/x.json" exit_code 7 || fail "exit_code not in the JSON"
json_has "$TMP/x.json" backend '"v[12]"' || fail "cgroup backend not in the JSON"
grep -q '"mem_peak_bytes":[0-9]' "$TMP/x.json" || fail "no cgroup memory peak"

# A real fault (the workload is pid 1 of its namespace, which ignores a
# SIGSEGV sent by kill from inside it).
printf 'int main (void) { *(volatile int *) 0 = 1; return 0; }\n' >"$TMP/segv.c"
cc -o "$TMP/segv" "$TMP/segv.c" || fail "building segv"
"$LAB" sandbox --json "$TMP/s.json" -- "$TMP/segv"; rc=$?
[ $rc = 139 ] || fail "killed command: exit $rc, expected 139"
json_has "$TMP/s.json" status '"crashed"' || fail "SIGSEGV: status not crashed"
json_has "$TMP/s.json" signal '"SIGSEGV"' || fail "SIGSEGV: signal not named"

printf 'garbage\n' >"$TMP/bad"; chmod +x "$TMP/bad"
"$LAB" sandbox -- "$TMP/bad" 2>"$TMP/err"; rc=$?
[ $rc = 1 ] || fail "exec failure: exit $rc, expected 1"
grep -q "executing .*Exec format error" "$TMP/err" || fail "exec failure not named: $(cat "$TMP/err")"
echo "PASS"
