# lib.sh — shared by the tests/ad/*.test TAP scripts (sourced).
#   gradcheck_file FILE.kir [PASSES]
#       differentiate FILE (kopt -p ad,fold,cse,dce --verify-each, or PASSES),
#       then check every kernel named on a `# CHECK @name: OPTIONS` line with
#       kirgrad OPTIONS (one TAP case each)
#   ok NAME / not_ok NAME [DETAIL] / skip NAME REASON / done_testing
KOPT="$top_builddir/kopt"
KIRGRAD="$top_builddir/tests/ad/kirgrad"
TMP=${TMPDIR:-/tmp}/kpy-ad.$$
mkdir -p "$TMP"
trap 'rm -rf "$TMP"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
	n=$((n + 1)); failed=1; echo "not ok $n - $1"
	[ -n "$2" ] && printf '%s\n' "$2" | sed 's/^/# /'
	return 0
}
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
done_testing() { echo "1..$n"; exit 0; }

gradcheck_file() {
	f=$1
	passes=${2:-ad,fold,cse,dce}
	base=$(basename "$f" .kir)
	out="$TMP/$base.adj.kir"
	if ! "$KOPT" -p "$passes" --verify-each "$f" >"$out" 2>"$TMP/err"; then
		not_ok "$base: kopt -p $passes" "$(cat "$TMP/err")"
		return 0
	fi
	grep '^# CHECK @' "$f" | while IFS= read -r line; do
		name=${line#"# CHECK @"}
		opts=${name#*:}
		name=${name%%:*}
		# shellcheck disable=SC2086
		if r=$("$KIRGRAD" -k "$name" $opts "$out" 2>&1); then
			echo "ok - $base/$name"
		else
			echo "not ok - $base/$name"
			printf '%s\n' "$r" | sed 's/^/# /'
		fi
	done >"$TMP/res"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) cur=${line#not ok - }; not_ok "$cur" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$TMP/res"
}

#   krun_gradcheck_file FILE.kir
#       the same kernels through the real back end: kcpu's C++ (double
#       precision variant) run by krun --gradcheck, on the inputs kirgrad
#       generates for the kernel's CHECK options (--npy); SKIP when kcpu or
#       krun is not built.  krun's step is --eps 1e-4: its default (1e-6 of
#       |x|, at least 1e-9) is dominated by rounding for inputs near 0.
KCPU="$top_builddir/kcpu"
KRUN="$top_builddir/krun"
krun_gradcheck_file() {
	f=$1
	base=$(basename "$f" .kir)
	if [ ! -x "$KCPU" ] || [ ! -x "$KRUN" ]; then
		skip "$base: krun --gradcheck" "kcpu or krun not built"
		return 0
	fi
	out="$TMP/$base.k.kir"
	if ! "$KOPT" -p ad,fold,cse,dce "$f" >"$out" 2>"$TMP/err" || ! "$KCPU" "$out" -o "$TMP/$base.cpp" 2>>"$TMP/err"; then
		not_ok "$base: kopt, kcpu" "$(cat "$TMP/err")"
		return 0
	fi
	export KPY_CACHE="$TMP/cache"
	grep '^# CHECK @' "$f" | while IFS= read -r line; do
		name=${line#"# CHECK @"}
		opts=${name#*:}
		name=${name%%:*}
		kargs="--dim 6"
		skipr=""
		# shellcheck disable=SC2086
		set -- $opts
		while [ $# -gt 0 ]; do
			case $1 in
			-d) kargs="$kargs --dim $2"; shift ;;
			-i) kargs="$kargs --set $2"; shift ;;
			-x) skipr="Warp's rule for the initial content of $2 is not a true gradient" ; shift ;;
			-s | -r | -S | -t) shift ;;
			esac
			shift
		done
		if [ -n "$skipr" ]; then
			echo "skip - $base/$name (krun): $skipr"
			continue
		fi
		rm -rf "$TMP/npy"; mkdir -p "$TMP/npy"
		# shellcheck disable=SC2086
		"$KIRGRAD" --npy "$TMP/npy" -k "$name" $opts "$out" 2>"$TMP/err2"
		for a in "$TMP"/npy/*.npy; do
			[ -e "$a" ] && kargs="$kargs --in $(basename "$a" .npy)=$a"
		done
		# shellcheck disable=SC2086
		if r=$("$KRUN" "$TMP/$base.cpp" --kernel "$name" $kargs --gradcheck --eps 1e-4 2>&1); then
			echo "ok - $base/$name (krun)"
		else
			echo "not ok - $base/$name (krun)"
			printf '%s\n' "$r" | sed 's/^/# /'
		fi
	done >"$TMP/res"
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok "${line#ok - }" ;;
		"not ok - "*) not_ok "${line#not ok - }" ;;
		"skip - "*) cur=${line#skip - }; skip "${cur%%: *}" "${cur#*: }" ;;
		"# "*) echo "$line" ;;
		esac
	done <"$TMP/res"
}
