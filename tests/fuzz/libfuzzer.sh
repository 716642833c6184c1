#!/bin/sh
# libfuzzer.sh build|run TARGET... — the libFuzzer side of tests/fuzz/,
# driven by `make fuzz` / `make fuzz-build` (which set the environment:
# CC, srcdir, builddir, FUZZ_TIME, FUZZ_FLAGS (more libFuzzer flags), the
# *_SRCS source lists, CJSON_*).
#
# build: compile every source the targets reach into $builddir/fuzz/obj/
#        with -fsanitize=fuzzer-no-link,address,undefined (so libFuzzer sees
#        coverage in all of it, not just in the harness) and link
#        $builddir/fuzz/fuzz-TARGET with -fsanitize=fuzzer.
# run:   run each target for FUZZ_TIME seconds, one after the other, on a
#        work corpus $builddir/fuzz/corpus-TARGET/ seeded from
#        tests/fuzz/corpus/TARGET/ and the test inputs; crashes go to
#        $builddir/fuzz/TARGET-crashes/ and make the run fail.  A finding
#        libFuzzer stops at the first crash; FUZZ_FLAGS='-fork=1
#        -ignore_crashes=1' goes on for the whole time.  A finding
#        that is fixed belongs, minimized (fuzz-TARGET -minimize_crash=1
#        -runs=10000 FILE), in tests/fuzz/corpus/TARGET/, which make check
#        replays through the plain build.
#
# Targets: kpyc (kpyc_compile, then verify/print/parse of its output),
# kir (kir parser, verifier, passes, kcpu/kcuda emitters), npy (the .npy
# reader), kpack (kpack validate's record check).
set -eu
mode=$1
shift
: "${CC:=clang}" "${srcdir:?}" "${builddir:?}" "${FUZZ_TIME:=60}"
out=$builddir/fuzz
mkdir -p "$out/obj"

command -v "$CC" >/dev/null 2>&1 || { echo "libfuzzer.sh: $CC not found (set FUZZ_CC)" >&2; exit 77; }

SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=c11 -D_POSIX_C_SOURCE=200809L -DHAVE_CONFIG_H -DKPY_LIBFUZZER $SAN"
INC="-I$builddir -I$srcdir/ir -I$builddir/ir -I$srcdir/runtime/include -I$srcdir/runtime \
-I$srcdir/passes -I$srcdir/backends -I$srcdir/frontend -I$builddir/frontend ${CJSON_CFLAGS:-}"

# Headers, newest: an object older than any of them is rebuilt.
hstamp=$out/obj/.headers
newest=$(ls -t "$srcdir"/ir/*.h "$srcdir"/ir/*.def "$srcdir"/passes/*.h "$srcdir"/passes/*.def \
	"$srcdir"/backends/*.h "$srcdir"/frontend/*.h "$srcdir"/frontend/*.inc "$srcdir"/runtime/*.h \
	"$builddir"/frontend/*.h 2>/dev/null | head -1)

# obj SOURCE...: compile (when stale) and print the objects.
obj() {
	for f in "$@"; do
		if [ -f "$srcdir/$f" ]; then s=$srcdir/$f; else s=$builddir/$f; fi
		o=$out/obj/$(echo "$f" | tr / _).o
		if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || { [ -n "$newest" ] && [ "$newest" -nt "$o" ]; }; then
			echo "  FUZZCC   $f" >&2
			# shellcheck disable=SC2086
			$CC $CFLAGS -fsanitize=fuzzer-no-link $INC -c "$s" -o "$o"
		fi
		echo "$o"
	done
}

link() { # TARGET HARNESS SOURCES...
	t=$1; h=$2; shift 2
	objs=$(obj "$@")
	ho=$(obj "$h")
	echo "  FUZZLD   fuzz/fuzz-$t" >&2
	# shellcheck disable=SC2086
	$CC $SAN -fsanitize=fuzzer $ho $objs ${LIBS:-} -lm -o "$out/fuzz-$t"
}

build() {
	case $1 in
	kpyc) LIBS= link kpyc tests/frontend/fuzz_kpyc.c $KPYC_SRCS $KIR_SRCS ;;
	kir) LIBS= link kir tests/fuzz/kirfuzz.c $PASSES_SRCS $BACKEND_SRCS $KIR_SRCS ;;
	npy) LIBS= link npy tests/fuzz/npyfuzz.c $KRUN_SRCS $KIR_SRCS ;;
	kpack) LIBS=${CJSON_LIBS:-} link kpack tests/fuzz/kpackfuzz.c samples/neardup.c $KRUN_SRCS $KIR_SRCS ;;
	*) echo "libfuzzer.sh: unknown target $1" >&2; exit 2 ;;
	esac
}

# seeds TARGET DIR: the files a target starts from.
seeds() {
	dir=$2
	rm -rf "$dir"
	mkdir -p "$dir"
	case $1 in
	kpyc) set -- "$srcdir"/tests/frontend/*.py "$srcdir"/tests/frontend/real/*.py ;;
	kir) set -- "$srcdir"/tests/ir/*.kir "$srcdir"/tests/passes/*.kir ;;
	*) set -- ;;
	esac
	i=0
	for f in "$@" "$srcdir"/tests/fuzz/corpus/"$t"/*; do
		[ -f "$f" ] && cp "$f" "$dir/seed$i" && i=$((i + 1))
	done
	return 0
}

case $mode in
build)
	for t in "$@"; do build "$t"; done
	;;
run)
	bad=0
	for t in "$@"; do
		[ -x "$out/fuzz-$t" ] || build "$t"
		mkdir -p "$out/corpus-$t" "$out/$t-crashes"
		seeds "$t" "$out/seeds-$t"
		touch "$out/$t-crashes/.start"
		echo "fuzz-$t: $FUZZ_TIME s" >&2
		if (cd "$out" && "./fuzz-$t" -max_total_time="$FUZZ_TIME" -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix="$out/$t-crashes/" ${FUZZ_FLAGS:-} \
			"corpus-$t" "seeds-$t" >"$out/$t.log" 2>&1); then
			:
		else
			bad=$((bad + 1))
			echo "fuzz-$t: FAILED, see $out/$t.log and $out/$t-crashes/" >&2
		fi
		grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss)' "$out/$t.log" |
			sed "s/^/fuzz-$t: /" >&2 || true
		# -fork=1 -ignore_crashes=1 exits 0 after crashes: count the files
		n=$(find "$out/$t-crashes" -newer "$out/$t-crashes/.start" -type f -name 'crash-*' | wc -l)
		if [ "$n" -gt 0 ]; then
			echo "fuzz-$t: $n new crash input(s) in $out/$t-crashes/" >&2
			bad=$((bad + 1))
		fi
	done
	[ "$bad" = 0 ]
	;;
*)
	echo "usage: libfuzzer.sh build|run TARGET..." >&2
	exit 2
	;;
esac
