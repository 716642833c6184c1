#!/bin/sh
# make bench-keval [BENCH_N=10]: keval's time per candidate on BENCH_N kgen
# records (one per category in turn), cpp and python targets, one process at
# a time, once the references are in krun's cache (a training loop builds
# each once); the cpp figure is set against the candidate's compile time,
# which keval measures.  Not a test.
top_builddir=$1 top_srcdir=$2 N=${3:-10}
export top_builddir top_srcdir
. "$top_srcdir/tests/keval/common.sh"
cats=$("$B/kgen" --list 2>/dev/null | awk '{print $1}' | head -"$N")
[ -n "$cats" ] || { echo "bench-keval: kgen --list gave no categories" >&2; exit 1; }
# shellcheck disable=SC2086
mkrecords 1 $cats || { echo "bench-keval: could not make the records" >&2; exit 1; }
n=$(ls "$R"/rec*.json | wc -l)
: >"$TMPD/cpp.v"; : >"$TMPD/py.v"
# warm up: the references' modules are built once per record (krun's cache)
i=0; while [ $i -lt "$n" ]; do "$B/keval" --record "$R/rec$i.json" "$R/$i/fwd.cpp" >/dev/null; i=$((i + 1)); done
t0=$(date +%s.%N)
i=0; while [ $i -lt "$n" ]; do "$B/keval" --record "$R/rec$i.json" "$R/$i/fwd.cpp" >>"$TMPD/cpp.v"; i=$((i + 1)); done
t1=$(date +%s.%N)
i=0; while [ $i -lt "$n" ]; do "$B/keval" --record "$R/rec$i.json" --target python "$R/$i/kernel.py" >>"$TMPD/py.v"; i=$((i + 1)); done
t2=$(date +%s.%N)
sum() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" "$2" | awk '{ s += $1 } END { printf "%.3f", s }'; }
passes() { grep -c '"pass":true}$\|"pass":true,' "$1"; }
awk -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v cc="$(sum compile_s "$TMPD/cpp.v")" \
    -v pc="$(passes "$TMPD/cpp.v")" -v pp="$(passes "$TMPD/py.v")" 'BEGIN {
	printf "keval, %d records, one process at a time:\n", n
	printf "  cpp:    %d/%d pass, %.2f s per candidate, of which the candidate'"'"'s compile %.2f s (%.2fx its compile)\n", pc, n, (t1 - t0) / n, cc / n, (t1 - t0) / cc
	printf "  python: %d/%d pass, %.2f s per candidate, %.2f candidates/s\n", pp, n, (t2 - t1) / n, n / (t2 - t1)
}'
