#!/usr/bin/env bash
# bench-scaling.sh BUILDDIR — is every tool's time linear in its input?
#
# Generates two families of Warp modules and times kpyc, kopt (-O), kcpu and
# kcuda on each (one run per tool and size; CPU seconds, user + system, so
# that other load on the machine matters less):
#   chain N    one kernel whose body is N chained operations (x = x * c + d,
#              two ops a line), N = 10k, 20k, 40k;
#   locals N   one kernel with N local variables, each assigned once from
#              the previous one (vK = vJ * s + c), N = 10k, 20k, 40k;
#   warnings N one kernel of N loops with an else clause, a warning each
#              (diagnostics find their source line), N = 4k, 8k, 16k;
#   kernels N  one module of N small kernels, N = 250, 500, 1000.
# Prints seconds per size and the ratio to the previous size: doubling the
# input should about double the time (ratio ~2; ~4 means quadratic).
# Not part of make check (timings depend on the machine); run it with
# `make bench-scaling`.  CHAIN_SIZES, LOCAL_SIZES, WARNING_SIZES and
# KERNEL_SIZES override the sizes, TOOLS the tools timed.
set -eu
b=${1:-.}
for t in kpyc kopt kcpu kcuda; do
	[ -x "$b/$t" ] || { echo "bench-scaling: $b/$t not built" >&2; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

gen_chain() { # N ops
	awk -v n="$1" 'BEGIN {
		print "import warp as wp"
		print ""
		print "@wp.kernel"
		print "def chain(a: wp.array(dtype=float), s: float):"
		print "    i = wp.tid()"
		print "    x = a[i]"
		for (k = 0; k < n / 2; k++)
			printf "    x = x * s + %d.5\n", k % 97
		print "    a[i] = x"
	}'
}

gen_locals() { # N locals
	awk -v n="$1" 'BEGIN {
		print "import warp as wp"
		print ""
		print "@wp.kernel"
		print "def locals_(a: wp.array(dtype=float), s: float):"
		print "    i = wp.tid()"
		print "    v0 = a[i]"
		for (k = 1; k < n; k++)
			printf "    v%d = v%d * s + %d.5\n", k, k - 1, k % 97
		printf "    a[i] = v%d\n", n - 1
	}'
}

gen_warnings() { # N for/else loops
	awk -v n="$1" 'BEGIN {
		print "import warp as wp"
		print ""
		print "@wp.kernel"
		print "def warnings(a: wp.array(dtype=float)):"
		print "    i = wp.tid()"
		print "    x = a[i]"
		for (k = 0; k < n; k++) {
			print "    for j in range(i):"
			printf "        x = x + %d.5\n", k % 97
			print "    else:"
			print "        x = x * 0.5"
		}
		print "    a[i] = x"
	}'
}

gen_kernels() { # N kernels
	awk -v n="$1" 'BEGIN {
		print "import warp as wp"
		print ""
		for (k = 0; k < n; k++) {
			print "@wp.kernel"
			print "def kern_" k "(x: wp.array(dtype=float), y: wp.array(dtype=float), a: float):"
			print "    i = wp.tid()"
			print "    v = a * x[i] + y[i]"
			print "    if v > " k % 7 ".0:"
			print "        v = wp.sqrt(v)"
			print "    y[i] = v"
			print ""
		}
	}'
}

TIMEFORMAT='%3U %3S'

# run FAMILY SIZES...: one line per tool, one column per size.
run() {
	fam=$1; shift
	for n in "$@"; do
		"gen_$fam" "$n" > "$tmp/$fam$n.py"
		"$b/kpyc" -o "$tmp/$fam$n.kir" "$tmp/$fam$n.py" 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	done
	printf '%-8s %-7s' "$fam" tool
	for n in "$@"; do printf ' %9s' "$n"; done
	printf '   ratios\n'
	for t in ${TOOLS:-kpyc kopt kcpu kcuda}; do
		printf '%-8s %-7s' "" "$t"
		prev= ratios=
		for n in "$@"; do
			in=$tmp/$fam$n.kir out=$tmp/out
			case $t in
			kpyc) cmd=("$b/kpyc" -o "$out" "$tmp/$fam$n.py") ;;
			kopt) cmd=("$b/kopt" -O -o "$out" "$in") ;;
			*) cmd=("$b/$t" -o "$out" "$in") ;;
			esac
			{ time "${cmd[@]}" 2>/dev/null; } 2>"$tmp/time" ||
				{ echo "bench-scaling: ${cmd[*]} failed" >&2; exit 1; }
			s=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/time")
			printf ' %9.3f' "$s"
			[ -n "$prev" ] && ratios="$ratios $(awk -v a="$prev" -v b="$s" 'BEGIN { printf "%.2f", b / (a + 0.0005) }')"
			prev=$s
		done
		printf '  %s\n' "$ratios"
	done
}

run chain ${CHAIN_SIZES:-10000 20000 40000}
run locals ${LOCAL_SIZES:-10000 20000 40000}
run warnings ${WARNING_SIZES:-4000 8000 16000}
run kernels ${KERNEL_SIZES:-250 500 1000}
