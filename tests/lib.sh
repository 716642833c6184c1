# tests/lib.sh — TAP helpers for the .test scripts (sourced).
#
#   tap_plan N           print the plan
#   tap_ok NAME          a passing case
#   tap_fail NAME [MSG]  a failing case, MSG shown as a TAP diagnostic
#   tap_check NAME CMD…  run CMD; ok if it exits 0
#   tap_skip NAME REASON a skipped case
#   tap_todo NAME REASON a known failure (not ok ... # TODO REASON)
#   tap_skip_all REASON  skip the whole script (1..0 # SKIP)
#   tap_pipe PREFIX      number the "ok - NAME" / "not ok - NAME" lines of a
#                        program's output (stdin), NAME prefixed; other lines
#                        pass through (a C test driver's diagnostics)
#   tap_after N          a program printed the plan and cases 1..N: go on
#                        numbering from N+1
#   tap_done             print the plan at the end if none was given; exit 0
#                        (failures are reported by the "not ok" lines)
#   same_dataset A B     datasets A and B have the same files (splits, stats,
#                        card, headers: each present in both or in neither)
#                        with the same bytes
#   dataset_records D    the records of dataset D, every split (stdout)
#
# Scratch files go to $TMPD, removed on exit.
#
# Environment from Makefile.am: top_srcdir, top_builddir (absolute), CC, CXX, NVCC, ...
# Run by hand (sh tests/x/y.test [--update]), the source tree is the
# script's grandparent and the build tree its build/.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
export top_srcdir top_builddir
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
tap_todo() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $1 # TODO $2"; }
tap_after() { tap_n=$1; tap_planned=1; }
tap_skip_all() { echo "1..0 # SKIP $1"; exit 0; }
tap_pipe() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap_ok "$1${line#ok - }" ;;
		"not ok - "*) tap_fail "$1${line#not ok - }" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
}
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
