#!/bin/sh
# Description: a full disk while plotting is an error, not a silent success (issue 14 §3):
# a small run's results are copied onto a tiny tmpfs, which is then filled to within a few
# KiB; `lab plot DIR` must exit 1 naming the file it could not write ("writing `...`: No
# space left on device" or a cut image gnuplot left), must not print its success line, and
# must leave no 0-byte or cut .dat/.gp/.png/.svg/report file behind.  A control run with room
# to spare succeeds and writes every plot.  Needs root for mount(8) (skip otherwise).
set -u
B=${LAB_BUILD:-build}
LAB=$B/bin/lab
T=${LAB_TMP:-$(mktemp -d)}
mkdir -p "$T" || exit 1
[ "$(id -u)" -eq 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: gnuplot not installed (make deps)"; exit 77; }
mnt="$T/small"
mkdir -p "$mnt"
mount -t tmpfs -o size=1024k lab-diskfull "$mnt" || { echo "SKIP: cannot mount a tmpfs here"; exit 77; }
trap 'umount "$mnt" 2>/dev/null' EXIT INT TERM

if ! "$LAB" run spawn --variants pthread --scale 10,20 --out "$T/run" >"$T/run.log" 2>&1; then
  echo "FAIL: the small run failed:"; tail -n 20 "$T/run.log"; exit 1
fi
# A copy without plots or report, on the tmpfs.
mkdir -p "$mnt/res"
cp -r "$T/run/points" "$T/run/meta.json" "$T/run/summary.csv" "$mnt/res/" || { echo "FAIL: copy"; exit 1; }

# Control: with room, `lab plot` writes the plots.
if ! "$LAB" plot "$mnt/res" >"$T/ok.log" 2>&1; then
  echo "FAIL: lab plot with room to spare failed:"; cat "$T/ok.log"; exit 1
fi
ls "$mnt/res/plots/"*.png >/dev/null 2>&1 || { echo "FAIL: control wrote no PNG"; exit 1; }
rm -rf "$mnt/res/plots" "$mnt/res/report.md" "$mnt/res/report.html"

# Fill the tmpfs to within 8 KiB.
dd if=/dev/zero of="$mnt/filler" bs=1k count=100000 2>/dev/null
avail=$(df -k --output=avail "$mnt" | tail -n 1)
rm -f "$mnt/filler"
dd if=/dev/zero of="$mnt/filler" bs=1k count=$(( (1024 - 8) - $(du -sk "$mnt/res" | cut -f1) )) 2>/dev/null
echo "tmpfs: $(df -k --output=avail "$mnt" | tail -n 1) KiB free before plotting (was $avail when full)"

"$LAB" plot "$mnt/res" >"$T/full.log" 2>&1
rc=$?
cat "$T/full.log"
fails=0
[ "$rc" -eq 1 ] || { echo "FAIL: lab plot on a full disk exited $rc, expected 1"; fails=$((fails + 1)); }
grep -q "lab: plots in" "$T/full.log" && { echo "FAIL: lab plot claimed success"; fails=$((fails + 1)); }
grep -Eq "writing \`[^\`]*\`: No space left on device|cut \`[^\`]*\`" "$T/full.log" ||
  { echo "FAIL: the message names no file and no 'No space left'"; fails=$((fails + 1)); }
for f in "$mnt/res/plots/"* "$mnt/res/report.md" "$mnt/res/report.html" "$mnt/res/summary.csv"; do
  [ -e "$f" ] || continue
  case $f in *gnuplot.log) continue ;; esac
  if [ ! -s "$f" ]; then echo "FAIL: 0-byte file left: $f"; fails=$((fails + 1)); fi
  case $f in
    *.png) tail -c 8 "$f" | od -An -c | grep -q 'I   E   N   D' || { echo "FAIL: cut PNG left: $f"; fails=$((fails + 1)); } ;;
    *.svg) grep -q '</svg>' "$f" || { echo "FAIL: cut SVG left: $f"; fails=$((fails + 1)); } ;;
    *.tmp.*) echo "FAIL: temporary file left: $f"; fails=$((fails + 1)) ;;
  esac
done
[ "$fails" -eq 0 ] || exit 1
echo "ok: full disk -> exit 1, no empty or cut file left"
exit 0
