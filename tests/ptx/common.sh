# tests/ptx/common.sh — shared by the tests/ptx/*.test scripts (sourced after tests/lib.sh).
B="$top_builddir"
LOWER="unroll,fold,cse,dce,scalarize,fold,cse,dce"

# The kir files every kptx test goes through: tests/ir, tests/ptx/kernels,
# and the samples when there are any (samples/**/*.kir, or .py through kpyc).
ptx_inputs() {
	ls tests/ir/*.kir tests/ptx/kernels/*.kir 2>/dev/null
	find samples -name '*.kir' 2>/dev/null | sort
}

# Kernel names of a kir file.
ptx_kernels() {
	sed -n 's/^kernel @\([A-Za-z0-9_.]*\)(.*/\1/p' "$1"
}

# Launch extents for a kernel: its tid dimensions (16 each), except where a
# test kernel would index out of range past a small grid.
ptx_dims() { # FILE KERNEL
	case "$1:$2" in
	*/vecmat.kir:vecmat) echo 3; return ;;
	*/types.kir:arrays) echo 4; return ;;
	esac
	n=$(awk -v k="$2" '$1 == "kernel" { on = index($2, "@" k "(") == 1 } on && /= tid :/ { print gsub(/i32/, ""); exit }' "$1")
	case $n in 2) echo 16,16 ;; 3) echo 8,8,8 ;; 4) echo 4,4,4,4 ;; *) echo 16 ;; esac
}

# A file name for test outputs derived from a path.
ptx_name() {
	echo "${1%.*}" | tr / _
}

# Extra krun options of a test module: its "# krun: ..." lines (shapes of
# output arrays larger than krun's defaults).
ptx_krunargs() {
	sed -n 's/^# krun: //p' "$1" | tr '\n' ' '
}
