#!/usr/bin/env bash
# samples/shard.sh — build one shard of the dataset.
#
#   shard.sh BIN OUT SHARD SEED START COUNT [CATEGORIES]
#
# Generates kernels START .. START+COUNT-1 of kgen's SEED, takes each through
# kpyc | kopt -p ad,O | kcpu, kcuda (forward, backward, standalone), kptx
# (kshard: the same chain in one process), then checks the shard as a unit: nvcc and ptxas compile all of its kernels
# at once; krun runs each kernel through the LLVM host code of the shard
# module, compiled in process by its JIT (single and double precision), and
# checks its gradient against finite differences; the C++ of all of them is
# built once and its forward outputs compared with the JIT's (the check
# named host).  Writes, atomically:
#   OUT/shards/SHARD.jsonl          one record per accepted kernel (kpack)
#   OUT/shards/SHARD.rejects.jsonl  one line per rejected kernel, with the check
# The output depends only on the arguments: same seed, same bytes.
# Environment: SOURCE (a folder of Warp modules to take the kernels from,
# instead of kgen), NVCC, PTXAS (empty: those checks are skipped and say so),
# KPY_JIT_OPT (krun -O of the JIT, default 0), KPY_KEEP_WORK=1 keeps
# OUT/work/SHARD, KPY_SCRATCH (a memory file system for the work folder,
# default /dev/shm; empty: none, the work folder is OUT/work/SHARD itself).
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
# krun's C++ build of the shard, the cross-check of the JIT (no fast-math,
# -ffp-contract=off: IEEE arithmetic, the same bits at any -O), at -O0, in
# half of -O1's g++ time, since it runs each kernel once (unless the user
# set KPY_CXXFLAGS)
if [ -z "${KPY_CXXFLAGS+set}" ]; then
	export KPY_CXXFLAGS=-O0
fi
# the JIT's LLVM optimization level (krun -O): the cheapest sum of compile
# and runs (docs/dataset-engine.md)
JITOPT=${KPY_JIT_OPT:-0}

# CPU time (user+system, of this shell and of the children it waited for,
# in nanoseconds) per stage: not part of the dataset, OUT/timing/SHARD
declare -A T
TICK_NS=$(( 1000000000 / $(getconf CLK_TCK 2>/dev/null || echo 100) ))
if [ -r /proc/$$/stat ]; then
	# utime stime cutime cstime: fields 14-17 (the second, "(bash)", has no blank)
	cpuns() { local f; read -r -a f </proc/$$/stat; REPLY=$(( (f[13] + f[14] + f[15] + f[16]) * TICK_NS )); }
else
	cpuns() { REPLY=0; }
fi
cpuns; lastns=$REPLY
lap() { cpuns; T[$1]=$(( ${T[$1]:-0} + REPLY - lastns )); lastns=$REPLY; }

work="$OUT/work/$SHARD"
case $work in *[[:space:]]*)
	# krun --batch's commands are words separated by blanks
	echo "shard.sh: the output folder must not contain blanks: $OUT" >&2; exit 2 ;;
esac
# The work folder takes about 70 small files a kernel, written, read and
# deleted within the shard: on a memory file system (KPY_SCRATCH, /dev/shm
# by default) when one is there, through the link OUT/work/SHARD, so that
# every path (and every message naming one) stays the same; creating them
# on an ext4 disk cost more system time than krun's runs themselves
# (docs/dataset-engine.md).  KPY_KEEP_WORK=1: a folder of OUT, kept.
scratch=""
rmwork() {
	local t
	if [ -L "$work" ]; then
		t=$(readlink "$work")
		case $t in */kpy-shard.*) rm -rf "$t" ;; esac
	fi
	rm -rf "$work"
}
rmwork
mkdir -p "$OUT/work" "$OUT/shards" || exit 2
if [ "${KPY_KEEP_WORK:-0}" != 1 ]; then
	sd=${KPY_SCRATCH-/dev/shm}
	# room for 8 shards at once of 2 MB a kernel (a kernel's folder is
	# 0.4 MB on average, 1.6 MB at most over kgen's seed 11): a full memory
	# file system would reject kernels (Docker's /dev/shm is 64 MB)
	avail=$(df -Pk "$sd" 2>/dev/null | awk 'NR == 2 { print $4 }')
	case $avail in ''|*[!0-9]*) avail=0 ;; esac
	if [ -n "$sd" ] && [ -d "$sd" ] && [ -w "$sd" ] && [ "$avail" -ge $((COUNT * 2048 * 8)) ] &&
	   scratch=$(mktemp -d "$sd/kpy-shard.XXXXXX" 2>/dev/null); then
		case $scratch in
		*[[:space:]]*) rmdir "$scratch"; scratch="" ;;
		*) ln -s "$scratch" "$work" || { rmdir "$scratch"; scratch=""; } ;;
		esac
	fi
fi
# (a shard killed mid-way leaves no scratch behind: INT and TERM end the
# shell through its EXIT trap)
[ -n "$scratch" ] && trap 'rmwork' EXIT && trap 'exit 130' INT && trap 'exit 143' TERM
mkdir -p "$work/py" "$work/k" || exit 2
t0=$(date +%s.%N)

catopt=()
[ -n "$CATS" ] && catopt=(--category "$CATS")
if [ -n "${SOURCE:-}" ]; then
	# a user's modules (make dataset SOURCE=FOLDER): modules START..START+COUNT-1
	# of FOLDER/*.py in byte order (make's $(sort)), a work item per kernel
	files=()
	i=0
	for f in "$SOURCE"/*.py; do
		[ -f "$f" ] && [ $i -ge "$START" ] && [ $i -lt $((START + COUNT)) ] && files+=("$f")
		i=$((i + 1))
	done
	[ ${#files[@]} -gt 0 ] && "$BIN/kshard" --split --seed "$SEED" --start "$START" -o "$work/py" "${files[@]}" || {
		echo "shard.sh: no modules $START.. in $SOURCE, or kshard --split failed" >&2; exit 2; }
else
	"$BIN/kgen" --seed "$SEED" --start "$START" --count "$COUNT" "${catopt[@]}" -o "$work/py/" || {
		echo "shard.sh: kgen failed" >&2; exit 2; }
fi

lap kgen

# check NAME pass|fail|skip [reason] -> the kernel's checks file
# (at most 400 bytes, newlines as blanks, no trailing blanks: as kshard writes them)
check() {
	local d=$1 s
	shift
	s="$*"$'\n'
	s=${s:0:400}
	s=${s//$'\n'/ }
	s=${s%"${s##*[! ]}"}
	printf '%s\n' "$s" >>"$d/checks"
}
NONFINITE='(sum|abs)=-?(nan|inf)'
firstline() { grep -m1 -E 'error|Error|FAIL' "$1" 2>/dev/null || head -1 "$1" 2>/dev/null; }

# kgen -o DIR/ writes per kernel STEM.py (the module), STEM.meta (key value
# lines: seed index category kernel dim module description) and
# STEM.harness.py.  kshard compiles each into its folder work/k/STEM (kernel
# names repeat within a shard) in one process: kpyc, kopt (ad, forward,
# backward, the lowering), kcpu, kcuda (and the standalone program), kptx;
# each stage a line of the folder's checks file; the folders of the kernels
# that passed every stage in work/good.
"$BIN/kshard" --seed "$SEED" --arch "$ARCH" --timing "$work/compile.timing" "$work" ||
	{ echo "shard.sh: kshard failed" >&2; exit 2; }
names=()
for m in "$work"/py/*.meta; do names+=("$(basename "$m" .meta)"); done
# kshard's own table (CPU time per stage, in its children too) splits its
# time: what is left is the row kshard (its worker's fork, copies, starting up)
addtimes() { local k v; while read -r k v; do T[$k]=$(( ${T[$k]:-0} + v )); T[kshard]=$(( T[kshard] - v )); done <"$1"; }
lap kshard
addtimes "$work/compile.timing"

# ---- the shard as a unit --------------------------------------------------
# shardwide CHECK STATUS REASON: the same result for every kernel still in
shardwide() { local n; for n in $(cat "$work/good.names" 2>/dev/null); do check "$work/k/$n" "$@"; done; }
if [ -s "$work/good" ]; then
	while read -r p; do p=${p%/kernel.py}; echo "${p##*/}"; done <"$work/good" >"$work/good.names"
	# the shard module: each kernel's module with the kernel renamed after
	# its folder (kernel names repeat within a shard), compiled as one module
	# (and to PTX): work/shard.{kir,ad.kir,cpp,cu,ptx}
	unit_ok=1
	kopts=()
	[ -n "$PTXAS" ] && kopts+=(--ptx)
	"$BIN/kshard" --unit "${kopts[@]}" --arch "$ARCH" --timing "$work/unit.timing" "$work" || unit_ok=0
	lap kshard
	addtimes "$work/unit.timing"
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
		# PTX of the whole shard (kshard --unit --ptx), assembled by ptxas
		if [ -n "$PTXAS" ]; then
			if [ -s "$work/shard.ptx" ] &&
			   "$PTXAS" -arch="$ARCH" "$work/shard.ptx" -o "$work/shard.cubin" 2>>"$work/ptx.err"; then
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
			shardwide ptxas skip "ptxas not found"
		fi
		lap ptxas
		# the C++ build of the shard (into krun's cache), bounds-checked: the
		# cross-check of the JIT's forward outputs
		host=""
		if "$BIN/krun" --compile "$work/shard.cpp" >/dev/null 2>"$work/host.err"; then
			host="$work/shard.cpp"
		fi
		lap cxx
		# the runs, in one worker process of one krun (krun --batch: the
		# shard module is compiled by the JIT once, in single and in double
		# precision, and the C++ build loaded once); per kernel, in this order:
		#   1 forward, 2 backward (bounds-checked, as every run);
		#   3-6 forward, compare, backward, compare with the threads reversed,
		#   7-10 the same shuffled;
		#   11 the gradient check (unless ad warned: not a true gradient),
		#      along 2 random directions of each input array (krun
		#      --directions: 4 launches an array, not 512, and every element
		#      weighs in), element by element where a direction meets a kink;
		#   12-13 the C++ build's forward (bounds-checked), compare
		# then their exit statuses decide the checks, in the same order
		: >"$work/batch"
		for n in $(cat "$work/good.names"); do
			d="$work/k/$n"
			dim=""
			while read -r key val; do [ "$key" = dim ] && dim=$val; done <"$d/meta"
			u=$(<"$d/unitname")
			run="krun $work/shard.ad.kir -O $JITOPT --kernel $u --dim $dim --seed $SEED"
			{
				echo "$run --out $d/out >$d/krun.out 2>$d/e1"
				echo "$run --backward --out $d/bout -q 2>$d/e2"
				i=3
				for ord in reverse "shuffle:$SEED"; do
					echo "$run --order $ord --out $d/o.$ord -q 2>$d/e$i"
					echo "compare $d/out $d/o.$ord 1e-4 1e-5 2>$d/e$((i + 1))"
					echo "$run --backward --order $ord --out $d/bo.$ord -q 2>$d/e$((i + 2))"
					echo "compare $d/bout $d/bo.$ord 1e-4 1e-5 2>$d/e$((i + 3))"
					i=$((i + 4))
				done
				[ -s "$d/adwarn" ] || echo "$run --gradcheck --directions 2 >$d/grad.out 2>$d/e11"
				if [ -n "$host" ]; then
					echo "krun $host --kernel $u --dim $dim --seed $SEED --out $d/hout -q 2>$d/e12"
					echo "compare $d/out $d/hout 1e-4 1e-5 2>$d/e13"
				fi
			} >>"$work/batch"
		done
		lap other
		st=()
		bstart=$(date +%s.%N)
		# (into a file, not a process substitution: krun is waited for, and
		# its CPU time counted, here)
		"$BIN/krun" --batch "$work/batch" >"$work/batch.st"
		mapfile -t st <"$work/batch.st"
		lap krun
		awk -v s="$SHARD" -v n="$(grep -c '' "$work/good.names")" -v r="${#st[@]}" -v t0="$bstart" -v t1="$(date +%s.%N)" \
			'BEGIN { printf "dataset: shard %s: checked %d kernels, %d runs (%.1f kernels/s)\n", s, n, r, n / (t1 - t0 + 1e-9) }' >&2
		k=0
		for n in $(cat "$work/good.names"); do
			d="$work/k/$n"
			r=("${st[@]:k:10}")
			k=$((k + 10))
			if [ "${r[0]:-x}" = 0 ] && ! [[ $(<"$d/krun.out") =~ $NONFINITE ]]; then
				check "$d" krun pass
			else
				if [ "${r[0]:-x}" = 0 ]; then
					check "$d" krun fail "not finite: $(grep -E -m1 "$NONFINITE" "$d/krun.out")"
				else
					check "$d" krun fail "$(firstline "$d/e1")"
				fi
				[ -s "$d/adwarn" ] || k=$((k + 1))
				[ -n "$host" ] && k=$((k + 2))
				continue
			fi
			# the same results under other thread orders, forward and backward
			why=""
			[ "${r[1]:-x}" = 0 ] || why="backward kernel: $(firstline "$d/e2")"
			i=2
			for ord in reverse "shuffle:$SEED"; do
				[ -n "$why" ] && break
				for j in 0 1 2 3; do
					[ "${r[i + j]:-x}" = 0 ] && continue
					if [ $j -lt 2 ]; then why="forward"; else why="backward"; fi
					why="$why, threads in $ord order: $(firstline "$d/e$((i + j + 1))")"
					break
				done
				i=$((i + 4))
			done
			gs=x
			[ -s "$d/adwarn" ] || { gs=${st[k]:-x}; k=$((k + 1)); }
			hs=x
			[ -n "$host" ] && { hs="${st[k]:-x} ${st[k + 1]:-x}"; k=$((k + 2)); }
			if [ -n "$why" ]; then
				check "$d" order fail "$why"
				continue
			fi
			check "$d" order pass
			if [ -s "$d/adwarn" ]; then
				check "$d" gradcheck skip "ad warned: $(cat "$d/adwarn")"
			elif [ "$gs" = 0 ]; then
				if [[ $(<"$d/grad.out") == *"nothing to check"* ]]; then
					check "$d" gradcheck skip "$(sed -n 's/.*nothing to check (\(.*\))/\1/p' "$d/grad.out")"
				else
					check "$d" gradcheck pass
				fi
			else
				check "$d" gradcheck fail "$(grep -m1 FAIL "$d/grad.out" || firstline "$d/e11")"
			fi
			if [ -n "$host" ]; then
				if [ "$hs" = "0 0" ]; then
					check "$d" host pass
				elif [ "${hs% *}" != 0 ]; then
					check "$d" host fail "$(firstline "$d/e12")"
				else
					check "$d" host fail "$(firstline "$d/e13")"
				fi
			else
				check "$d" host fail "the C++ build failed: $(firstline "$work/host.err")"
			fi
		done
		lap checks
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
[ "${KPY_KEEP_WORK:-0}" = 1 ] || rmwork
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
