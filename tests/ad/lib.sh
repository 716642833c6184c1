# lib.sh — shared by the tests/ad/*.test TAP scripts (sourced after
# tests/lib.sh, whose TAP helpers they use; scratch files in $TMP = $TMPD).
#   gradcheck_file FILE.kir [PASSES]
#       differentiate FILE (kopt -p ad,fold,cse,dce --verify-each, or PASSES),
#       then check every kernel named on a `# CHECK @name: OPTIONS` line with
#       kirgrad OPTIONS (one TAP case each)
. "$top_srcdir/tests/lib.sh"
KOPT="$top_builddir/kopt"
KIRGRAD="$top_builddir/tests/ad/kirgrad"
TMP=$TMPD

gradcheck_file() {
	f=$1
	passes=${2:-ad,fold,cse,dce}
	base=$(basename "$f" .kir)
	out="$TMP/$base.adj.kir"
	if ! "$KOPT" -p "$passes" --verify-each "$f" >"$out" 2>"$TMP/err"; then
		tap_fail "$base: kopt -p $passes" "$(cat "$TMP/err")"
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
	tap_pipe "" <"$TMP/res"
}

#   krun_gradcheck_file FILE.kir
#       the same kernels through the real back end: kcpu's C++ (double
#       precision variant) run by krun --gradcheck, on the inputs kirgrad
#       generates for the kernel's CHECK options (--npy); SKIP when kcpu or
#       krun is not built.  krun's default step (1e-6 of max(|x|, 1)).
KCPU="$top_builddir/kcpu"
KRUN="$top_builddir/krun"
krun_gradcheck_file() {
	f=$1
	base=$(basename "$f" .kir)
	if [ ! -x "$KCPU" ] || [ ! -x "$KRUN" ]; then
		tap_skip "$base: krun --gradcheck" "kcpu or krun not built"
		return 0
	fi
	out="$TMP/$base.k.kir"
	if ! "$KOPT" -p ad,fold,cse,dce "$f" >"$out" 2>"$TMP/err"; then
		tap_fail "$base: kopt" "$(cat "$TMP/err")"
		return 0
	fi
	if ! "$KCPU" "$out" -o "$TMP/$base.cpp" 2>"$TMP/err"; then
		# a failure even where kcpu cannot translate the forward module either
		tap_fail "$base: kcpu" "$(cat "$TMP/err")"
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
			echo "ok - $base/$name (krun) # SKIP $skipr"
			continue
		fi
		rm -rf "$TMP/npy"; mkdir -p "$TMP/npy"
		# shellcheck disable=SC2086
		"$KIRGRAD" --npy "$TMP/npy" -k "$name" $opts "$out" 2>"$TMP/err2"
		for a in "$TMP"/npy/*.npy; do
			[ -e "$a" ] && kargs="$kargs --in $(basename "$a" .npy)=$a"
		done
		# shellcheck disable=SC2086
		if r=$("$KRUN" "$TMP/$base.cpp" --kernel "$name" $kargs --gradcheck 2>&1); then
			echo "ok - $base/$name (krun)"
		else
			echo "not ok - $base/$name (krun)"
			printf '%s\n' "$r" | sed 's/^/# /'
		fi
	done >"$TMP/res"
	tap_pipe "" <"$TMP/res"
}

#   krun_module FILE.py|FILE.kir|FILE.krun
#       kpyc (for Python), kopt -p ad,fold,cse,dce --verify-each, kcpu, then
#       krun --gradcheck for every kernel kopt differentiated.  A check
#       passes at krun's default step, at --eps 1e-5 or at --eps 1e-4
#       (central differences lose digits to rounding for small steps and to
#       truncation for large ones).  The known failures are listed, each
#       with its reason, in $EXEMPT (tests/ad/allgrad.exempt): a kernel
#       listed there whose gradient check fails where kopt warned, and a
#       module whose ops without a derivative rule are exactly the listed
#       ones, are TODO with the listed reason; anything else fails, and so
#       does a listed kernel that passes.  Every entry used is appended to
#       $TMP/used (see exempt_unused).  Scalar parameters named n are set to 5.
EXEMPT=${EXEMPT:-$top_srcdir/tests/ad/allgrad.exempt}
: >"$TMP/used"
# exempt_reason KEY: the reason listed for KEY (MODULE:KERNEL or MODULE), or
# nothing (exit 1)
exempt_reason() {
	awk -v k="$1" '!/^#/ && $1 == k { $1 = ""; sub(/^ +/, ""); print; found = 1; exit } END { exit !found }' "$EXEMPT"
}
#   exempt_unused MODULE...: a failing case for every entry of $EXEMPT whose
#       module is one of MODULE... (names relative to the source tree) and
#       that was not used (the failure it excused is gone: remove it)
exempt_unused() {
	for mm in "$@"; do
		awk -v m="$mm" '!/^#/ && NF && ($1 == m || index($1, m ":") == 1) { print $1 }' "$EXEMPT"
	done | while read -r key; do
		grep -qxF "$key" "$TMP/used" || echo "$key"
	done >"$TMP/unused"
	while read -r key; do
		tap_fail "$key: listed in $(basename "$EXEMPT") but it does not fail: remove the entry"
	done <"$TMP/unused"
}
krun_module() {
	m=$1
	name=$(echo "$m" | sed "s|^$top_srcdir/||")
	base=$TMP/$(echo "$name" | tr '/.' '__')
	export KPY_CACHE="$TMP/cache"
	case $m in
	*.py)
		if ! "$top_builddir/kpyc" "$m" -o "$base.kir" 2>"$TMP/err"; then
			tap_fail "$name: kpyc" "$(cat "$TMP/err")"
			return 0
		fi
		src=$base.kir ;;
	*) src=$m ;;
	esac
	if ! "$KOPT" "$src" >/dev/null 2>"$TMP/err"; then
		tap_fail "$name: the module does not verify" "$(cat "$TMP/err")"
		return 0
	fi
	"$KOPT" -p ad,fold,cse,dce --verify-each "$src" >"$base.ad.kir" 2>"$TMP/err"
	rc=$?
	if [ $rc = 1 ] && grep -q 'error: no derivative for op' "$TMP/err"; then
		ops=$(sed -n 's/.*error: no derivative for op \([a-z_0-9]*\).*/\1/p' "$TMP/err" | sort -u | tr '\n' ' ' | sed 's/ $//')
		if [ "$(exempt_reason "$name")" = "nodiff $ops" ]; then
			echo "$name" >>"$TMP/used"
			tap_todo "$name" "no derivative for op $ops"
		else
			tap_fail "$name: kopt -p ad,fold,cse,dce: no derivative for op $ops (not what $(basename "$EXEMPT") lists)" "$(cat "$TMP/err")"
		fi
		return 0
	elif [ $rc != 0 ]; then
		tap_fail "$name: kopt -p ad,fold,cse,dce" "$(cat "$TMP/err")"
		return 0
	fi
	tap_ok "$name: kopt -p ad,fold,cse,dce --verify-each"
	warned=$(grep -o 'warning: [a-z ]*' "$TMP/err" | head -1 | sed 's/warning: //')
	if ! "$KCPU" "$base.ad.kir" -o "$base.cpp" 2>"$TMP/err"; then
		# a failure even where kcpu cannot translate the forward module either
		tap_fail "$name: kcpu" "$(cat "$TMP/err")"
		return 0
	fi
	if ! "$KRUN" "$base.cpp" --list >"$TMP/list" 2>"$TMP/err"; then
		tap_fail "$name: krun --list" "$(cat "$TMP/err")"
		return 0
	fi
	while read -r line; do
		k=${line%%(*}
		case $line in *" backward="*) ;; *) continue ;; esac
		# a backward kernel written by hand (not by kopt) is not ours to check
		grep -q "^kernel @$k\.adj(" "$src" && continue
		tid=$(echo "$line" | sed -n 's/.* tid=\([0-9]*\).*/\1/p')
		case $tid in 2) dim=8,8 ;; 3) dim=4,4,4 ;; 4) dim=2,2,4,4 ;; *) dim=64 ;; esac
		set=""
		case $line in *[\(\ ]n:\ [iu][0-9]*) set="--set n=5" ;; esac
		if grep -q "^# NORANDOM:.* $k\( \|\$\)" "$src" "$m" 2>/dev/null; then
			tap_skip "$name: $k" "not defined for random inputs"
			continue
		fi
		case "$name:$k" in
		tests/ir/vecmat.kir:vecmat)
			# extract %M, 0, %i reads past the 3x3 matrix when tid >= 3
			dim=3 ;;
		esac
		# shellcheck disable=SC2086
		why=$(exempt_reason "$name:$k")
		if "$KRUN" "$base.cpp" --kernel "$k" --dim "$dim" $set --seed 3 --gradcheck >"$TMP/out" 2>&1 ||
		   "$KRUN" "$base.cpp" --kernel "$k" --dim "$dim" $set --seed 3 --gradcheck --eps 1e-5 >"$TMP/out" 2>&1 ||
		   "$KRUN" "$base.cpp" --kernel "$k" --dim "$dim" $set --seed 3 --gradcheck --eps 1e-4 >"$TMP/out" 2>&1; then
			tap_ok "$name: $k: krun --gradcheck"
		elif [ -n "$why" ] && [ -n "$warned" ] && grep -q '^gradcheck .* FAIL$' "$TMP/out" &&
		     ! grep -q 'Sanitizer\|runtime error:' "$TMP/out"; then
			# a listed kernel, wrong gradients kopt warned about (not a
			# crash, which fails)
			echo "$name:$k" >>"$TMP/used"
			tap_todo "$name: $k: krun --gradcheck" "$why"
			grep -v ' ok$' "$TMP/out" | sed 's/^/# /'
		else
			tap_fail "$name: $k: krun --gradcheck" "$(grep -v ' ok$' "$TMP/out")"
		fi
	done <"$TMP/list"
}
