# common.sh — sourced by the tests/runtime/*.test scripts.
#
# Defaults for running a test by hand (make check exports these), a scratch
# directory removed on exit, and TAP helpers: tap_ok/tap_not_ok/tap_skip NAME,
# tap_pipe PREFIX (numbers a program's unnumbered "ok - ..." lines), tap_end
# (prints the plan, exits 0: failures are reported by TAP, not the status).

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
: "${CXX:=c++}"
: "${CC:=cc}"
export top_srcdir top_builddir

KPY_CXXFLAGS="-std=c++17 -Wall -Wextra -Werror -ffp-contract=off -I$top_srcdir/runtime/include -I$here"

work=$(mktemp -d "${TMPDIR:-/tmp}/kpy-runtime-test.XXXXXX") || exit 99
trap 'rm -rf "$work"' EXIT

tap_n=0
tap_ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
tap_not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }
tap_skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }
tap_check() { # tap_check NAME COMMAND...: ok if the command succeeds; its output as diagnostics otherwise
	name=$1
	shift
	if "$@" > "$work/out" 2>&1; then
		tap_ok "$name"
	else
		tap_not_ok "$name"
		sed 's/^/# /' "$work/out" | head -40
	fi
}
tap_pipe() { # tap_pipe PREFIX < program output
	while IFS= read -r line; do
		case $line in
		"ok - "*) tap_n=$((tap_n + 1)); echo "ok $tap_n - $1${line#ok - }" ;;
		"not ok - "*) tap_n=$((tap_n + 1)); echo "not ok $tap_n - $1${line#not ok - }" ;;
		*) echo "$line" ;;
		esac
	done
}
tap_end() { echo "1..$tap_n"; exit 0; }

# A compiler named by a variable exists?
have() { [ -n "$1" ] && command -v "${1%% *}" > /dev/null 2>&1; }
