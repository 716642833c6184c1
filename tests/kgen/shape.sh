#!/bin/sh
# shape.sh BUILD-DIR [COUNT] — `make kgen-shape`: the shape of a default kgen
# run (seed 1; recipes and random categories apart) beside Warp's own example
# and test kernels (build/warp-wheel/units, from `make warp-coverage`; left
# out with a note when absent): lines, kir operations, calls, loops,
# branches per kernel (tests/kgen/shape.py).  A measurement, not a test.
b=$1 n=${2:-2000}
here=$(dirname "$0")
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
"$b/kgen" --seed 1 --count "$n" -o "$tmp/k/" >/dev/null || exit 1
recipes=" $("$b/kgen" --list | awk '$3 == "recipe:" { printf "%s ", $1 }')"
: >"$tmp/rec"; : >"$tmp/rnd"
for m in "$tmp"/k/*.meta; do
	c=$(sed -n 's/^category //p' "$m")
	case $recipes in *" $c "*) echo "${m%.meta}.py" >>"$tmp/rec" ;; *) echo "${m%.meta}.py" >>"$tmp/rnd" ;; esac
done
set -- --group kgen-recipes $(cat "$tmp/rec") --group kgen-random $(cat "$tmp/rnd")
u=$b/warp-wheel/units
if ls "$u"/example_*.py >/dev/null 2>&1; then
	set -- "$@" --group warp-examples "$u"/example_*.py --group warp-tests "$u"/test_*.py
else
	echo "(no $u: run make warp-coverage for Warp's kernels)"
fi
echo "kgen --seed 1 --count $n; Warp's kernels that kpyc accepts (one module each)"
exec "${PYTHON3:-python3}" "$here/shape.py" --kpyc "$b/kpyc" "$@"
