#!/bin/sh
# gpucheck.sh — on a machine with a GPU: for every forward kernel of a corpus
# (tests/run/*.krun, tests/run/*.py, tests/frontend's modules, samples/*.py),
# run it on the CPU with krun and on the GPU with kcuda's standalone program
# (same seed, same inputs), compare every array, and print a pass/fail table.
#   make gpucheck [NVCC=nvcc] [ARCH=sm_80] [SEED=1] [RTOL=1e-4] [ATOL=1e-5]
set -u
: "${top_builddir:=.}" "${top_srcdir:=.}" "${NVCC:=nvcc}" "${ARCH:=sm_80}" "${SEED:=1}"
: "${RTOL:=1e-4}" "${ATOL:=1e-5}"
inc=${KPY_INCLUDE:-$top_srcdir/runtime/include}
export KPY_INCLUDE=$inc
if ! command -v "$NVCC" >/dev/null 2>&1; then
	echo "gpucheck: no nvcc (set NVCC=...)" >&2
	exit 1
fi
if command -v nvidia-smi >/dev/null 2>&1 && ! nvidia-smi -L >/dev/null 2>&1; then
	echo "gpucheck: nvidia-smi sees no GPU" >&2
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpucheck.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export KPY_CACHE=$tmp/cache
mods=$(ls "$top_srcdir"/tests/run/*.krun "$top_srcdir"/tests/run/*.py "$top_srcdir"/samples/*.py 2>/dev/null
	for f in "$top_srcdir"/tests/frontend/*.py; do [ -f "${f%.py}.kir" ] && echo "$f"; done)
pass=0 fail=0 skip=0
printf '%-28s %-24s %-10s %s\n' MODULE KERNEL RESULT DETAIL
for m in $mods; do
	name=$(basename "$m")
	base=$tmp/$(echo "$name" | tr '.' '_')
	src=$m
	case $m in
	*.py)
		[ -x "$top_builddir/kpyc" ] || continue
		"$top_builddir/kpyc" "$m" 2>/dev/null | "$top_builddir/kopt" -O -o "$base.kir" 2>/dev/null || {
			printf '%-28s %-24s %-10s %s\n' "$name" "-" FAIL "kpyc/kopt"; fail=$((fail + 1)); continue; }
		src=$base.kir ;;
	esac
	"$top_builddir/kcpu" "$src" -o "$base.cpp" 2>/dev/null &&
		"$top_builddir/krun" "$base.cpp" --list >"$base.list" 2>/dev/null || {
		printf '%-28s %-24s %-10s %s\n' "$name" "-" FAIL "kcpu/krun --list"; fail=$((fail + 1)); continue; }
	while read -r line; do
		k=${line%%(*}
		case $line in *" forward="*) continue ;; esac
		if grep -q "^# NORANDOM:.* $k\( \|$\)" "$m"; then
			printf '%-28s %-24s %-10s %s\n' "$name" "$k" skip "undefined for random inputs"; skip=$((skip + 1)); continue
		fi
		tid=$(echo "$line" | sed -n 's/.* tid=\([0-9]*\).*/\1/p')
		case $tid in 2) dim=64,64 ;; 3) dim=16,16,16 ;; 4) dim=8,8,8,8 ;; *) dim=4096 ;; esac
		kb=$base-$(echo "$k" | tr '.' '_')
		if ! "$top_builddir/krun" "$base.cpp" --kernel "$k" --dim "$dim" --seed "$SEED" --out "$kb.cpu" --quiet \
			>/dev/null 2>"$kb.err"; then
			printf '%-28s %-24s %-10s %s\n' "$name" "$k" FAIL "krun: $(head -1 "$kb.err")"; fail=$((fail + 1)); continue
		fi
		if ! "$top_builddir/kcuda" --standalone --kernel "$k" "$src" -o "$kb.cu" 2>"$kb.err" ||
		   ! "$NVCC" -std=c++17 -O3 -arch="$ARCH" -I"$inc" -o "$kb.gpu" "$kb.cu" 2>"$kb.err"; then
			printf '%-28s %-24s %-10s %s\n' "$name" "$k" FAIL "build: $(head -1 "$kb.err")"; fail=$((fail + 1)); continue
		fi
		if "$kb.gpu" --dim "$dim" --seed "$SEED" --expect "$kb.cpu" --rtol "$RTOL" --atol "$ATOL" >"$kb.out" 2>&1; then
			printf '%-28s %-24s %-10s %s\n' "$name" "$k" pass "$(grep -c '^ok ' "$kb.out") arrays, --dim $dim"
			pass=$((pass + 1))
		else
			printf '%-28s %-24s %-10s %s\n' "$name" "$k" FAIL "$(grep -m1 'FAIL\|error' "$kb.out")"
			fail=$((fail + 1))
		fi
	done <"$base.list"
done
echo "gpucheck: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
