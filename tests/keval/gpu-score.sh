#!/bin/sh
# gpu-score.sh — make keval-gpu-score KEVAL_GPU=dir KEVAL_GPU_RESULTS=dir:
# keval --score on what DIR/run.sh wrote, the verdicts in
# RESULTS/verdicts.jsonl, and a line per candidate: a ref-* candidate
# should pass, a bad-* one fail.  Exit 1 when one does not.
set -u
: "${top_builddir:?}" "${KEVAL_GPU:=keval-gpu}" "${KEVAL_GPU_RESULTS:?KEVAL_GPU_RESULTS=the folder run.sh wrote}"
B=$top_builddir
"$B/keval" --record "$KEVAL_GPU.records.jsonl" --score "$KEVAL_GPU" --results "$KEVAL_GPU_RESULTS" \
	-o "$KEVAL_GPU_RESULTS/verdicts.jsonl"
rc=$?
[ "$rc" -le 1 ] || { echo "keval-gpu-score: keval exited $rc" >&2; exit 2; }
grep -m1 '^# GPU' "$KEVAL_GPU_RESULTS/device.txt" 2>/dev/null
awk -v v="$KEVAL_GPU_RESULTS/verdicts.jsonl" '
	function field(re, n) { if (!match($0, re)) return "-"; return substr($0, RSTART + n, RLENGTH - n - 1) }
	{
		name = field("\"name\":\"[^\"]*\"", 8); tgt = field("\"target\":\"[^\"]*\"", 10)
		pass = $0 ~ /"pass":true,"wall_s"/; want = name !~ /^bad-/; ok = pass == want
		tp = field("\"trials_passed\":[0-9]*,", 16); tj = field("\"trials_judged\":[0-9]*,", 16)
		err = field("\"error\":\"[^\"]*\"", 9)
		printf "%-30s %-4s %-4s trials %s/%s %-10s %s\n", name, tgt, pass ? "pass" : "FAIL", tp, tj,
		       ok ? "expected" : "UNEXPECTED", pass ? "" : err
		n++; good += ok
	} END { printf "keval-gpu-score: %d candidates, %d as expected (verdicts: %s)\n", n, good, v; exit good != n }' \
	"$KEVAL_GPU_RESULTS/verdicts.jsonl"
