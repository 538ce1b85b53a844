#!/bin/sh
# Description: a skipped C test reaches the runner as a skip.  A cmocka file
# written as the lab's tests are (plain skip(), `return cmocka_run_group_tests`)
# and built with tests/lab-test.h exits 77 and prints "SKIP: <reason>" when a
# test skipped, 0 when none did; tests/run.sh then counts it as skipped, not
# passed.  (cmocka alone exits 0 on a skip: the runner printed PASS.)
BUILD=${LAB_BUILD:-build}
TMP=${LAB_TMP:-$(mktemp -d)}
fail() { echo "FAIL: $*"; exit 1; }
[ -f "$BUILD/libharness.a" ] || { echo "SKIP: $BUILD/libharness.a not built"; exit 77; }
${CC:-cc} -std=gnu11 -D_GNU_SOURCE -Iharness -Itests -o "$TMP/skip-probe" tests/helpers/skip-probe.c \
  "$BUILD/libharness.a" $(pkg-config --libs cmocka json-c libseccomp 2>/dev/null || echo -lcmocka) \
  || fail "building the probe"

"$TMP/skip-probe" skip >"$TMP/skip.out" 2>&1; rc=$?
cat "$TMP/skip.out"
[ $rc = 77 ] || fail "a skipped test: exit $rc, expected 77"
grep -q '^SKIP: 1 test skipped: ' "$TMP/skip.out" || fail "no SKIP line with the reason"
grep -q 'skip-probe.c:' "$TMP/skip.out" || fail "the reason does not say where"

"$TMP/skip-probe" >"$TMP/pass.out" 2>&1; rc=$?
[ $rc = 0 ] || { cat "$TMP/pass.out"; fail "no test skipped: exit $rc, expected 0"; }

# The runner: a build directory holding only the probe, run as a C test.
mkdir -p "$TMP/fake/tests"
printf '#!/bin/sh\nexec "%s" skip\n' "$TMP/skip-probe" > "$TMP/fake/tests/skipper"
chmod +x "$TMP/fake/tests/skipper"
# Only the C tests of the fake build: a copy of the runner without the shell-test loop.
sed '/^if \[ -z "\$ONLY" \]; then/,/^fi$/d' tests/run.sh > "$TMP/run-c.sh"
(cd "$TMP" && mkdir -p tests && cp run-c.sh tests/run.sh && LAB_TMP= sh tests/run.sh "$TMP/fake") >"$TMP/runner.out" 2>&1
cat "$TMP/runner.out"
grep -q '^SKIP  skipper .*SKIP: 1 test skipped' "$TMP/runner.out" || fail "the runner did not print SKIP with the reason"
grep -q '^0 passed, 0 failed, 1 skipped$' "$TMP/runner.out" || fail "the runner did not count a skip"
echo "ok: skip -> 77 with its reason, counted as skipped"
