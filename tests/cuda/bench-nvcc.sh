#!/bin/sh
# bench-nvcc.sh — the fixed cost of the runtime headers: nvcc time for a
# one-kernel .cu (device code for one architecture, -c), best of N runs,
# next to the same kernel with every runtime header (kpy/kpy.h) and a
# translation unit of the headers alone.
#   make bench-nvcc [NVCC=nvcc] [ARCH=sm_80] [RUNS=3]
set -u
: "${top_builddir:=.}" "${top_srcdir:=.}" "${NVCC:=nvcc}" "${ARCH:=sm_80}" "${RUNS:=3}"
inc=${KPY_INCLUDE:-$top_srcdir/runtime/include}
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "bench-nvcc: no nvcc (set NVCC=...)" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench-nvcc.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/saxpy.kir" <<'KIR'
kir 1

kernel @saxpy(%x: array<f32,1>, %y: array<f32,1>, %a: f32) {
  %i = tid : i32
  %xv = load %x[%i] : f32
  %yv = load %y[%i] : f32
  %t = mul %a, %xv : f32
  %r = add %t, %yv : f32
  store %y[%i], %r
  ret
}
KIR
"$top_builddir/kcuda" "$tmp/saxpy.kir" -o "$tmp/saxpy.cu" || exit 1
"$top_builddir/kcuda" "$top_srcdir/tests/cuda/golden/particles.kir" -o "$tmp/particles.cu" || exit 1
sed 's|^#include "kpy/.*|#include "kpy/kpy.h"|' "$tmp/saxpy.cu" | uniq >"$tmp/saxpy-all.cu"
# the same kernel by hand, without any header: nvcc's own cost
cat >"$tmp/bare.cu" <<'CU'
extern "C" __global__ void saxpy(long long n, float *x, float *y, float a)
{
    for (long long i = (long long)blockDim.x * blockIdx.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
CU
# best wall time of RUNS compilations (MODE: -c or -ptx), in seconds
best() {
	b=""
	i=0
	while [ $i -lt "$RUNS" ]; do
		s=$(date +%s.%N)
		"$NVCC" -std=c++17 -O3 -arch="$ARCH" -I"$inc" "$2" -o "$tmp/o.out" "$1" || return 1
		e=$(date +%s.%N)
		t=$(echo "$e - $s" | bc)
		if [ -z "$b" ] || [ "$(echo "$t < $b" | bc)" = 1 ]; then b=$t; fi
		i=$((i + 1))
	done
	printf '%.2f' "$b"
}
echo "nvcc $("$NVCC" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p'), -arch=$ARCH -O3, best of $RUNS (seconds):"
printf '  %-48s %8s %8s\n' "" "-ptx" "-c"
row() {
	printf '  %-48s %8s %8s\n' "$1" "$(best "$2" -ptx)" "$(best "$2" -c)"
}
row "saxpy by hand, no headers (nvcc's own cost)" "$tmp/bare.cu"
row "saxpy from kcuda (core.h array.h)" "$tmp/saxpy.cu"
row "particles from kcuda (+vec.h atomic.h)" "$tmp/particles.cu"
row "saxpy with every header (kpy/kpy.h)" "$tmp/saxpy-all.cu"
echo "The headers' fixed cost is the difference to the first row.  Warp pays about"
echo "0.4 s per module (NVRTC to PTX) for its monolithic builtin.h."
