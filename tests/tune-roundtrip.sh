#!/bin/sh
# Description: `lab tune --apply` then `--undo` leaves every host setting exactly as it was
# (pid_max, threads-max, max_map_count, overcommit, THP, /proc/swaps); --apply really sets the
# computed values; --swap creates and enables a swap file that --undo swapoffs and deletes; a
# state file from an interrupted --swap (file recorded, never created) still undoes cleanly; a
# second --apply keeps the host's original values; --swap on tmpfs is refused naming tmpfs.
# The test restores the settings itself on any exit (trap), from its own snapshot.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
ST="$T/tune-state.json"
fails=0
[ -x "$LAB" ] || { echo "FAIL: $LAB not built"; exit 1; }
[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (lab tune --apply changes host settings)"; exit 77; }
FILES="/proc/sys/kernel/pid_max /proc/sys/kernel/threads-max /proc/sys/vm/max_map_count /proc/sys/vm/overcommit_memory"
snap() { for f in $FILES; do printf '%s %s\n' "$f" "$(cat "$f")"; done; cat /sys/kernel/mm/transparent_hugepage/enabled; cat /proc/swaps; }
snap > "$T/before"
restore() { # the test's own safety net: whatever lab did, put the snapshot back
  "$LAB" tune --undo --state "$ST" > /dev/null 2>&1
  while read -r f v; do case $f in /proc/*) [ "$(cat "$f")" = "$v" ] || echo "$v" > "$f";; esac; done < "$T/before"
  for s in "$T"/swapdir/*.swap; do [ -e "$s" ] && { swapoff "$s" 2> /dev/null; rm -f "$s"; }; done
}
trap restore EXIT INT TERM
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# Pick a scale that needs more than the host has now, so --apply must change something.
pid_now=$(cat /proc/sys/kernel/pid_max); map_now=$(cat /proc/sys/vm/max_map_count)
n=$(( (pid_now > map_now / 2 ? pid_now : map_now / 2) + 50000 ))
timeout 60 "$LAB" tune memory --scale "$n" --apply --state "$ST" > "$T/apply" 2>&1 || { fail "apply exited $?"; cat "$T/apply"; }
pid_set=$(cat /proc/sys/kernel/pid_max); map_set=$(cat /proc/sys/vm/max_map_count)
[ "$pid_set" -ge "$n" ] || fail "pid_max $pid_set after --apply for $n tasks"
[ "$map_set" -ge $((2 * n)) ] || fail "max_map_count $map_set after --apply for $n tasks"
grep -q "\"old\":\"$pid_now\"" "$ST" 2> /dev/null || grep -q "\"old\": *\"$pid_now\"" "$ST" || fail "state file lacks pid_max's old value $pid_now"
# A second --apply (bigger) must keep the host's original value as "old".
timeout 60 "$LAB" tune memory --scale $((n + 100000)) --apply --state "$ST" > /dev/null 2>&1 || fail "second apply exited $?"
tr -d ' \n' < "$ST" | grep -q "\"kernel.pid_max\":{\"path\":\"/proc/sys/kernel/pid_max\",\"old\":\"$pid_now\"" \
  || { fail "second --apply overwrote the saved old pid_max"; cat "$ST"; }

mkdir -p "$T/swapdir"
if [ "$(stat -f -c %T "$T/swapdir")" = tmpfs ]; then
  echo "note: \$LAB_TMP is on tmpfs: the swap round trip is not tried here"
else
  timeout 60 "$LAB" tune --swap 16M --swap-dir "$T/swapdir" --state "$ST" > "$T/swap" 2>&1 || { fail "--swap exited $?"; cat "$T/swap"; }
  grep -q "$T/swapdir/lab-swap-1.swap" /proc/swaps || fail "swap file not in /proc/swaps"
fi
# An interrupted --swap: recorded in the state file, never created.
tr -d '\n' < "$ST" | sed "s#\"swap_files\":\[#&{\"path\":\"$T/swapdir/never-made.swap\",\"bytes\":1},#" > "$ST.new"
grep -q never-made "$ST.new" || sed 's#}$#,"swap_files":[{"path":"'"$T"'/swapdir/never-made.swap","bytes":1}]}#' "$ST" | tr -d '\n' > "$ST.new"
mv "$ST.new" "$ST"

timeout 60 "$LAB" tune --undo --state "$ST" > "$T/undo" 2>&1 || { fail "undo exited $?"; cat "$T/undo"; }
[ -e "$ST" ] && fail "state file still there after --undo"
ls "$T"/swapdir/*.swap > /dev/null 2>&1 && fail "swap file left after --undo"
snap > "$T/after"
if ! cmp -s "$T/before" "$T/after"; then fail "settings differ after --undo:"; diff "$T/before" "$T/after"; else echo "ok: every setting as before"; fi
"$LAB" tune --undo --state "$ST" | grep -q "nothing to undo" || fail "a second --undo should have nothing to undo"

# tmpfs cannot hold a swap file: refused before anything is created.
if [ -d /dev/shm ] && [ "$(stat -f -c %T /dev/shm)" = tmpfs ]; then
  "$LAB" tune --swap 16M --swap-dir /dev/shm --state "$ST" > "$T/out" 2>&1; rc=$?
  { [ $rc -eq 2 ] && grep -q "tmpfs" "$T/out"; } || { fail "--swap on tmpfs exited $rc"; cat "$T/out"; }
  [ -e "$ST" ] && fail "refused --swap left a state file"
  ls /dev/shm/lab-swap-*.swap > /dev/null 2>&1 && fail "refused --swap left a file in /dev/shm"
fi
[ $fails -eq 0 ] || exit 1
echo "ok: apply/undo round trip"
exit 0
