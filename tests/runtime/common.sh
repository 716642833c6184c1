# common.sh — sourced by the tests/runtime/*.test scripts: the TAP helpers
# and $TMPD of tests/lib.sh, the flags the headers are compiled with, and
# have (a compiler named by a variable exists?).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib.sh"
: "${CXX:=c++}"
: "${CC:=cc}"

KPY_CXXFLAGS="-std=c++17 -Wall -Wextra -Werror -ffp-contract=off -I$top_srcdir/runtime/include -I$here"

# A compiler named by a variable exists?
have() { [ -n "$1" ] && command -v "${1%% *}" > /dev/null 2>&1; }
