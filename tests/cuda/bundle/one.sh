#!/bin/sh
# one.sh M K FB PATH DIM [RTOL] — run kernel K (fwd or bwd) of module M through
# PATH (cuda: kcuda's kernel; ptx: kptx's entry through the driver API) on
# krun's inputs, compare with krun's outputs, append one line to
# $OUT/table.txt: module kernel fwd|bwd path result maxerr detail.  RTOL:
# the kernel's own tolerance (a GPUTOL marker in the corpus), else $RTOL.
set -u
m=$1 k=$2 fb=$3 path=$4 dim=$5
: "${OUT:=out}" "${RTOL:=1e-4}" "${ATOL:=1e-5}" "${SEED:=1}" "${TIME:=0}"
note=
if [ -n "${6:-}" ]; then
	RTOL=$6
	note=" (GPUTOL rtol=$6)"
fi
mkdir -p "$OUT/logs"
log=$OUT/logs/$m.$k.$path.log
row() {
	printf '%-26s %-30s %-3s %-4s %-4s %-9s %s\n' "$m" "$k" "$fb" "$path" "$1" "$2" "$3" >>"$OUT/table.txt"
}
if [ ! -x "bin/$m" ]; then
	row FAIL - "nvcc failed (build/$m.log)"
	exit 0
fi
# every array as it ends, for bits.sh (kptx against kcuda, bit for bit)
res=$OUT/res/$m/$k.$path
mkdir -p "$res"
set -- --kernel "$k" --dim "$dim" --seed "$SEED" --expect "exp/$m/$k" --rtol "$RTOL" --atol "$ATOL" --out "$res"
if [ "$path" = ptx ]; then
	if [ ! -f "ptx/$m.ptx" ]; then
		row FAIL - "no PTX (kptx failed when bundling)"
		exit 0
	fi
	set -- "$@" --ptx "ptx/$m.ptx"
fi
for f in in/"$m"/"$k"/*.npy; do
	[ -f "$f" ] && set -- "$@" --in "$(basename "$f" .npy)=$f"
done
[ "$TIME" -gt 0 ] && set -- "$@" --time "$TIME"
to=
command -v timeout >/dev/null 2>&1 && to="timeout 120"
$to "./bin/$m" "$@" >"$log" 2>&1
rc=$?
maxerr=$(sed -n 's/.*maxerr=\([^ )]*\).*/\1/p' "$log" | awk 'BEGIN { m = "" } { if (m == "" || $1 + 0 > m + 0 || $1 ~ /inf|nan/) m = $1 } END { print m }')
worst=$(sed -n 's/^ok .* worst=\([^ ]*\).*/\1/p' "$log" | awk 'BEGIN { m = 0 } { if ($1 + 0 > m + 0) m = $1 } END { print m }')
tm=$(sed -n 's/^time \([^ ]*\) ms \([^ ]*\) GB\/s copy [^ ]* ms \([^ ]*\) GB\/s/ \1ms \2GB\/s(copy \3GB\/s)/p' "$log")
if [ "$rc" -eq 0 ]; then
	row pass "${maxerr:-0}" "worst=$worst x tol$note$tm"
	rm -f "$log"
elif [ "$rc" -eq 124 ]; then
	row FAIL - "timeout ($log)"
else
	row FAIL "${maxerr:--}" "$(grep -m1 'FAIL\|error' "$log" | cut -c1-200) (exit $rc)$note"
fi
exit 0
