#!/bin/sh
# Description: without swap on the host, every `pressure` point ends `skipped` with
# "no swap: run lab tune --swap SIZE" (and nothing runs); bad pressure options exit 2.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
[ -x "$LAB" ] || { echo "FAIL: $LAB not built"; exit 1; }
"$LAB" run pressure --scale 10 --opt kib=2 --out "$T/bad" > "$T/out" 2>&1; rc=$?
{ [ $rc -eq 2 ] && grep -q "kib" "$T/out"; } || { echo "FAIL: --opt kib=2 exited $rc"; cat "$T/out"; exit 1; }
if [ "$(awk '/^SwapTotal/ { print $2 }' /proc/meminfo)" != 0 ]; then
  echo "SKIP: the host has swap enabled now, so pressure points run instead of being skipped"; exit 77
fi
"$LAB" run pressure --scale 10 --out "$T/r" > "$T/out" 2>&1 || { echo "FAIL: lab run exited $?"; cat "$T/out"; exit 1; }
rows=$(grep -c '^pressure,' "$T/r/summary.csv")
skipped=$(grep -c '^pressure,[a-z-]*,10,1,skipped,' "$T/r/summary.csv")
[ "$rows" -eq 3 ] && [ "$skipped" -eq 3 ] || { echo "FAIL: $skipped of $rows rows skipped"; cat "$T/r/summary.csv"; exit 1; }
for f in "$T"/r/points/pressure-*.json; do
  grep -q 'no swap: run lab tune --swap SIZE' "$f" || { echo "FAIL: $f lacks the reason"; cat "$f"; exit 1; }
done
ls "$T"/r/points/*.out > /dev/null 2>&1 && { echo "FAIL: a skipped point ran"; exit 1; }
echo "ok: 3 pressure points skipped with the reason"
exit 0
