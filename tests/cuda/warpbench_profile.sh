#!/bin/sh
# profile.sh — Nsight Compute on the kernels of a GPU benchmark run that
# are furthest from Warp (docs/gpu-bundle.md):
#   sh profile.sh BENCH_OUT [N]
# reads BENCH_OUT/table.txt (run.py's), takes the N (3) kernels with the
# largest time ratio to Warp and profiles each once through Warp's code and
# once through the slower kpy back end: BENCH_OUT/ncu/MODULE.KERNEL.VIA.txt.
set -u
out=${1:?usage: profile.sh BENCH_OUT [N]} n=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda*/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)}
[ -n "$NCU" ] && [ -x "$NCU" ] || { echo "profile.sh: no ncu" >&2; exit 2; }
mkdir -p "$out/ncu"
awk '$3 == "fwd" || $3 == "bwd" { v = "kcuda"; r = $7; if ($8 > r) { v = "kptx"; r = $8 }
	if (r > 0) print r, $1 ":" $2, v }' "$out/table.txt" | sort -rn | head -"$n" |
while read -r ratio key via; do
	for v in warp "$via"; do
		ent=$(python3 -c "
import json,sys
for k in json.load(open('$here/spec.json'))['kernels']:
    if '%s:%s' % (k['module'], k['kernel']) == '$key': print(k['entries']['$v'])")
		f=$out/ncu/$(echo "$key" | tr ':' '.').$v.txt
		echo "profile.sh: $key via $v ($ratio x Warp): $ent" >&2
		"$NCU" -k "regex:^$ent\$" --launch-count 1 --section SpeedOfLight --section MemoryWorkloadAnalysis \
			--section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats --section WarpStateStats \
			python3 "$here/run.py" --dir "$here" --out "$out/ncu/run" --only "$key" --via "$v" --iters 1 --warmup 0 \
			>"$f" 2>&1 || echo "profile.sh: ncu failed for $key via $v" >&2
	done
done
