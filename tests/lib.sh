# tests/lib.sh — TAP helpers for the .test scripts (sourced).
#
#   tap_plan N           print the plan
#   tap_ok NAME          a passing case
#   tap_fail NAME [MSG]  a failing case, MSG shown as a TAP diagnostic
#   tap_check NAME CMD…  run CMD; ok if it exits 0
#   tap_skip_all REASON  skip the whole script (1..0 # SKIP)
#   tap_done             print the plan at the end if none was given
#   same_dataset A B     datasets A and B have the same files (splits, stats,
#                        card, headers: each present in both or in neither)
#                        with the same bytes
#   dataset_records D    the records of dataset D, every split (stdout)
#
# Environment from Makefile.am: top_srcdir, top_builddir (absolute), CC, CXX, NVCC, ...
: "${top_srcdir:?run through make check}" "${top_builddir:?run through make check}"
tap_n=0
tap_failed=0
tap_planned=0
TMPD=$(mktemp -d "${TMPDIR:-/tmp}/kpytest.XXXXXX")
trap 'rm -rf "$TMPD"' EXIT

tap_plan() { echo "1..$1"; tap_planned=1; }
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1"; }
tap_fail() {
	tap_n=$((tap_n + 1)); tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $1"
	if [ -n "${2:-}" ]; then printf '%s\n' "$2" | head -40 | sed 's/^/# /'; fi
}
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP ${2:-}"; }
tap_check() {
	local name=$1; shift
	local out
	if out=$("$@" 2>&1); then tap_ok "$name"; else tap_fail "$name" "$out"; fi
}
tap_skip_all() { echo "1..0 # SKIP $1"; exit 0; }
tap_done() { [ "$tap_planned" = 1 ] || echo "1..$tap_n"; exit 0; }
same_dataset() {
	local f
	for f in train.jsonl val.jsonl test.jsonl stats.json README.md include/kpy/kpy.h; do
		if [ -e "$1/$f" ] || [ -e "$2/$f" ]; then cmp -s "$1/$f" "$2/$f" || return 1; fi
	done
	return 0
}
dataset_records() {
	local f
	for f in train val test; do [ -f "$1/$f.jsonl" ] && cat "$1/$f.jsonl"; done
	return 0
}
