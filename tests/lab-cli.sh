#!/bin/sh
# Description: `lab` command-line contract: --help on every command exits 0; bad use and bad
# input (unknown command, experiment, variant, option, bad or impossible scale, bad repeat,
# missing or malformed profile) exit 2 with a message naming what was wrong; `lab list` names
# every experiment; `lab doctor` reports the cgroup mode and host limits.
set -u
. tests/helpers/cli-check.sh
[ -x "$LAB" ] || { echo "FAIL: $LAB not built"; exit 1; }
for c in doctor list run plot sandbox; do check 0 "usage: lab $c" "$c" --help; done
check 0 "usage: lab COMMAND" --help
check 2 "unknown command \`frobnicate\`" frobnicate
check 2 "unknown experiment \`nosuch\`" run nosuch --out "$T/r"
check 2 "no experiment named" run --out "$T/r"
check 2 "variant \`fibers\`" run spawn --variants fibers --out "$T/r"
check 2 "bad number \`lots\`" run spawn --variants pthread,coro --scale lots --out "$T/r"
check 2 "impossible scale \`0\`" run spawn --variants pthread,coro --scale 0 --out "$T/r"
check 2 "impossible scale \`1000000000000\`" run spawn --variants pthread,coro --scale 1000000000000 --out "$T/r"
check 2 "--repeat" run spawn --repeat 0 --out "$T/r"
check 2 "unknown option \`--bogus\`" run spawn --bogus
check 2 "needs a value" run spawn --variants pthread,coro --scale
check 2 "is not a results directory" plot "$T/nothing-here"
printf '{ "name": "broken",\n  "limits": { "memory.max": \n' > "$T/broken.json"
check 2 "broken.json" run spawn --variants pthread,coro --scale 10 --profile "$T/broken.json" --out "$T/r2"
check 2 "" run spawn --variants pthread,coro --scale 10 --profile "$T/does-not-exist.json" --out "$T/r3"
check 2 "--resume DIR takes no other arguments" run --resume "$T/r" spawn
check 2 "bad number \`0x10\`" run spawn --variants pthread,coro --scale 0x10 --out "$T/r"
check 2 "--timeout" run spawn --timeout nan --out "$T/r"
# A bad profile is reported before a results directory is created.
[ ! -e "$T/r2" ] || { echo "FAIL: a results directory was created for a bad profile"; fails=$((fails + 1)); }
mkdir -p "$T/used" && echo '{}' > "$T/used/meta.json"
check 2 "already holds a run" run spawn --variants pthread,coro --scale 10 --out "$T/used"
check 0 "spawn" list
check 0 "coro" list
"$LAB" doctor >"$T/doctor" 2>&1; rc=$?
for w in "cgroup " "kernel.pid_max" "vm.max_map_count" "RLIMIT_NPROC" "RLIMIT_NOFILE" "RLIMIT_MEMLOCK" "io_uring"; do
  grep -qF "$w" "$T/doctor" || { echo "FAIL: lab doctor lacks $w"; fails=$((fails + 1)); }
done
if [ "$(id -u)" -eq 0 ] && [ "$rc" -ne 0 ]; then echo "FAIL: lab doctor says the lab cannot run as root here:"; cat "$T/doctor"; fails=$((fails + 1)); fi
echo "doctor exit $rc"
[ "$fails" -eq 0 ] || { echo "$fails checks failed"; exit 1; }
