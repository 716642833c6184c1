#!/bin/sh
# run.sh OUTDIR [JOBS] — the GPU check (make gpu-bundle wrote this folder):
# compile every module with nvcc (JOBS at a time, default: the cores), run
# every kernel through kcuda's program and kptx's PTX (driver API) on
# krun's inputs and compare with krun's outputs, and kptx's results with
# kcuda's bit for bit (bits.sh: OUTDIR/bits.txt).  OUTDIR/table.txt grows
# one line per kernel and path as it goes; the summary line ends it and is
# OUTDIR/summary.txt.  Environment: NVCC, ARCH (sm_90), RTOL (1e-4),
# ATOL (1e-5), TIME (launches to time per kernel; 0: no timing),
# TIMEDIM=N (after the check, time every 1-D forward kernel at --dim N,
# 20 launches, one at a time, both paths, on the program's own inputs:
# OUTDIR/timing.txt, with GB/s next to a device-to-device copy; at most
# 20 s a kernel and path, so budget the time: 60 kernels x 2 paths).
# Exit 0 when every kernel that ran passed.
set -u
if [ $# -lt 1 ]; then
	echo "usage: run.sh OUTDIR [JOBS]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd) || exit 2
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd) || exit 2
jobs=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 8)}
cd "$here" || exit 2
t0=$(date +%s)
{
	echo "# kpy gpu bundle: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | sed 's/^/# /'
	"${NVCC:-nvcc}" --version 2>/dev/null | tail -1 | sed 's/^/# /'
	printf '%-26s %-30s %-3s %-4s %-4s %-9s %s\n' MODULE KERNEL F/B PATH RES MAXERR DETAIL
} >"$out/table.txt"
awk '$5 != "run" { r = $5; for (i = 6; i <= NF; i++) r = r " " $i; sub(/^[a-z]*:/, "", r); res = $5 ~ /^skip/ ? "skip" : "FAIL"
	for (p = 0; p < 2; p++) printf "%-26s %-30s %-3s %-4s %-4s %-9s %s\n", $1, $2, $3, p ? "ptx" : "cuda", res, "-", r }' \
	kernels.txt >>"$out/table.txt"
make -k -j"$jobs" run OUT="$out" >"$out/make.log" 2>&1
t1=$(date +%s)
summary=$(awk -v secs=$((t1 - t0)) '!/^#/ && $1 != "MODULE" { n[$4 " " $5]++; all[$5]++ }
	END { printf "gpu-bundle: %d passed, %d failed, %d skipped (cuda %d/%d, ptx %d/%d passed) in %d s\n",
	      all["pass"], all["FAIL"], all["skip"], n["cuda pass"], n["cuda pass"] + n["cuda FAIL"],
	      n["ptx pass"], n["ptx pass"] + n["ptx FAIL"], secs }' "$out/table.txt")
echo "$summary" >>"$out/table.txt"
echo "$summary" >"$out/summary.txt"
bits=$(sh ./bits.sh "$out")
echo "$bits" >>"$out/summary.txt"
if [ -n "${TIMEDIM:-}" ]; then
	# a kernel that is slow at that size (atomics on one element from every
	# thread) gets 20 s, then a dash
	to=
	command -v timeout >/dev/null 2>&1 && to="timeout 20"
	printf '%-26s %-30s %-4s %12s %10s %10s %s\n' MODULE KERNEL PATH DIM MS GB/S COPY-GB/S >"$out/timing.txt"
	awk '$3 == "fwd" && $5 == "run" && $4 !~ /,/ { print $1, $2 }' kernels.txt | while read -r m k; do
		for path in cuda ptx; do
			[ -x "bin/$m" ] || continue
			set -- --kernel "$k" --dim "$TIMEDIM" --time 20
			[ "$path" = ptx ] && set -- "$@" --ptx "ptx/$m.ptx"
			t=$($to "./bin/$m" "$@" 2>/dev/null | sed -n 's/^time \([^ ]*\) ms \([^ ]*\) GB\/s copy [^ ]* ms \([^ ]*\) GB\/s/\1 \2 \3/p')
			[ -n "$t" ] || t="- - -"
			set -- $t
			printf '%-26s %-30s %-4s %12s %10s %10s %s\n' "$m" "$k" "$path" "$TIMEDIM" "$1" "$2" "$3" >>"$out/timing.txt"
		done
	done
fi
grep ' FAIL ' "$out/table.txt"
echo "$summary"
echo "$bits"
grep -q ' FAIL ' "$out/table.txt" && exit 1
exit 0
