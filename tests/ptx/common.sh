# tests/ptx/common.sh — shared by the tests/ptx/*.test scripts (sourced after
# tests/lib.sh, from $top_srcdir).
B="$top_builddir"
LOWER="unroll,fold,cse,dce,scalarize,fold,cse,dce"
# Backward kernels: ad adds K.adj to every kernel, then the same lowering.
ADLOWER="inline,ad,$LOWER"

# Every kernel module of the tests (and of the samples, when there are any):
# kir files (.kir, tests/run's .krun), and Python modules kpyc accepts
# (those without a golden .kir beside them: the goldens are listed instead).
# The sanitizer run (SAN_FLAGS set) takes every other one, the same each
# time: it checks the tools' memory on the same code paths, and the plain
# run checks every module's numbers (as tests/dataset/dataset.test does).
ptx_inputs() {
	{
		ls tests/ir/*.kir tests/ptx/kernels/*.kir tests/run/*.krun tests/cuda/golden/*.kir \
			tests/passes/*.kir tests/frontend/*.kir tests/ad/*.kir 2>/dev/null
		for f in tests/run/*.py tests/warp/kernels/*.py tests/ptx/bench/*.py; do
			[ -f "$f" ] && [ ! -f "${f%.py}.kir" ] && echo "$f"
		done
		find samples -name '*.kir' -o -name '*.py' 2>/dev/null | sort
	} | if [ -n "${SAN_FLAGS:-}" ]; then awk 'NR % 2 == 1'; else cat; fi
}

# ptx_kir SRC OUT: the module as kir (Python through kpyc).
ptx_kir() {
	case $1 in
	*.py) "$B/kpyc" "$1" -o "$2" ;;
	*) "$B/kopt" "$1" -o "$2" ;;
	esac
}

# Kernel names of a kir file (forward kernels only: NAME.adj are run with
# krun -b from their forward kernel).
ptx_kernels() {
	sed -n 's/^kernel @\([A-Za-z0-9_]*\)(.*/\1/p' "$1"
}

# Launch extents for a kernel: its tid dimensions (16 each), except where a
# test kernel would index out of range past a small grid.
ptx_dims() { # KIR KERNEL [SRC]
	case "${3:-$1}:$2" in
	*/ir/vecmat.kir:vecmat) echo 3; return ;;
	*/ir/types.kir:arrays) echo 4; return ;;
	esac
	n=$(awk -v k="$2" '$1 == "kernel" { on = index($2, "@" k "(") == 1 } on && /= tid :/ { print gsub(/i32/, ""); exit }' "$1")
	case $n in 2) echo 16,16 ;; 3) echo 8,8,8 ;; 4) echo 4,4,4,4 ;; *) echo 16 ;; esac
}

# Kernels a module marks as undefined for random inputs ("# NORANDOM: K...").
ptx_norandom() { # SRC KERNEL
	grep -q "^# NORANDOM:.* $2\( \|\$\)" "$1" 2>/dev/null
}

# Extra krun options of a test module: its "# krun: ..." lines (shapes of
# output arrays larger than krun's defaults).
ptx_krunargs() {
	sed -n 's/^# krun: //p' "$1" | tr '\n' ' '
}

# A file name for test outputs derived from a path.
ptx_name() {
	echo "$1" | tr '/.' '__'
}

# A kernel looping forever on random inputs (a while loop whose exit the
# seeded data never reach) is stopped after 20 s.
# a bound on a hang, not on speed: a run that reaches it fails
PTX_TIMEOUT=
if command -v timeout >/dev/null 2>&1; then PTX_TIMEOUT="timeout 600"; fi

# The raw bytes krun writes for an array of structs holding arrays include
# the arrays' data pointers and the padding around them, which differ from
# run to run: those files are left out (the fields' own arrays, NAME.FIELD,
# are compared).  Always "fails", so that it can sit in an elif chain.
ptx_dropraw() { # KIR
	for st in $(sed -n 's/^struct @\([A-Za-z0-9_]*\) {.*array<.*/\1/p' "$1"); do
		for p in $(grep -o "%[A-Za-z0-9_]*: array<@$st," "$1" | sed 's/^%\([A-Za-z0-9_]*\):.*/\1/' | sort -u); do
			rm -f "$TMPD/ra/$p.npy" "$TMPD/rb/$p.npy" "$TMPD/ra/adj_$p.npy" "$TMPD/rb/adj_$p.npy"
		done
	done
	return 1
}

# ptx_runpair LABEL SRC KIR REF GOT: for every forward kernel of KIR, krun
# REF and GOT (a .cpp or .so each) on the same seeded inputs (with -b when
# $BACKWARD is set: the backward kernel too) and compare every array and the
# printed output: integers and bools bit for bit, floats within
# rtol 1e-5 + atol 1e-6.  One TAP line per kernel.
ptx_runpair() {
	_label=$1 _src=$2 _kir=$3 _ref=$4 _got=$5
	for k in $(ptx_kernels "$_kir"); do
		if ptx_norandom "$_src" "$k"; then
			tap_skip "$_label @$k" "not defined for random inputs (# NORANDOM)"; continue
		fi
		d=$(ptx_dims "$_kir" "$k" "$_src")
		rm -rf "$TMPD/ra" "$TMPD/rb"
		# compile first (krun caches it), so that only the run is timed
		"$B/krun" "$_ref" --list >/dev/null 2>&1
		"$B/krun" "$_got" --list >/dev/null 2>&1
		# shellcheck disable=SC2046
		$PTX_TIMEOUT "$B/krun" -q "$_ref" -k "$k" -d "$d" ${BACKWARD:+-b} $(ptx_krunargs "$_src") -o "$TMPD/ra" \
			>"$TMPD/ra.txt" 2>"$TMPD/err"
		rc=$?
		if [ $rc -ge 124 ]; then
			# a signal or the hang bound: a crash is a failure, never a skip
			tap_fail "$_label @$k: the reference runs" "exit $rc: $(head -c 300 "$TMPD/err")"
			continue
		elif [ $rc != 0 ]; then
			# a located error (a bounds fault: the kernel indexes by its inputs)
			tap_skip "$_label @$k" "not defined for these inputs: $(head -c 300 "$TMPD/err" | tr '\n' ' ')"
			continue
		fi
		# shellcheck disable=SC2046
		if ! $PTX_TIMEOUT "$B/krun" -q "$_got" -k "$k" -d "$d" ${BACKWARD:+-b} $(ptx_krunargs "$_src") -o "$TMPD/rb" \
			>"$TMPD/rb.txt" 2>"$TMPD/err"; then
			tap_fail "$_label @$k: runs" "$(cat "$TMPD/err")"
		elif ! ptx_dropraw "$_kir" && ! out=$("$B/tests/ptx/npycmp" --rtol 1e-5 --atol 1e-6 "$TMPD/ra" "$TMPD/rb" 2>&1); then
			tap_fail "$_label @$k: same arrays" "$out"
		elif ! cmp -s "$TMPD/ra.txt" "$TMPD/rb.txt"; then
			tap_fail "$_label @$k: same printed output" "$(diff "$TMPD/ra.txt" "$TMPD/rb.txt" | head -20)"
		else
			tap_ok "$_label @$k (dim $d)"
		fi
	done
}

# ptx_lowerfail LABEL: report a failed lowering (error text in $TMPD/err):
# a skip, said so, when an op has no scalar expansion yet (none today), else
# a failure.
ptx_lowerfail() {
	if grep -q "has no scalar expansion yet" "$TMPD/err"; then
		tap_skip "$1" "$(grep -o "'[a-z0-9_]*' has no scalar expansion yet" "$TMPD/err" | sort -u | tr '\n' ' ')"
	elif grep -q "bf16 is not supported by kptx --target=host" "$TMPD/err"; then
		tap_skip "$1" "bf16 is not supported by kptx --target=host"
	else
		tap_fail "$1" "$(cat "$TMPD/err")"
	fi
}
