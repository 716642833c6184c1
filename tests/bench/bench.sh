#!/usr/bin/env bash
# tests/bench/bench.sh — `make bench`: issue 16's figures, each against its
# anchor, in one table (tests/bench/table.awk).  A benchmark, not a test.
#
#  codegen  .py -> CUDA C++ forward and backward: kpyc | kopt -p ad,O | kcuda
#           (tests/bench/chain.sh), one process chain per module and one
#           chain over all, then the same chain in one process (kpyc -p ad,O
#           --emit=cuda, no kir text) per module and over all, in kernels
#           per second of CPU time on one core,
#           against Warp's ModuleBuilder + codegen("cuda") on the same
#           modules in one process (tests/bench/warpcodegen.py): the real
#           modules of tests/cuda/bench and tests/warp/kernels, then kgen's
#           random kernels (seed 11, one module each).
#  cold PTX one kernel (tests/ptx/bench/particles.py), forward and forward
#           + backward: the pipe kpyc | kopt | kptx, median CPU time
#           (tests/ptx/coldtime.py), against nvcc -ptx on kcuda's C++;
#           kptx --version alone.
#  CPU      krun against Warp's CPU back end on tests/cuda/bench's forward
#           kernels (tests/cuda/cpubench.py): the geometric means of the
#           median times (their ratio is the geomean of the ratios).
#  GPU      not measured here (make gpu-bench on a GPU).
#
# Environment: B, S (build and source trees, absolute), WARPPY (a Python
# with warp-lang; empty: the Warp columns are left out), NVCC (empty: no
# nvcc column), BENCH_SCALE (default 1: a few minutes on 2 cores; N times
# more repetitions, kgen kernels and CPU launch size), BENCH_TSV (a file
# that receives the table's input lines too).
set -u
: "${B:?}" "${S:?}"
WARPPY=${WARPPY:-}
NVCC=${NVCC:-}
K=${BENCH_SCALE:-1}
case $K in '' | *[!0-9]* | 0) echo "bench: BENCH_SCALE must be a positive integer" >&2; exit 2 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kpy-bench.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
rows=$tmp/rows
: >"$rows"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$rows"; }
say() { echo "bench: $*" >&2; }
LOWER="inline,unroll,fold,cse,dce,scalarize,fold,cse,dce"

# codegen MEASURE REPEAT FILE...: the per-module and one-chain rows
codegen() {
	local what=$1 rep=$2 ok=() f n wk="-" ws="-" per one
	shift 2
	for f in "$@"; do  # the modules kpy's chain accepts (untimed)
		if "$B/kpyc" "$f" 2>/dev/null | "$B/kopt" -p ad,O 2>/dev/null | "$B/kcuda" >/dev/null 2>&1; then
			ok+=("$f")
		else
			say "$what: kpy rejects $f: left out"
		fi
	done
	if [ -n "$WARPPY" ]; then
		if "$WARPPY" "$S/tests/bench/warpcodegen.py" "${ok[@]}" >"$tmp/warp" 2>"$tmp/warp.err"; then
			grep 'rejected' "$tmp/warp.err" | sed "s/^warpcodegen:/bench: $what: Warp rejects/; s/\$/: left out/" >&2
			mapfile -t ok < <(awk '$1 == "ok" { print $2 }' "$tmp/warp")
			set -- $(tail -1 "$tmp/warp")
			wk=$2; ws=$4
		else
			say "$what: warpcodegen.py failed: $(tail -1 "$tmp/warp.err")"
		fi
	fi
	[ ${#ok[@]} -gt 0 ] || { say "$what: no module"; return; }
	n=$("$B/kpyc" "${ok[@]}" 2>/dev/null | grep -c '^kernel @')
	bash "$S/tests/bench/chain.sh" "$B" -r "$rep" "${ok[@]}" >"$tmp/chain" || { say "$what: chain failed"; return; }
	per=$(awk -v n="$n" '$1 == "per" { printf "%.1f", n / ($3 + $4) }' "$tmp/chain")
	one=$(awk -v n="$n" '$1 == "one" { printf "%.1f", n / ($3 + $4) }' "$tmp/chain")
	kper=$(awk -v n="$n" '$1 == "kper" { printf "%.1f", n / ($3 + $4) }' "$tmp/chain")
	kone=$(awk -v n="$n" '$1 == "kone" { printf "%.1f", n / ($3 + $4) }' "$tmp/chain")
	local anchor="-"
	[ "$ws" != "-" ] && anchor=$(awk -v n="$wk" -v t="$ws" 'BEGIN { printf "%.1f", n / t }')
	local wname="Warp ModuleBuilder+codegen"
	[ -n "$WARPPY" ] || wname="Warp: no warp-lang in the test venv"
	row "codegen .py -> CUDA fwd+bwd, $what: ${#ok[@]} modules, $n kernels, chain per module" "$per" "$anchor" "$wname" "/s" "ratio>=30"
	row "codegen .py -> CUDA fwd+bwd, $what: one chain over all" "$one" "$anchor" "$wname" "/s" "ratio>=30"
	row "codegen .py -> CUDA fwd+bwd, $what: kpyc --emit=cuda (one process) per module" "$kper" "$anchor" "$wname" "/s" "ratio>=30"
	row "codegen .py -> CUDA fwd+bwd, $what: kpyc --emit=cuda over all" "$kone" "$anchor" "$wname" "/s" "ratio>=30"
}

say "codegen throughput (real modules)"
codegen "real modules" $((10 * K)) "$S"/tests/cuda/bench/*.py "$S"/tests/warp/kernels/*.py
say "codegen throughput (kgen kernels)"
mkdir -p "$tmp/kgen"
"$B/kgen" --seed 11 --count $((100 * K)) -o "$tmp/kgen/" || exit 1
codegen "kgen seed 11" "$K" "$tmp"/kgen/k*[0-9].py  # not the .harness.py files

say "cold .py -> PTX"
py=$S/tests/ptx/bench/particles.py
nv=()
[ -n "$NVCC" ] && nv=(--nvcc "$NVCC" --include "$S/runtime/include")
cold() {  # cold NAME PASSES [--version]: pipe, nvcc (and kptx --version) rows
	local name=$1 passes=$2 p n v
	shift 2
	if ! "${PYTHON3:-python3}" "$S/tests/ptx/coldtime.py" --bin "$B" --passes "$passes" --runs $((10 * K)) --tsv "$@" \
		"${nv[@]}" "$py" >"$tmp/cold" 2>"$tmp/cold.err"; then
		say "coldtime.py failed: $(tail -1 "$tmp/cold.err")"
		return
	fi
	p=$(awk -F '\t' '$1 == "kpyc | kopt | kptx" { print $5 }' "$tmp/cold")
	n=$(awk -F '\t' '$1 == "nvcc -ptx" { print $5 }' "$tmp/cold")
	local nname="nvcc -ptx on kcuda's .cu"
	[ -n "$NVCC" ] || nname="no nvcc"
	row "cold .py -> PTX, one kernel, $name (kpyc|kopt|kptx, median CPU)" "$p" "${n:--}" "$nname" ms "$([ "$name" = forward ] && echo 'kpy<=20' || echo -)"
	v=$(awk -F '\t' '$1 == "kptx --version" { print $5 }' "$tmp/cold")
	[ -n "$v" ] && row "kptx start-up alone (--version, median CPU)" "$v" - "none" ms -
}
cold forward "$LOWER" --version
cold "fwd+bwd" "inline,ad,$LOWER"

say "CPU kernels, krun vs Warp"
cs=$((32 / K)); [ $cs -ge 1 ] || cs=1
if [ -n "$WARPPY" ] && KPY_INCLUDE="$S/runtime/include" "$WARPPY" "$S/tests/cuda/cpubench.py" --bin "$B" \
	--scale "$cs" --iters $((10 * K)) >"$tmp/cpu" 2>"$tmp/cpu.err"; then
	# module kernel warp_ms krun_ms ratio results
	awk '$3 ~ /^[0-9.]+$/ && $4 ~ /^[0-9.]+$/ && $3 > 0 && $4 > 0 {
		n++; lw += log($3); lk += log($4); if ($6 == "bit-identical") same++
		if ($4 / $3 > worst) { worst = $4 / $3; wn = $2; ww = $3; wk = $4 } }
	END { if (n) {
		printf "CPU kernels, krun vs Warp CPU, geomean of %d (%d bit-identical), 1/%d size\t%.4f\t%.4f\tWarp 1.19 CPU\tms\tratio<=1.0\n", n, same, '"$cs"', exp(lk / n), exp(lw / n)
		printf "CPU kernels, the slowest against Warp: %s\t%.4f\t%.4f\tWarp 1.19 CPU\tms\t-\n", wn, wk, ww } }' "$tmp/cpu" >>"$rows"
else
	[ -n "$WARPPY" ] && say "cpubench.py failed: $(tail -1 "$tmp/cpu.err")"
	row "CPU kernels, krun vs Warp CPU" - - "needs warp-lang in the test venv" ms "ratio<=1.0"
fi
row "GPU streaming kernels vs device-to-device copy" - - "needs a GPU: make gpu-bench" ms -

[ -n "${BENCH_TSV:-}" ] && cp "$rows" "$BENCH_TSV"
echo
echo "make bench (BENCH_SCALE=$K): kpy against its anchors; ratio = kpy / anchor"
awk -f "$S/tests/bench/table.awk" "$rows"
