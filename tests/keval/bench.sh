#!/bin/sh
# make bench-keval [BENCH_N=10]: keval's time per candidate on BENCH_N kgen
# records (one per category in turn), cpp and python targets, one process at
# a time, once the references are in krun's cache (a training loop builds
# each once); the cpp figure is set against the candidate's compile time,
# which keval measures; then the python target in one batch (--batch -j 1:
# BENCH_REPS candidates per record, default 5), as a training loop scores
# many candidates of a record.  Figures per candidate: wall time, and the
# CPU time of keval and its children (the shell's times; on a loaded
# machine that is the figure to quote: taskset -c 0 make bench-keval).
# Not a test.
top_builddir=$1 top_srcdir=$2 N=${3:-10} REPS=${BENCH_REPS:-5}
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
# cpu FILE: the CPU seconds of the children so far (times' second line:
# user, system), as times wrote them to FILE in this shell
cpu() { awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, a, "m"); s += a[1] * 60 + a[2] } } END { printf "%.3f", s }' "$1"; }
t0=$(date +%s.%N)
i=0; while [ $i -lt "$n" ]; do "$B/keval" --record "$R/rec$i.json" "$R/$i/fwd.cpp" >>"$TMPD/cpp.v"; i=$((i + 1)); done
t1=$(date +%s.%N); times >"$TMPD/c1"
i=0; while [ $i -lt "$n" ]; do "$B/keval" --record "$R/rec$i.json" --target python "$R/$i/kernel.py" >>"$TMPD/py.v"; i=$((i + 1)); done
t2=$(date +%s.%N); times >"$TMPD/c2"
# the batch: REPS tasks per record, the records' lines in one file
: >"$TMPD/records.jsonl"; : >"$TMPD/tasks.jsonl"
i=0; while [ $i -lt "$n" ]; do tr -d '\n' <"$R/rec$i.json" >>"$TMPD/records.jsonl"; echo >>"$TMPD/records.jsonl"; i=$((i + 1)); done
k=0; while [ $k -lt "$REPS" ]; do
	i=0; while [ $i -lt "$n" ]; do
		id=$(sed -n 's/^{"id":"\([^"]*\)".*/\1/p' "$R/rec$i.json" | head -1)
		printf '{"id":"%s","target":"python","candidate":%s}\n' "$id" "$(jstr "$R/$i/kernel.py")" >>"$TMPD/tasks.jsonl"
		i=$((i + 1))
	done
	k=$((k + 1))
done
nb=$((n * REPS))
t2b=$(date +%s.%N); times >"$TMPD/c2b"
"$B/keval" --record "$TMPD/records.jsonl" --batch "$TMPD/tasks.jsonl" -j 1 >"$TMPD/batch.v"
t3=$(date +%s.%N); times >"$TMPD/c3"
sum() { sed -n "s/.*\"$1\":\([0-9.e+-]*\).*/\1/p" "$2" | awk '{ s += $1 } END { printf "%.3f", s }'; }
passes() { grep -c '"pass":true}$\|"pass":true,' "$1"; }
awk -v n="$n" -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v c1="$(cpu "$TMPD/c1")" -v c2="$(cpu "$TMPD/c2")" -v c3="$(cpu "$TMPD/c3")" -v t2b="$t2b" -v c2b="$(cpu "$TMPD/c2b")" -v nb="$nb" \
    -v cc="$(sum compile_s "$TMPD/cpp.v")" -v pc="$(passes "$TMPD/cpp.v")" -v pp="$(passes "$TMPD/py.v")" \
    -v pb="$(grep -c '"pass":true,"wall_s"' "$TMPD/batch.v")" 'BEGIN {
	printf "keval, %d records, one process at a time:\n", n
	printf "  cpp:    %d/%d pass, %.2f s per candidate, of which the candidate'"'"'s compile %.2f s (%.2fx its compile)\n", pc, n, (t1 - t0) / n, cc / n, (t1 - t0) / cc
	printf "  python: %d/%d pass, %.2f s per candidate, %.2f candidates/s; CPU %.1f ms per candidate, %.1f candidates/s\n", pp, n, (t2 - t1) / n, n / (t2 - t1), 1e3 * (c2 - c1) / n, n / (c2 - c1)
	printf "  python, one batch (-j 1, %d candidates, %d per record): %d/%d pass, %.1f candidates/s; CPU %.1f ms per candidate, %.1f candidates/s\n", nb, nb / n, pb, nb, nb / (t3 - t2b), 1e3 * (c3 - c2b) / nb, nb / (c3 - c2b)
}'
