# tests/warp/common.sh — sourced by the Warp tests: find Python with Warp
# (creating the venv on first use) or skip the whole script.
. "$top_srcdir/tests/lib.sh"
for t in kpyc kopt kcpu krun; do
	[ -x "$top_builddir/$t" ] || tap_skip_all "$t is not built yet"
done
WARPPY=$(sh "$top_srcdir/tests/warp/venv.sh" 2>"$TMPD/venv.err") || tap_skip_all "NVIDIA Warp unavailable: $(cat "$TMPD/venv.err")"
export WARP_CACHE_PATH="$top_builddir/.warp-cache"
export PYTHONDONTWRITEBYTECODE=1
