#!/bin/sh
# runkrun.sh FILE... — a TAP test of kir (.krun) or Warp-Python (.py)
# modules run by krun.  A .py goes through kpyc and kopt -O first.
#
# A .krun file is kir with directives in comments (a .py has the same
# directives in Python comments):
#   # RUN: KRUN-ARGS...              a case: krun MODULE KRUN-ARGS --out DIR
#   # IN: NAME DTYPE SHAPE V...      an input array (passed as --in NAME=...)
#   # OUT: NAME DTYPE SHAPE V...     an expected output array
#   # TOL: RTOL ATOL                 tolerance of the following OUT lines
#   # STDOUT: TEXT                   a line krun must print (print tests)
#   # EXIT: CODE TEXT                krun must exit CODE and say TEXT
# A case with --gradcheck runs krun on the C++ (krun compiles the double
# precision variant into a cache under the test's directory).
# IN/OUT/STDOUT/FAIL lines belong to the RUN above them.  Checks, each a
# TAP line: kcpu translates it (twice, byte-identical), g++ and clang++
# compile the C++ with -Wall -Wextra -Werror, every case's outputs match.
set -u
. "$(dirname "$0")/../lib.sh"
: "${CXX:=g++}" "${CLANGXX:=}"
inc=${KPY_INCLUDE:-$top_srcdir/runtime/include}
top=$TMPD
# the TAP lines of module $name
ok() { tap_ok "$name: $*"; }
notok() { tap_fail "$name: $*"; }
skip() { tap_skip "$name: $*"; }
diagfile() { sed 's/^/# /' "$1" | head -40; }

total=0
for f in "$@"; do
	total=$((total + 4 + $(grep -c '^# RUN:' "$f")))
done
tap_plan "$total"

# one module
runmodule() {
f=$1
name=$(basename "$f")
tmp=$top/$(echo "$name" | tr '.' '_')
mkdir -p "$tmp"
ncases=$(grep -c '^# RUN:' "$f")
src=$f
case $f in
*.py)
	if ! "$top_builddir/kpyc" "$f" -o "$tmp/m0.kir" 2>"$tmp/err" ||
	   ! "$top_builddir/kopt" -O "$tmp/m0.kir" -o "$tmp/m.kir" 2>>"$tmp/err"; then
		diagfile "$tmp/err"; notok "kpyc | kopt -O"
		i=0; while [ $i -lt $((3 + ncases)) ]; do notok "(not run)"; i=$((i + 1)); done
		return
	fi
	src=$tmp/m.kir ;;
esac
if "$top_builddir/kcpu" "$src" -o "$tmp/m.cpp" 2>"$tmp/err" && "$top_builddir/kcpu" "$src" -o "$tmp/m2.cpp" &&
   cmp -s "$tmp/m.cpp" "$tmp/m2.cpp"; then
	ok "kcpu (deterministic)"
else
	diagfile "$tmp/err"; notok "kcpu"
	i=0; while [ $i -lt $((3 + ncases)) ]; do notok "(not run)"; i=$((i + 1)); done
	return
fi
if $CXX -std=c++17 -O2 -Wall -Wextra -Werror -ffp-contract=off -shared -fPIC -I"$inc" \
	-o "$tmp/m.so" "$tmp/m.cpp" 2>"$tmp/err"; then
	ok "$CXX -Wall -Wextra -Werror"
else
	diagfile "$tmp/err"; notok "$CXX -Wall -Wextra -Werror"
fi
if [ -z "$CLANGXX" ]; then
	skip "clang++ -Wall -Wextra -Werror (no clang++)"
elif $CLANGXX -std=c++17 -Wall -Wextra -Werror -fsyntax-only -I"$inc" "$tmp/m.cpp" 2>"$tmp/err"; then
	ok "clang++ -Wall -Wextra -Werror"
else
	diagfile "$tmp/err"; notok "clang++ -Wall -Wextra -Werror"
fi
if $CXX -std=c++17 -O0 -Wall -Wextra -Werror -DKPY_F32_DOUBLE -fsyntax-only -I"$inc" "$tmp/m.cpp" 2>"$tmp/err"; then
	ok "KPY_F32_DOUBLE build"
else
	diagfile "$tmp/err"; notok "KPY_F32_DOUBLE build"
fi

# one case: the RUN line number $1
runcase() {
	line=$1
	args=$(sed -n "${line}p" "$f" | sed 's/^# RUN://')
	dir="$tmp/case$line"
	mkdir -p "$dir/in"
	ins=""
	rtol=1e-6 atol=1e-6
	okc=1
	: >"$dir/why"
	# the directives up to the next RUN
	sed -n "$((line + 1)),\$p" "$f" | sed '/^# RUN:/,$d' | grep '^# \(IN\|OUT\|TOL\|STDOUT\|EXIT\):' >"$dir/dirs" || true
	while read -r hash kind nm dt sh vals; do
		if [ "$kind" = "IN:" ]; then
			# shellcheck disable=SC2086
			"$top_builddir/npytool" make "$dir/in/$nm.npy" "$dt" "$sh" $vals || okc=0
			ins="$ins --in $nm=$dir/in/$nm.npy"
		fi
	done <"$dir/dirs"
	module=$tmp/m.so
	case " $args " in *" --gradcheck "*) module=$tmp/m.cpp ;; esac
	# shellcheck disable=SC2086
	KPY_CACHE=$tmp/cache KPY_INCLUDE=$inc "$top_builddir/krun" "$module" $args $ins --out "$dir/out" \
		>"$dir/stdout" 2>"$dir/stderr"
	rc=$?
	expectfail=$(grep '^# EXIT:' "$dir/dirs" | sed 's/^# EXIT: *//' | head -1)
	if [ -n "$expectfail" ]; then
		code=${expectfail%% *} expectfail=${expectfail#* }
		if [ $rc -ne "$code" ] || ! grep -qF -- "$expectfail" "$dir/stderr" "$dir/stdout"; then
			echo "expected exit $code and '$expectfail', got exit $rc:" >>"$dir/why"
			cat "$dir/stderr" >>"$dir/why"; okc=0
		fi
	elif [ $rc -ne 0 ]; then
		echo "krun exited $rc" >>"$dir/why"; cat "$dir/stderr" >>"$dir/why"; okc=0
	fi
	while read -r hash kind nm dt sh vals; do
		case $kind in
		TOL:) rtol=$nm atol=$dt ;;
		OUT:)
			# shellcheck disable=SC2086
			"$top_builddir/npytool" check "$dir/out/$nm.npy" "$dt" "$sh" "$rtol" "$atol" $vals 2>>"$dir/why" || okc=0 ;;
		STDOUT:)
			want=$(echo "$nm $dt $sh $vals" | sed 's/ *$//')
			sed "s/ *$//" "$dir/stdout" | grep -qxF -- "$want" || { echo "no stdout line '$want'" >>"$dir/why"; okc=0; } ;;
		esac
	done <"$dir/dirs"
	if [ $okc = 1 ]; then
		ok "case at line $line:$args"
	else
		diagfile "$dir/why"; notok "case at line $line:$args"
	fi
}
for line in $(grep -n '^# RUN:' "$f" | cut -d: -f1); do
	runcase "$line"
done
}

for f in "$@"; do
	runmodule "$f"
done
tap_done
