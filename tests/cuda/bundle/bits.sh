#!/bin/sh
# bits.sh OUTDIR — kptx's results against kcuda's, bit for bit.  one.sh
# leaves every array of each run in OUTDIR/res/M/K.cuda and OUTDIR/res/M/K.ptx
# (the program's --out); this compares the two byte for byte, array by
# array, and writes OUTDIR/bits.txt: a line per kernel that ran on both
# paths, "M K equal" or "M K differ A B ...", the arrays that differ.  Both
# paths are compiled without contraction (nvcc -fmad=false, kptx
# --fmad=off), so a difference is the math library's or the order of float
# atomics (docs/gpu-bundle.md).  Prints the count line.
set -u
out=$1
n=0 eq=0
: >"$out/bits.txt"
for d in "$out"/res/*/*.cuda; do
	[ -d "$d" ] || continue
	p=${d%.cuda}.ptx
	[ -d "$p" ] || continue
	m=$(basename "$(dirname "$d")")
	k=$(basename "$d" .cuda)
	diff=
	for f in "$d"/*.npy; do
		[ -f "$f" ] || continue # a kernel of no arrays
		a=$(basename "$f" .npy)
		cmp -s "$f" "$p/$a.npy" || diff="$diff $a"
	done
	for f in "$p"/*.npy; do
		[ -f "$f" ] || continue
		[ -f "$d/$(basename "$f")" ] || diff="$diff $(basename "$f" .npy)"
	done
	n=$((n + 1))
	if [ -z "$diff" ]; then
		eq=$((eq + 1))
		echo "$m $k equal" >>"$out/bits.txt"
	else
		echo "$m $k differ$diff" >>"$out/bits.txt"
	fi
done
echo "gpu-bundle: kptx equals kcuda bit for bit in $eq of $n kernels (bits.txt)"
