#!/usr/bin/env bash
# tests/bench/chain.sh BUILD-DIR [-r N] FILE.py... — the time of kpy's codegen chain,
# kpyc | kopt -p ad,O | kcuda (CUDA C++, forward and backward), and of the same
# chain in one process (kpyc -p ad,O --emit=cuda), on one core
# (a benchmark, not a test; `make bench` and samples/bench-dataset.sh):
#   per WALL USER SYS   one process chain per file
#   one WALL USER SYS   one chain over all the files
#   kper WALL USER SYS  kpyc -p ad,O --emit=cuda (in one process) per file
#   kone WALL USER SYS  the same over all the files
# in seconds (/usr/bin/time), per pass: with -r N each is run N times and the
# times divided by N (/usr/bin/time counts in hundredths).  CPU time (user + system) is the figure that
# does not depend on what else the machine runs.  Exits 1 if a chain fails.
set -eu
B=$(cd "$1" && pwd)
shift
R=1
if [ "${1:-}" = -r ]; then R=$2; shift 2; fi
pin=""
command -v taskset >/dev/null 2>&1 && pin="taskset -c 0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export B R
# shellcheck disable=SC2016
/usr/bin/time -o "$tmp/per" -f "%e %U %S" $pin bash -c '
	set -o pipefail
	for r in $(seq "$R"); do for f in "$@"; do "$B/kpyc" "$f" | "$B/kopt" -p ad,O 2>/dev/null | "$B/kcuda" >/dev/null || exit 1; done; done
	' chain "$@"
# shellcheck disable=SC2016
/usr/bin/time -o "$tmp/one" -f "%e %U %S" $pin bash -c '
	set -o pipefail
	for r in $(seq "$R"); do "$B/kpyc" "$@" | "$B/kopt" -p ad,O 2>/dev/null | "$B/kcuda" >/dev/null || exit 1; done
	' chain "$@"
# the same chain in one process (kpyc -p ad,O --emit=cuda, no kir text)
# shellcheck disable=SC2016
/usr/bin/time -o "$tmp/kper" -f "%e %U %S" $pin bash -c '
	for r in $(seq "$R"); do for f in "$@"; do "$B/kpyc" -p ad,O --emit=cuda "$f" >/dev/null 2>&1 || exit 1; done; done
	' chain "$@"
# shellcheck disable=SC2016
/usr/bin/time -o "$tmp/kone" -f "%e %U %S" $pin bash -c '
	for r in $(seq "$R"); do "$B/kpyc" -p ad,O --emit=cuda "$@" >/dev/null 2>&1 || exit 1; done
	' chain "$@"
for p in per one kper kone; do
	tail -1 "$tmp/$p" | awk -v p=$p -v r="$R" '{ printf "%s %.4f %.4f %.4f\n", p, $1 / r, $2 / r, $3 / r }'
done
