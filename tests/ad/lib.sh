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
