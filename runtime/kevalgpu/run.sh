#!/bin/sh
# run.sh RESULTS [JOBS] — written by keval --bundle (keval(1)): compile
# every candidate (nvcc, JOBS at a time: default the cores) and run it on
# keval's inputs; RESULTS/NAME/ gets its outputs as they finish, and
# RESULTS/table.txt a line per candidate (it ran or not: the verdicts come
# from keval --score on the machine with kpy).  Environment: NVCC, PTXAS,
# ARCH (sm_90), NVCCFLAGS, TIMEOUT (seconds per compile and per run: 60).
# Needs nvcc, make, a GPU and the CUDA driver; no kpy, no Python.
set -u
if [ $# -lt 1 ]; then
	echo "usage: run.sh RESULTS [JOBS]" >&2
	exit 2
fi
here=$(cd "$(dirname "$0")" && pwd) || exit 2
mkdir -p "$1" || exit 2
out=$(cd "$1" && pwd) || exit 2
jobs=${2:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 8)}
cd "$here" || exit 2
t0=$(date +%s)
{
	echo "# keval bundle: $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | sed 's/^/# /'
	"${NVCC:-nvcc}" --version 2>/dev/null | tail -1 | sed 's/^/# /'
} >"$out/table.txt"
cp "$out/table.txt" "$out/device.txt"
make -k -j"$jobs" all OUT="$out" >"$out/make.log" 2>&1
n=$(grep -vc '^#' "$out/table.txt")
ran=$(grep -c 'build=0 ran=\([0-9]*\)/\1$' "$out/table.txt")
echo "keval bundle: $n candidates, $ran built and ran every launch, in $(($(date +%s) - t0)) s" | tee "$out/summary.txt"
echo "now, where kpy is: keval --score $here --results $out --record RECORDS" 
exit 0
