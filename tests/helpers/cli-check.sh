# cli-check.sh - sourced by the command-line contract tests (lab-cli.sh,
# tune-cli.sh): LAB, T, a fails counter, and check().
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
fails=0
# check EXPECTED-EXIT "message substring" ARGS...: runs `lab ARGS`, counts a
# failure when the exit differs or the output lacks the substring ("" = any).
check() {
  want=$1; msg=$2; shift 2
  "$LAB" "$@" >"$T/out" 2>&1; rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: lab $* exited $rc, expected $want"; cat "$T/out"; fails=$((fails + 1)); return
  fi
  if [ -n "$msg" ] && ! grep -qF -- "$msg" "$T/out"; then
    echo "FAIL: lab $*: output lacks \`$msg\`:"; cat "$T/out"; fails=$((fails + 1)); return
  fi
  echo "ok: lab $* -> $rc"
}
