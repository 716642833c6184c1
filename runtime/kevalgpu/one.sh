#!/bin/sh
# one.sh build|run NAME cuda|ptx H — one candidate of a keval bundle
# (keval(1)).  build: nvcc -c cand/NAME.cu and link it with host H (cuda),
# or ptxas on cand/NAME.ptx (ptx); writes $OUT/NAME/build.log and
# build.rc.  run: every launch of cand/NAME.runs ("RUN DATA KERNEL DIM SEED
# BLOCK": inputs in/H/tDATA/), outputs in $OUT/NAME/runRUN/, the exit
# status in runRUN.rc (124: the time limit), the output in runRUN.log; one
# line to $OUT/table.txt.  Always exits 0: a failure is a result.
set -u
what=$1 n=$2 target=$3 h=$4
: "${OUT:=results}" "${TIMEOUT:=60}" "${NVCC:=nvcc}" "${PTXAS:=ptxas}" "${ARCH:=sm_90}"
: "${NVCCFLAGS:=-O3 -std=c++17 -arch=$ARCH -fmad=false}"
o=$OUT/$n
mkdir -p "$o" bin obj
to=
command -v timeout >/dev/null 2>&1 && to="timeout $TIMEOUT"
if [ "$what" = build ]; then
	t0=$(date +%s)
	if [ "$target" = cuda ]; then
		if [ ! -f "obj/$h.host.o" ]; then
			echo "the host program host/$h.cu did not compile ($OUT/build/$h.host.log)" >"$o/build.log"
			rc=3
		else
			rm -f "bin/$n" "obj/$n.o"
			# shellcheck disable=SC2086
			$to "$NVCC" $NVCCFLAGS -Iinclude -c -o "obj/$n.o" "cand/$n.cu" >"$o/build.log" 2>&1 &&
				$to "$NVCC" $NVCCFLAGS -o "bin/$n" "obj/$n.o" "obj/$h.host.o" >>"$o/build.log" 2>&1
			rc=$?
		fi
	elif [ ! -x "bin/$h.ptxhost" ]; then
		echo "the host program host/$h.cu did not compile ($OUT/build/$h.ptxhost.log)" >"$o/build.log"
		rc=3
	else
		if command -v "$PTXAS" >/dev/null 2>&1; then
			$to "$PTXAS" -arch="$ARCH" -o "obj/$n.cubin" "cand/$n.ptx" >"$o/build.log" 2>&1
			rc=$?
		else
			echo "no ptxas: the driver compiles cand/$n.ptx when it loads it" >"$o/build.log"
			rc=0
		fi
	fi
	echo "$rc $(($(date +%s) - t0))" >"$o/build.rc"
	exit 0
fi
if [ "$target" = cuda ]; then
	set -- "./bin/$n"
else
	set -- "./bin/$h.ptxhost" --ptx "cand/$n.ptx"
fi
prog=$1
ok=0 all=0
rc=$(cut -d' ' -f1 "$o/build.rc" 2>/dev/null)
while read -r run data kernel dim seed block; do
	all=$((all + 1))
	rm -rf "$o/run$run"
	if [ "${rc:-1}" != 0 ] || [ ! -x "$prog" ]; then
		echo "not run: the candidate or its host program did not build" >"$o/run$run.log"
		echo 125 >"$o/run$run.rc"
		continue
	fi
	ins=
	for f in in/"$h"/t"$data"/*.npy; do
		[ -f "$f" ] && ins="$ins --in $(basename "$f" .npy)=$f"
	done
	# shellcheck disable=SC2086
	$to "$@" --kernel "$kernel" --dim "$dim" --seed "$seed" --block "$block" $ins --out "$o/run$run" \
		</dev/null >"$o/run$run.log" 2>&1
	r=$?
	echo "$r" >"$o/run$run.rc"
	[ "$r" = 0 ] && ok=$((ok + 1))
done <"cand/$n.runs"
printf '%-40s %-4s build=%s ran=%d/%d\n' "$n" "$target" "${rc:-?}" "$ok" "$all" >>"$OUT/table.txt"
exit 0
