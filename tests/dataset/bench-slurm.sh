#!/bin/sh
# bench-slurm.sh — `make bench-slurm [N=2000] [SEED=1] [CPUS=2]`: a dataset
# built with `kpy-dataset --slurm --wait` on a single-node Slurm cluster
# started here (tests/dataset/slurmlib.sh), with the default build's
# settings otherwise.  Prints the wall time of the submission through the
# merge job and the SHA-256 of the dataset's files (train, val and test
# JSONL, stats.json, in that order): the figure README quotes.  Needs root,
# slurm-wlm and munge.  Not a test.
set -u
B=${1:?usage: bench-slurm.sh BUILDDIR}
: "${top_srcdir:=$(dirname "$0")/../..}" "${N:=2000}" "${SEED:=1}" "${CPUS:=2}"
[ "$(id -u)" = 0 ] || { echo "bench-slurm: not root: a test cluster's slurmd runs jobs as root" >&2; exit 2; }
. "$top_srcdir/tests/dataset/slurmlib.sh"
T=$(mktemp -d "${TMPDIR:-/tmp}/bench-slurm.XXXXXX") || exit 2
chmod 700 "$T"
trap 'slurm_down "$T/slurm"; rm -rf "$T"' EXIT
slurm_up "$T/slurm" "$CPUS" || { echo "bench-slurm: $slurm_why" >&2; exit 2; }
t0=$(date +%s.%N)
"$B/kpy-dataset" --slurm --wait -o "$T/out" N="$N" SEED="$SEED" >"$T/log" 2>&1 ||
	{ echo "bench-slurm: the build failed:" >&2; tail -20 "$T/log" >&2; exit 1; }
t1=$(date +%s.%N)
n=$(cat "$T/out"/train.jsonl "$T/out"/val.jsonl "$T/out"/test.jsonl 2>/dev/null | wc -l)
h=$(cat "$T/out"/train.jsonl "$T/out"/val.jsonl "$T/out"/test.jsonl "$T/out"/stats.json 2>/dev/null | sha256sum | cut -c1-64)
awk -v n="$N" -v r="$n" -v a="$t0" -v b="$t1" -v c="$CPUS" -v s="$SEED" 'BEGIN {
	printf "bench-slurm: N=%d SEED=%d, %d records, one node of %d CPUs: %.1f s (%.2f records/s)\n", n, s, r, c, b - a, r / (b - a) }'
echo "bench-slurm: sha256 of train+val+test+stats: $h"
grep "job array" "$T/log" | sed 's/^/bench-slurm: /' | cut -c1-200
# what the merge kept: kpack's summary (duplicates and near-duplicates
# removed, records rejected by a check)
grep -h "^kpack: .*records (" "$T/out/slurm/merge.log" 2>/dev/null | sed 's/^/bench-slurm: /' | cut -c1-200
