#!/usr/bin/env bash
# samples/shard.sh — build one shard of the dataset.
#
#   shard.sh BIN OUT SHARD SEED START COUNT [CATEGORIES]
#
# Generates kernels START .. START+COUNT-1 of kgen's SEED, takes each through
# kpyc | kopt -p ad,O | kcpu, kcuda (forward, backward, standalone) [| kptx],
# then checks the shard as a unit: nvcc and ptxas compile all of its kernels
# at once, the C++ of all of them is built once and krun runs each kernel,
# checks its gradient against finite differences, and compares the LLVM host
# object's outputs with the C++ build's.  Writes, atomically:
#   OUT/shards/SHARD.jsonl          one record per accepted kernel (kpack)
#   OUT/shards/SHARD.rejects.jsonl  one line per rejected kernel, with the check
# The output depends only on the arguments: same seed, same bytes.
# Environment: NVCC, PTXAS (empty: those checks are skipped and say so),
# KPY_KEEP_WORK=1 keeps OUT/work/SHARD.
set -u
BIN=$1 OUT=$2 SHARD=$3 SEED=$4 START=$5 COUNT=$6 CATS=${7:-}
NVCC=${NVCC:-} PTXAS=${PTXAS:-}
# nvcccheck STEM FILE.cu: FILE.cu to a cubin for ARCH, ptxas at -O0
nvcccheck() {
	"$NVCC" -std=c++17 -arch="$ARCH" -I"$INC" -cubin -Xptxas -O0 "$2" -o "$1.cubin"
}
ARCH=sm_80
INC=${KPY_INCLUDE:-}
export LC_ALL=C

# time per stage (not part of the dataset: OUT/timing/SHARD)
declare -A T
lastns=$(date +%s%N)
lap() { local now; now=$(date +%s%N); T[$1]=$(( ${T[$1]:-0} + now - lastns )); lastns=$now; }

work="$OUT/work/$SHARD"
rm -rf "$work"
mkdir -p "$work/py" "$work/k" "$OUT/shards" || exit 2
t0=$(date +%s.%N)

catopt=()
[ -n "$CATS" ] && catopt=(--category "$CATS")
"$BIN/kgen" --seed "$SEED" --start "$START" --count "$COUNT" "${catopt[@]}" -o "$work/py/" || {
	echo "shard.sh: kgen failed" >&2; exit 2; }

lap kgen
have_kptx=0
[ -x "$BIN/kptx" ] && have_kptx=1

# check NAME pass|fail|skip [reason] -> the kernel's checks file
check() { local d=$1; shift; printf '%s\n' "$*" | head -c 400 | tr '\n' ' ' | sed 's/ *$//' >>"$d/checks"; echo >>"$d/checks"; }
NONFINITE='(sum|abs)=-?(nan|inf)'
firstline() { grep -m1 -E 'error|Error|FAIL' "$1" 2>/dev/null || head -1 "$1" 2>/dev/null; }

# kgen -o DIR/ writes per kernel STEM.py (the module), STEM.meta (key value
# lines: seed index category kernel dim module description) and
# STEM.harness.py; the kernel's folder is work/k/STEM (kernel names repeat
# within a shard).
# progress STAGE I: every 25 kernels, how far the shard is and how fast
pstart=$(date +%s.%N)
progress() {
	[ $(($2 % 25)) = 0 ] || return 0
	awk -v s="$SHARD" -v st="$1" -v i="$2" -v n="$COUNT" -v t0="$pstart" -v t1="$(date +%s.%N)" \
		'BEGIN { printf "dataset: shard %s: %s %d/%d kernels (%.1f kernels/s)\n", s, st, i, n, i / (t1 - t0 + 1e-9) }' >&2
	return 0
}
names=()
pk=0
for m in "$work"/py/*.meta; do
	pk=$((pk + 1)); progress compiled "$pk"
	stem=$(basename "$m" .meta)
	name=$(sed -n 's/^kernel //p' "$m")
	d="$work/k/$stem"
	mkdir -p "$d"
	# the tools run inside the folder on NAME.py, so that the texts name the
	# module, not this build's paths
	cp "$work/py/$stem.py" "$d/kernel.py"
	cp "$work/py/$stem.py" "$d/$name.py"
	cp "$work/py/$stem.harness.py" "$d/harness.py"
	cp "$m" "$d/meta"
	: >"$d/checks"
	names+=("$stem")
	lap other
	if ! (cd "$d" && "$BIN/kpyc" "$name.py" -o kernel.kir 2>err); then
		check "$d" kpyc fail "$(firstline "$d/err")"; continue
	fi
	check "$d" kpyc pass
	lap kpyc
	if ! "$BIN/kopt" -p ad,O --verify-each "$d/kernel.kir" -o "$d/ad.kir" 2>"$d/err"; then
		check "$d" kopt fail "$(firstline "$d/err")"; continue
	fi
	check "$d" kopt pass
	# warnings of ad: the gradient is not a true gradient (Warp semantics)
	grep -m1 'warning:' "$d/err" | sed 's/^[^:]*:[0-9]*:[0-9]*: warning: //' >"$d/adwarn"
	ok=1
	lap kopt
	for half in forward backward; do
		"$BIN/kopt" -p "$half" "$d/ad.kir" -o "$d/$half.kir" 2>"$d/err" || ok=0
	done
	if [ $ok = 1 ] && "$BIN/kcpu" "$d/forward.kir" -o "$d/fwd.cpp" 2>"$d/err" &&
	   "$BIN/kcpu" "$d/backward.kir" -o "$d/bwd.cpp" 2>>"$d/err"; then
		check "$d" kcpu pass
	else
		check "$d" kcpu fail "$(firstline "$d/err")"; continue
	fi
	lap kcpu
	dim=$(sed -n 's/^dim //p' "$d/meta")
	if "$BIN/kcuda" "$d/forward.kir" -o "$d/fwd.cu" 2>"$d/err" &&
	   "$BIN/kcuda" "$d/backward.kir" -o "$d/bwd.cu" 2>>"$d/err" &&
	   "$BIN/kcuda" --standalone --kernel "$name" --dim "$dim" --seed "$SEED" "$d/ad.kir" \
	       -o "$d/standalone.cu" 2>>"$d/err"; then
		check "$d" kcuda pass
	else
		check "$d" kcuda fail "$(firstline "$d/err")"; continue
	fi
	lap kcuda
	if [ $have_kptx = 1 ]; then
		if "$BIN/kopt" -p inline,unroll,scalarize,O "$d/ad.kir" -o "$d/low.kir" 2>"$d/err" &&
		   "$BIN/kptx" --arch "$ARCH" "$d/low.kir" -o "$d/kernel.ptx" 2>>"$d/err"; then
			check "$d" kptx pass
		else
			check "$d" kptx fail "$(firstline "$d/err")"; continue
		fi
	else
		check "$d" kptx skip "kptx is not built"
	fi
	lap kptx
	echo "$d/kernel.py" >>"$work/good"
done

# ---- the shard as a unit --------------------------------------------------
# shardwide CHECK STATUS REASON: the same result for every kernel still in
shardwide() { local n; for n in $(cat "$work/good.names" 2>/dev/null); do check "$work/k/$n" "$@"; done; }
if [ -s "$work/good" ]; then
	xargs -a "$work/good" -n1 dirname | xargs -n1 basename >"$work/good.names"
	# in the shard module each kernel is named after its folder (kernel names
	# repeat within a shard): unit.py is the module with the kernel renamed
	: >"$work/good.unit"
	for n in $(cat "$work/good.names"); do
		name=$(sed -n 's/^kernel //p' "$work/k/$n/meta")
		sed "s/^def $name(/def u_$n(/" "$work/k/$n/kernel.py" >"$work/k/$n/unit.py"
		echo "u_$n" >"$work/k/$n/unitname"
		echo "$work/k/$n/unit.py" >>"$work/good.unit"
	done
	unit_ok=1
	xargs -a "$work/good.unit" "$BIN/kpyc" -o "$work/shard.kir" 2>"$work/err" &&
	"$BIN/kopt" -p ad,O "$work/shard.kir" -o "$work/shard.ad.kir" 2>/dev/null &&
	"$BIN/kcpu" "$work/shard.ad.kir" -o "$work/shard.cpp" 2>>"$work/err" &&
	"$BIN/kcuda" "$work/shard.ad.kir" -o "$work/shard.cu" 2>>"$work/err" || unit_ok=0
	lap shard_module
	if [ $unit_ok = 0 ]; then
		# cannot happen for kernels that passed on their own; say so loudly
		echo "shard.sh: shard $SHARD: the shard module failed: $(firstline "$work/err")" >&2
		shardwide krun fail "the shard module failed: $(firstline "$work/err")"
	else
		# nvcc: all kernels at once; on failure, each kernel's files on their own.
		# nvcc -cubin -Xptxas -O0: the CUDA parses, type-checks, lowers
		# through NVVM and assembles for ARCH, what nvcc -c proves for a file
		# of kernels (whose host half is nvcc's launch stubs), in 69% of its
		# CPU time (docs/dataset-nvcc.md)
		if [ -n "$NVCC" ]; then
			if nvcccheck "$work/shard" "$work/shard.cu" 2>"$work/nvcc.err"; then
				shardwide nvcc pass
			else
				for n in $(cat "$work/good.names"); do
					d="$work/k/$n"
					if nvcccheck "$d/fwd" "$d/fwd.cu" 2>"$d/err" && nvcccheck "$d/bwd" "$d/bwd.cu" 2>>"$d/err"; then
						check "$d" nvcc pass
					else
						check "$d" nvcc fail "$(firstline "$d/err")"
					fi
				done
			fi
		else
			shardwide nvcc skip "nvcc not found"
		fi
		lap nvcc
		# PTX of the whole shard through kptx, assembled by ptxas
		[ $have_kptx = 1 ] && "$BIN/kopt" -p inline,unroll,scalarize,O "$work/shard.ad.kir" -o "$work/shard.low.kir" 2>/dev/null
		if [ $have_kptx = 1 ] && [ -n "$PTXAS" ]; then
			if [ -s "$work/shard.low.kir" ] &&
			   "$BIN/kptx" --arch "$ARCH" "$work/shard.low.kir" -o "$work/shard.ptx" 2>"$work/err" &&
			   "$PTXAS" -arch="$ARCH" "$work/shard.ptx" -o "$work/shard.cubin" 2>>"$work/err"; then
				shardwide ptxas pass
			else
				for n in $(cat "$work/good.names"); do
					d="$work/k/$n"
					if "$PTXAS" -arch="$ARCH" "$d/kernel.ptx" -o "$d/kernel.cubin" 2>"$d/err"; then
						check "$d" ptxas pass
					else
						check "$d" ptxas fail "$(firstline "$d/err")"
					fi
				done
			fi
		else
			shardwide ptxas skip "$([ $have_kptx = 1 ] && echo "ptxas not found" || echo "kptx is not built")"
		fi
		lap ptxas
		# the C++ build of the shard (krun's cache), then the host object
		"$BIN/krun" "$work/shard.cpp" --list >/dev/null 2>&1
		lap cxx
		# the host object of the same lowering, for the cross-check
		host=""
		if [ $have_kptx = 1 ] && [ -s "$work/shard.low.kir" ] &&
		   "$BIN/kptx" --target=host "$work/shard.low.kir" -o "$work/shard.host.o" 2>"$work/host.err" &&
		   ${CC:-cc} -shared "$work/shard.host.o" -o "$work/shard.host.so" -lm 2>>"$work/host.err"; then
			host="$work/shard.host.so"
		fi
		lap host_object
		pk=0
		pstart=$(date +%s.%N)
		for n in $(cat "$work/good.names"); do
			pk=$((pk + 1)); progress checked "$pk"
			d="$work/k/$n"
			dim=$(sed -n 's/^dim //p' "$d/meta")
			u=$(cat "$d/unitname")
			lap other
			if "$BIN/krun" "$work/shard.cpp" --kernel "$u" --dim "$dim" --seed "$SEED" --out "$d/out" \
			       >"$d/krun.out" 2>"$d/err" && ! grep -qE "$NONFINITE" "$d/krun.out"; then
				check "$d" krun pass
			else
				check "$d" krun fail "$(grep -E -m1 "$NONFINITE" "$d/krun.out" | sed 's/^/not finite: /' || firstline "$d/err")"
				continue
			fi
			lap krun
			# the same results under other thread orders, forward and backward
			why=""
			if ! "$BIN/krun" "$work/shard.cpp" --kernel "$u" --dim "$dim" --seed "$SEED" --backward \
			       --out "$d/bout" -q >/dev/null 2>"$d/err"; then
				why="backward kernel: $(firstline "$d/err")"
			fi
			for ord in reverse "shuffle:$SEED"; do
				[ -n "$why" ] && break
				if ! "$BIN/krun" "$work/shard.cpp" --kernel "$u" --dim "$dim" --seed "$SEED" --order "$ord" \
				       --out "$d/oout" -q >/dev/null 2>"$d/err" ||
				   ! "$BIN/kpack" compare "$d/out" "$d/oout" --rtol 1e-4 --atol 1e-5 2>"$d/err"; then
					why="forward, threads in $ord order: $(firstline "$d/err")"
				elif ! "$BIN/krun" "$work/shard.cpp" --kernel "$u" --dim "$dim" --seed "$SEED" --backward \
				       --order "$ord" --out "$d/oout" -q >/dev/null 2>"$d/err" ||
				   ! "$BIN/kpack" compare "$d/bout" "$d/oout" --rtol 1e-4 --atol 1e-5 2>"$d/err"; then
					why="backward, threads in $ord order: $(firstline "$d/err")"
				fi
				rm -rf "$d/oout"
			done
			if [ -n "$why" ]; then
				check "$d" order fail "$why"
				continue
			fi
			check "$d" order pass
			lap order
			if [ -s "$d/adwarn" ]; then
				check "$d" gradcheck skip "ad warned: $(cat "$d/adwarn")"
			elif "$BIN/krun" "$work/shard.cpp" --kernel "$u" --dim "$dim" --seed "$SEED" --gradcheck \
			       >"$d/grad.out" 2>"$d/err"; then
				if grep -q 'nothing to check' "$d/grad.out"; then
					check "$d" gradcheck skip "$(sed -n 's/.*nothing to check (\(.*\))/\1/p' "$d/grad.out")"
				else
					check "$d" gradcheck pass
				fi
			else
				check "$d" gradcheck fail "$(grep -m1 FAIL "$d/grad.out" || firstline "$d/err")"
			fi
			lap gradcheck
			if [ -n "$host" ]; then
				if "$BIN/krun" "$host" --kernel "$u" --dim "$dim" --seed "$SEED" --out "$d/hout" \
				       >/dev/null 2>"$d/err" &&
				   "$BIN/kpack" compare "$d/out" "$d/hout" --rtol 1e-4 --atol 1e-5 2>"$d/err"; then
					check "$d" host pass
				else
					check "$d" host fail "$(firstline "$d/err")"
				fi
			else
				check "$d" host skip "$([ $have_kptx = 1 ] && echo "no host object: $(firstline "$work/host.err")" || echo "kptx is not built")"
			fi
		done
	fi
fi

lap host
# ---- records --------------------------------------------------------------
dirs=()
for n in "${names[@]}"; do dirs+=("$work/k/$n"); done
"$BIN/kpack" shard -o "$OUT/shards/$SHARD.jsonl.tmp" --rejects "$OUT/shards/$SHARD.rejects.jsonl.tmp" "${dirs[@]}" ||
	{ echo "shard.sh: kpack failed" >&2; exit 2; }
mv "$OUT/shards/$SHARD.rejects.jsonl.tmp" "$OUT/shards/$SHARD.rejects.jsonl"
mv "$OUT/shards/$SHARD.jsonl.tmp" "$OUT/shards/$SHARD.jsonl"
[ "${KPY_KEEP_WORK:-0}" = 1 ] || rm -rf "$work"
lap kpack
mkdir -p "$OUT/timing"
for k in "${!T[@]}"; do printf '%s %s\n' "$k" "${T[$k]}"; done | sort >"$OUT/timing/$SHARD"

# ---- progress -------------------------------------------------------------
t1=$(date +%s.%N)
acc=$(wc -l <"$OUT/shards/$SHARD.jsonl")
echo "$SHARD $COUNT $acc $t0 $t1" >>"$OUT/progress"
awk -v total="${KPY_SHARDS:-0}" -v shard="$SHARD" -v acc="$acc" -v cnt="$COUNT" '
	{ n++; k += $2; if (start == "" || $4 < start) start = $4; if ($5 > end) end = $5 }
	END {
		el = end - start; rate = el > 0 ? k / el : 0
		eta = (total > n && n > 0) ? (total - n) * el / n : 0
		printf "dataset: shard %s done (%d/%d accepted); %d/%d shards, %.1f kernels/s, ETA %dm%02ds\n",
		       shard, acc, cnt, n, total, rate, eta / 60, eta % 60
	}' "$OUT/progress"
