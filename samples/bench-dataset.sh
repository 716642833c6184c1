#!/usr/bin/env bash
# samples/bench-dataset.sh BUILD-DIR — the dataset build's figures (a
# benchmark, not a test):
#  1. kernels/second through kpyc | kopt -p ad,O | kcuda alone (no external
#     compiler), single core: per kernel (one process chain each) and batched
#     (all modules in one chain);
#  2. verified records/second of the full build (make dataset -j2) and where
#     the time goes: CPU seconds per record, per stage, from the shards'
#     timing files.
# NVCC and PTXAS, when set (empty included: `make bench-dataset NVCC= PTXAS=`),
# go to make dataset; BENCH_CHAIN=0 skips part 1.
set -eu
B=$(cd "$1" && pwd)
N=${BENCH_N:-1000}
M=${BENCH_DATASET_N:-200}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/py"
"$B/kgen" --seed 11 --count "$N" -o "$tmp/py/"
now() { date +%s.%N; }
# CPU seconds (user+system) of the chains: the figure that does not depend on
# what else the machine runs; wall time is shown too (tests/bench/chain.sh).
if [ "${BENCH_CHAIN:-1}" != 0 ]; then
chain=$(bash "$(dirname "$0")/../tests/bench/chain.sh" "$B" "$tmp"/py/k*[0-9].py)  # not the .harness.py files
echo "$chain" | awk -v n="$N" '{ w[$1] = $2; c[$1] = $3 + $4 } END {
	printf "kpyc|kopt -p ad,O|kcuda on one core, %d kernels:\n", n
	printf "  one process chain per kernel: %.0f kernels/s of CPU time (%.0f/s wall)\n", n / c["per"], n / w["per"]
	printf "  all kernels in one chain:      %.0f kernels/s of CPU time (%.0f/s wall)\n", n / c["one"], n / w["one"] }'
# the same chain in one process (kshard: every kernel also through kptx,
# each in a child forked from kshard), one core
mkdir -p "$tmp/ks"
cp -R "$tmp/py" "$tmp/ks/py"
/usr/bin/time -o "$tmp/ks.time" -f "%e %U %S" taskset -c 0 "$B/kshard" "$tmp/ks" 2>/dev/null
ks=$(tail -1 "$tmp/ks.time")
echo "$ks" | awk -v n="$N" '{
	printf "  kshard, in one process, with kptx too: %.0f kernels/s of CPU time (%.0f/s wall)\n", n / ($2 + $3), n / $1 }'
fi
tools=()
[ -n "${NVCC+set}" ] && tools+=(NVCC="$NVCC")
[ -n "${PTXAS+set}" ] && tools+=(PTXAS="$PTXAS")
out="$tmp/ds"
# a cache of its own: every C++ build is made and counted
export KPY_CACHE="$tmp/cache"
t3=$(now)
/usr/bin/time -o "$tmp/ds.time" -f "%U %S" make -s -C "$B" -j2 dataset N="$M" SHARD=50 SEED=11 OUT="$out" ${tools[@]+"${tools[@]}"} \
	>"$tmp/ds.log" 2>&1 || { cat "$tmp/ds.log"; exit 1; }
cpu=$(tail -1 "$tmp/ds.time")
t4=$(now)
recs=$(cat "$out"/train.jsonl "$out"/val.jsonl "$out"/test.jsonl | wc -l)
awk -v n="$M" -v r="$recs" -v a="$t3" -v b="$t4" -v cpu="$cpu" -v nvcc="${NVCC-configured}" -v ptxas="${PTXAS-configured}" 'BEGIN {
	split(cpu, c, " ")
	printf "full build (make dataset -j2, N=%d, NVCC=%s PTXAS=%s): %d verified records in %.1f s, %.2f records/s;\n", n, nvcc, ptxas, r, b - a, r / (b - a)
	printf "  %.4f s of CPU (user+sys) per record: %.1f records/s on 2 cores at full use\n", (c[1] + c[2]) / r, 2 * r / (c[1] + c[2])
	printf "  (user %.4f s, system %.4f s per record)\n", c[1] / r, c[2] / r }'
echo "CPU time per stage (user+sys, summed over shards; per verified record):"
cat "$out"/timing/* | awk -v r="$recs" '{ t[$1] += $2 / 1e9; all += $2 / 1e9 } END {
	for (k in t) printf "  %-13s %7.2f s  %7.4f s/record  %5.1f%%\n", k, t[k], t[k] / r, 100 * t[k] / all
	printf "  %-13s %7.2f s  %7.4f s/record\n", "(all stages)", all, all / r }' | sort -k2 -rn
