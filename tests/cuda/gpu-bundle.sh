#!/bin/sh
# gpu-bundle.sh — write a GPU check that runs where kpy is not built
# (docs/gpu-bundle.md):
#   make gpu-bundle [BUNDLE=gpu-bundle-out] [MODS="a.py b.krun ..."] [SEED=1]
# For every module of the corpus (default: the test corpus gpucheck walked:
# tests/run/*.krun, tests/run/*.py, tests/frontend/*.py with a .kir golden,
# samples/*.py), differentiated where kopt -p ad applies, the bundle holds
#   src/M.cu        kcuda --standalone: one program for all of M's kernels
#   ptx/M.ptx       kptx --fmad=off, sm_90 (ARCH)
#   exp/M/K/*.npy   krun's outputs of kernel K (forward or backward) and, in
#   in/M/K/*.npy    krun's inputs (the standalone program's --inputs; krun
#                   reads them back with --in and must write the same
#                   outputs, else the bundle is not written)
#   include/kpy     the runtime headers
#   kernels.txt     M K fwd|bwd DIM run [RTOL]|skip:REASON|fail:REASON
#   Makefile, run.sh, one.sh, bits.sh (what the GPU machine runs: see run.sh)
# Exit 1 when a module or kernel could not be bundled (it is listed as a
# FAIL line in kernels.txt too), 2 on bad usage.
set -u
: "${top_builddir:=.}" "${top_srcdir:=.}" "${BUNDLE:=gpu-bundle-out}" "${SEED:=1}" "${ARCH:=sm_90}"
: "${NVCC:=nvcc}"
# launch extents by the kernel's wp.tid() dimensions (about 1024 threads:
# the bundle stays small)
: "${DIM1:=1024}" "${DIM2:=32,32}" "${DIM3:=8,16,8}" "${DIM4:=4,4,8,8}"
B=$top_builddir
LOWER="unroll,fold,cse,dce,scalarize,fold,cse,dce"
# the differentiation pipeline (the dataset bundle: ad,O, as its records)
: "${ADPIPE:=inline,ad,fold,cse,dce}"
for t in kpyc kopt kcpu kcuda kptx krun; do
	[ -x "$B/$t" ] || { echo "gpu-bundle: $B/$t is not built" >&2; exit 2; }
done
if [ -z "${MODS:-}" ]; then
	MODS=$(ls "$top_srcdir"/tests/run/*.krun "$top_srcdir"/tests/run/*.py "$top_srcdir"/samples/*.py 2>/dev/null
		for f in "$top_srcdir"/tests/frontend/*.py; do [ -f "${f%.py}.kir" ] && echo "$f"; done)
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpu-bundle.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export KPY_CACHE=$tmp/cache KPY_INCLUDE="$top_srcdir/runtime/include"
rm -rf "$BUNDLE" && mkdir -p "$BUNDLE/src" "$BUNDLE/ptx" "$BUNDLE/exp" "$BUNDLE/in" "$BUNDLE/include" || exit 1
cp -R "$top_srcdir/runtime/include/kpy" "$BUNDLE/include/" || exit 1
# the host half of the standalone programs, to write krun's inputs here
HOSTCXX=${HOSTCXX:-}
list=$BUNDLE/kernels.txt
: >"$list"
status=0 nmods=0 nk=0
fail() { # module kernel fb dim reason
	echo "$1 $2 $3 $4 fail:$5" >>"$list"
	echo "gpu-bundle: $1 $2: $5" >&2
	status=1
}
for m in $MODS; do
	name=$(basename "$m" | tr '.-' '__')
	w=$tmp/$name
	src=$m
	case $m in
	*.py)
		"$B/kpyc" "$m" -o "$w.0.kir" 2>"$w.err" || { fail "$name" - - - "kpyc: $(head -1 "$w.err")"; continue; }
		src=$w.0.kir ;;
	esac
	# forward and backward kernels; a module ad does not take: forward only
	if ! "$B/kopt" -p "$ADPIPE" "$src" -o "$w.kir" 2>/dev/null; then
		"$B/kopt" -O "$src" -o "$w.kir" 2>"$w.err" || { fail "$name" - - - "kopt: $(head -1 "$w.err")"; continue; }
	fi
	"$B/kcpu" "$w.kir" -o "$w.cpp" 2>"$w.err" && "$B/krun" "$w.cpp" --list >"$w.list" 2>"$w.err" ||
		{ fail "$name" - - - "kcpu/krun --list: $(head -1 "$w.err")"; continue; }
	if [ ! -s "$w.list" ]; then
		echo "gpu-bundle: $name: no kernels" >&2
		continue
	fi
	"$B/kcuda" --standalone "$w.kir" -o "$BUNDLE/src/$name.cu" 2>"$w.err" ||
		{ fail "$name" - - - "kcuda: $(head -1 "$w.err")"; continue; }
	"$B/kopt" -p "$LOWER" "$w.kir" -o "$w.low.kir" 2>"$w.err" &&
		"$B/kptx" --arch="$ARCH" --fmad=off "$w.low.kir" -o "$BUNDLE/ptx/$name.ptx" 2>"$w.err" ||
		{ rm -f "$BUNDLE/ptx/$name.ptx"; echo "gpu-bundle: $name: no PTX: $(head -1 "$w.err")" >&2; }
	# the inputs: the standalone program's host half (compiled without
	# CUDA calls reached: --inputs exits first), checked against krun below
	sa=
	if command -v "$NVCC" >/dev/null 2>&1; then
		"$NVCC" -std=c++17 -O0 -arch="$ARCH" -I"$top_srcdir/runtime/include" -o "$w.sa" "$BUNDLE/src/$name.cu" \
			>"$w.err" 2>&1 && sa=$w.sa
	fi
	nmods=$((nmods + 1))
	while read -r line; do
		k=${line%%(*}
		fb=fwd
		case $line in *" forward="*) fb=bwd ;; esac
		fk=${k%.adj}
		tid=$(echo "$line" | sed -n 's/.* tid=\([0-9]*\).*/\1/p')
		case $tid in 2) dim=$DIM2 ;; 3) dim=$DIM3 ;; 4) dim=$DIM4 ;; *) dim=$DIM1 ;; esac
		if grep -q "^# NORANDOM:.* $fk\( \|$\)" "$m"; then
			echo "$name $k $fb $dim skip:undefined-for-random-inputs" >>"$list"; continue
		fi
		if grep -q "^# GPURACE:.* $fk\( \|$\)" "$m"; then
			echo "$name $k $fb $dim skip:races-by-design:$(sed -n "s/^# GPURACE:.* $fk (\([^)]*\)).*/\1/p" "$m" | head -1 | tr ' ' '_')" >>"$list"
			continue
		fi
		# arrays of structs: not read from .npy (the program seeds them as krun does)
		noin=$(echo "$line" | sed 's/^[^(]*(//; s/)[^)]*$//' | tr ',' '\n' | sed -n 's/^ *\([A-Za-z_0-9]*\): array<@.*/\1/p')
		kd=$BUNDLE/exp/$name/$k
		if ! "$B/krun" "$w.cpp" --kernel "$k" --dim "$dim" --seed "$SEED" --out "$kd" --quiet >/dev/null 2>"$w.err"; then
			fail "$name" "$k" "$fb" "$dim" "krun: $(head -1 "$w.err" | tr ' ' '_')"; continue
		fi
		if [ -n "$sa" ]; then
			id=$BUNDLE/in/$name/$k
			mkdir -p "$BUNDLE/in/$name"
			ins=
			if "$w.sa" --kernel "$k" --dim "$dim" --seed "$SEED" --inputs "$id" >/dev/null 2>"$w.err"; then
				for f in "$id"/*.npy; do
					[ -f "$f" ] || continue
					n=$(basename "$f" .npy)
					case $n in *.*) rm -f "$f"; continue ;; esac # arrays in structs: seeded by the program
					case " $(echo $noin) " in *" $n "*) rm -f "$f"; continue ;; esac
					ins="$ins --in $n=$f"
				done
				# shellcheck disable=SC2086
				"$B/krun" "$w.cpp" --kernel "$k" --dim "$dim" --seed "$SEED" $ins --out "$w.chk" --quiet \
					>/dev/null 2>"$w.err" || { fail "$name" "$k" "$fb" "$dim" "krun --in: $(head -1 "$w.err" | tr ' ' '_')"; continue; }
				for f in "$kd"/*.npy; do
					[ -f "$f" ] || continue
					# arrays of structs hold host pointers: --expect compares them field by field
					case " $(echo $noin) " in *" $(basename "$f" .npy) "*) continue ;; esac
					cmp -s "$f" "$w.chk/$(basename "$f")" ||
						{ fail "$name" "$k" "$fb" "$dim" "inputs: the program's inputs differ from krun's ($(basename "$f"))"; continue 2; }
				done
				rm -rf "$w.chk"
			else
				fail "$name" "$k" "$fb" "$dim" "--inputs: $(head -1 "$w.err" | tr ' ' '_')"; continue
			fi
		fi
		# expected outputs: the arrays the kernel writes (the others are their inputs)
		for ro in $(echo "$line" | grep -o '[A-Za-z_0-9]*: array<[^@ ][^ ]*> [rw-]*' | awk '$3 !~ /w/ { sub(/:$/, "", $1); print $1 }'); do
			[ -n "$sa" ] && [ -f "$BUNDLE/in/$name/$k/$ro.npy" ] && rm -f "$kd/$ro.npy"
		done
		# a looser tolerance, with its reason: # GPUTOL: K RTOL (reason)
		tol=$(sed -n "s/^# GPUTOL: $k \([0-9.e+-]*\) (.*/\1/p" "$m" | head -1)
		echo "$name $k $fb $dim run${tol:+ $tol}" >>"$list"
		nk=$((nk + 1))
	done <"$w.list"
done
# the bundle's scripts
cp "$top_srcdir/tests/cuda/bundle/bundle.mk" "$BUNDLE/Makefile" || exit 1
for f in run.sh one.sh bits.sh; do
	cp "$top_srcdir/tests/cuda/bundle/$f" "$BUNDLE/$f" || exit 1
done
chmod +x "$BUNDLE/run.sh" "$BUNDLE/one.sh" "$BUNDLE/bits.sh"
{
	echo "# generated by make gpu-bundle: one rule per kernel and path"
	printf 'MODS ='; awk '{ print $1 }' "$list" | sort -u | while read -r n; do
		[ -f "$BUNDLE/src/$n.cu" ] && printf ' %s' "$n"; done; echo
	awk '$5 == "run" { for (p = 0; p < 2; p++) { path = p ? "ptx" : "cuda"
		printf "RUNS += %s@%s@%s@%s\n%s@%s@%s@%s: bin/%s\n\t@sh ./one.sh %s %s %s %s %s %s\n", $1, $2, $3, path, $1, $2, $3, path, $1, $1, $2, $3, path, $4, $6 } }' "$list"
	awk '$5 != "run" { printf "SKIPS += %s@%s@%s\n", $1, $2, $3 }' "$list"
} >"$BUNDLE/kernels.mk"
echo "gpu-bundle: $BUNDLE: $nmods modules, $nk kernels to run, $(grep -c ' skip:' "$list") skipped, $(grep -c ' fail:' "$list") failed to bundle; $(du -sk "$BUNDLE" | cut -f1) KiB"
exit $status
