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
sed -e 's/.*"name":"\([^"]*\)".*"pass":\([a-z]*\).*/\1 \2/' "$KEVAL_GPU_RESULTS/verdicts.jsonl" |
	awk -v v="$KEVAL_GPU_RESULTS/verdicts.jsonl" '{
		want = $1 ~ /^bad-/ ? "false" : "true"; ok = $2 == want
		printf "%-34s %-5s %s\n", $1, $2 == "true" ? "pass" : "FAIL", ok ? "as expected" : "UNEXPECTED"
		n++; good += ok
	} END { printf "keval-gpu-score: %d candidates, %d as expected (verdicts: %s)\n", n, good, v; exit good != n }'
