#!/bin/sh
# tests/warp/venv.sh — print the path of a Python that has NVIDIA Warp and
# numpy, creating a virtual environment under the build tree on first use:
#   $top_builddir/.venv-warp  (warp-lang and numpy from PyPI, pinned below)
# Exits 1 (printing the reason on stderr) when Warp cannot be had, so callers
# report their tests as skipped — never as passed.
# KPY_WARP_PYTHON overrides the choice.
set -u
WARP_VERSION=1.19.0
NUMPY_SPEC="numpy>=1.26,<3"
if [ -n "${KPY_WARP_PYTHON:-}" ]; then
	"$KPY_WARP_PYTHON" -c 'import warp, numpy' 2>/dev/null && { echo "$KPY_WARP_PYTHON"; exit 0; }
	echo "KPY_WARP_PYTHON=$KPY_WARP_PYTHON has no warp/numpy" >&2
	exit 1
fi
venv="${top_builddir:?}/.venv-warp"
py="$venv/bin/python"
ok() { "$py" -c "import warp, numpy; assert warp.__version__ == '$WARP_VERSION'" 2>/dev/null; }
ok && { echo "$py"; exit 0; }
[ -n "${KPY_NO_NETWORK:-}" ] && { echo "KPY_NO_NETWORK is set: not installing warp-lang" >&2; exit 1; }
# one installer at a time (tests run in parallel)
exec 9>"$top_builddir/.venv-warp.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
ok && { echo "$py"; exit 0; }
log="$top_builddir/.venv-warp.log"
{
	rm -rf "$venv"
	${PYTHON3:-python3} -m venv "$venv" &&
	"$py" -m pip install -q --disable-pip-version-check "warp-lang==$WARP_VERSION" "$NUMPY_SPEC"
} >"$log" 2>&1
if ok; then echo "$py"; exit 0; fi
echo "could not install warp-lang $WARP_VERSION and numpy (see $log)" >&2
exit 1
