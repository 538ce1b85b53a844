#!/bin/sh
# run.sh - builds the libFuzzer targets and fuzzes each for a bounded time.
#
#   sh tools/fuzz/run.sh [SECONDS] [OUTDIR]      (make fuzz: FUZZ_SECONDS, default 60)
#
# Targets (tests/fuzz/*.c, see tests/fuzz/common.h): `profile` (containers/*.json
# loader) and `seccomp` (Docker-format seccomp profile loader).  Each is built
# with clang -fsanitize=fuzzer,address,undefined and linked with the harness
# library built the same way, seeded with containers/*.json (profile) or seccomp/*.json plus the
# inputs under tests/fuzz-regress/TARGET/, and given a dictionary of every
# quoted string in the seeds (field names, actions, syscall names).  One input
# may take at most 10 s (a hang) and 2 GiB.
#
# A crash, sanitizer report or hang is copied to tests/fuzz-regress/TARGET/
# (named after its hash), where tests/fuzz-regress.c replays it on every
# `make test`; the run then fails.  With FUZZ_SAVE=0 (the test does this) it
# stays in OUTDIR/findings-TARGET/ and the source tree is not touched.  Prints per target the executions and the
# findings.  Exit 0 clean, 1 findings or build error, 77 (SKIP) no clang/libFuzzer.
set -u
SECONDS_PER=${1:-${FUZZ_SECONDS:-60}}
OUT=${2:-build-fuzz}
cd "$(dirname "$0")/../.." || exit 1
sh tools/fuzz/deps.sh || exit $?
CC=clang
for v in clang-14 clang; do command -v $v >/dev/null 2>&1 && { CC=$v; break; }; done

mkdir -p "$OUT" || exit 1
printf 'int main(void){return 0;}\n' > "$OUT/probe.c"
if ! $CC -fsanitize=fuzzer -c "$OUT/probe.c" -o "$OUT/probe.o" 2>/dev/null; then
  echo "SKIP: $CC cannot build with -fsanitize=fuzzer (install libfuzzer-14-dev)"; exit 77
fi
# The harness library, instrumented, through the Makefile (so the targets link
# whatever the parsers call); kept in FUZZ_LIB (default build-fuzz/lib) between
# runs.  -Wno-error: the gcc build is the -Werror one.
LIB=${FUZZ_LIB:-build-fuzz/lib}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fsanitize=fuzzer-no-link"
if ! make -s -j2 BUILD="$LIB" CC="$CC" OPT=-O1 SAN="$SAN" EXTRA_CFLAGS="-Wno-error -w" "$LIB/libharness.a" \
     >"$OUT/build-lib.log" 2>&1; then
  echo "fuzz: building the instrumented harness library failed:"; tail -n 30 "$OUT/build-lib.log"; exit 1
fi
PKGS="liburing libseccomp json-c"
CFLAGS="-std=gnu11 -O1 -g -D_GNU_SOURCE -DLAB_FUZZ_MAIN -Iharness -Iexperiments/common \
  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer \
  $(pkg-config --cflags $PKGS)"
LIBS="$LIB/libharness.a $(pkg-config --libs $PKGS) -lm -pthread"

status=0
summary=""
for target in profile seccomp; do
  case $target in
    profile) seeds=containers ;;
    seccomp) seeds=seccomp ;;
  esac
  bin="$OUT/fuzz-$target"
  # shellcheck disable=SC2086
  if ! $CC $CFLAGS -o "$bin" "tests/fuzz/$target.c" $LIBS 2>"$OUT/build-$target.log"; then
    echo "fuzz: building $target failed:"; cat "$OUT/build-$target.log"; exit 1
  fi
  corpus="$OUT/corpus-$target"
  findings="$OUT/findings-$target"
  rm -rf "$findings"
  mkdir -p "$corpus" "$findings"
  cp $seeds/*.json "$corpus"/ 2>/dev/null
  cp tests/fuzz-regress/$target/* "$corpus"/ 2>/dev/null
  # Dictionary: every quoted string of the seeds, once.
  cat $seeds/*.json | grep -o '"[A-Za-z0-9_.:/-]*"' | sort -u | grep -v '^""$' > "$OUT/$target.dict"
  echo "fuzz: $target for ${SECONDS_PER}s ($bin)"
  LAB_TMP="$OUT" "$bin" -max_total_time="$SECONDS_PER" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$OUT/$target.dict" -artifact_prefix="$findings/" -print_final_stats=1 \
    "$corpus" >"$OUT/fuzz-$target.log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$OUT/fuzz-$target.log" | grep -o '[0-9]*$' | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$OUT/fuzz-$target.log" | tail -n 1)
  n=0
  for f in "$findings"/*; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    dest="$f"
    if [ "${FUZZ_SAVE:-1}" = 1 ]; then
      dest="tests/fuzz-regress/$target/$(basename "$f")"
      cp "$f" "$dest"
    fi
    echo "fuzz: $target: FINDING $(basename "$f") -> $dest"
  done
  if [ "$n" -gt 0 ] || { [ "$rc" -ne 0 ] && [ -z "$execs" ]; }; then
    status=1
    grep -E 'ERROR|SUMMARY|abort|bad input|failed|does not' "$OUT/fuzz-$target.log" | head -n 20
  fi
  summary="$summary
fuzz: $target: ${execs:-?} executions in ${SECONDS_PER}s, ${cov:-cov ?}, corpus $(ls "$corpus" | wc -l) inputs, $n finding(s)"
done
echo "$summary"
exit $status
