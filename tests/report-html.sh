#!/bin/sh
# Description: report.html in a real browser.  A small run (spawn and switch, two repeats) is
# rendered by headless Chromium (tools/browser/deps.sh installs it; SKIP with the reason where it
# cannot run): the DOM the browser parsed must hold the headline table, a verdict for every claim,
# one section per experiment with its table and every plot of plots/plots.json as an <img>; every
# image and link in it must resolve to a non-empty file of the results directory (PNGs that are
# PNGs, SVGs that are SVG), none may leave the directory (no network), and the page has no script.
# A full-page screenshot is kept as $LAB_TMP/report-html/screenshot.png.
set -u
LAB=${LAB_BUILD:-build}/bin/lab
T=${LAB_TMP:-$(mktemp -d)}/report-html
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the sandbox needs root"; exit 77; }
command -v gnuplot >/dev/null 2>&1 || { echo "SKIP: no gnuplot, so no plots to check (make deps)"; exit 77; }
sh "$(dirname "$0")/../tools/browser/deps.sh" || exit $?
rm -rf "$T"; mkdir -p "$T"
R="$T/run"
"$LAB" run spawn switch --scale 1000,10000 --repeat 2 --out "$R" > "$T/run.log" 2>&1 || fail "lab run: $(cat "$T/run.log")"
[ -s "$R/report.html" ] || fail "no report.html beside report.md"

# The browser, isolated: its own profile directory, no session bus, nothing fetched.
browse() {
  DBUS_SESSION_BUS_ADDRESS=disabled: timeout 180 chromium --headless=new --no-sandbox --disable-gpu \
    --disable-dev-shm-usage --no-first-run --disable-extensions --disable-background-networking --disable-sync \
    --disable-component-update --user-data-dir="$T/profile" --hide-scrollbars "$@" "file://$R/report.html" \
    2>> "$T/chromium.err"
}
browse --dump-dom > "$T/dom.html" || { echo "SKIP: chromium cannot run here: $(tail -n 3 "$T/chromium.err")"; exit 77; }
grep -q '<h1>Lab report</h1>' "$T/dom.html" || fail "the browser did not render the report: $(head -c 300 "$T/dom.html")"
browse --window-size=1280,6000 --screenshot="$T/screenshot.png" > /dev/null || fail "no screenshot"
head -c 8 "$T/screenshot.png" | od -c | grep -q 'P   N   G' || fail "screenshot is not a PNG"
[ "$(wc -c < "$T/screenshot.png")" -gt 50000 ] || fail "screenshot is nearly empty"
echo "screenshot: $T/screenshot.png"

grep -qi '<script' "$R/report.html" && fail "report.html has a script"
grep -q 'id="headlines"' "$T/dom.html" || fail "no headline table"
grep -q '<a href="#exp-spawn">spawn</a></td><td class="num">10000</td>' "$T/dom.html" || fail "headline lacks spawn at n=10000"
for c in C1 C2 C3; do
  grep -q "<b>$c</b></td><td>.*</td><td><span class=\"v [a-z]*\">\(holds\|fails\|within noise\|not tested here\)</span>" "$T/dom.html" \
    || fail "claim $c has no verdict"
done
grep -q 'id="exp-spawn"' "$T/dom.html" && grep -q 'id="exp-switch"' "$T/dom.html" || fail "an experiment has no section"
grep -q '<td>coro</td><td class="num">10000</td><td class="st-ok"' "$T/dom.html" || fail "spawn table lacks coro n=10000 ok"
grep -q 'id="statuses"' "$T/dom.html" || fail "no status table"

# Every plot in plots.json is an image of the page.
n_plots=$(grep -c '"stem":' "$R/plots/plots.json")
n_imgs=$(grep -o '<img [^>]*src="plots/[^"]*\.png"' "$T/dom.html" | wc -l)
[ "$n_plots" -ge 8 ] || fail "only $n_plots plots for spawn and switch"
[ "$n_imgs" = "$n_plots" ] || fail "$n_imgs images in the page, $n_plots plots in plots.json"

# Every src and href resolves inside the results directory.
grep -o '\(src\|href\)="[^"]*"' "$T/dom.html" | sed 's/^[a-z]*="//; s/"$//' | sort -u > "$T/urls"
[ "$(wc -l < "$T/urls")" -gt 20 ] || fail "too few links: $(cat "$T/urls")"
while read -r u; do
  case "$u" in
    \#*) id=${u#\#}; grep -q "id=\"$id\"" "$T/dom.html" || fail "anchor $u has no target" ;;
    *:*) fail "link leaves the results directory: $u" ;;
    /*|*..*) fail "link not relative to the results directory: $u" ;;
    *) [ -f "$R/$u" ] || fail "broken link or image: $u"
       case "$u" in
         *.out|*.err) ;;   # a workload's stdout/stderr may be empty
         *) [ -s "$R/$u" ] || fail "empty file behind link or image: $u" ;;
       esac
       case "$u" in
         *.png) head -c 8 "$R/$u" | od -c | grep -q 'P   N   G' || fail "$u is not a PNG" ;;
         *.svg) grep -q '<svg' "$R/$u" || fail "$u is not SVG" ;;
       esac ;;
  esac
done < "$T/urls"
for f in summary.csv meta.json report.md points/spawn-coro-n1000-r1.json; do
  grep -qx "$f" "$T/urls" || fail "no link to $f"
done
echo "PASS ($(wc -l < "$T/urls") links and images checked, $n_imgs plots)"
