#!/usr/bin/env bash
# build.sh — install what kpy needs, build it, and run a job.
#
#   ./build.sh dataset   install, build, build a verified dataset (the main job)
#   ./build.sh test      install, build, run the whole test suite; then build
#                        with ASan+UBSan (build-san/) and run the suite again
#                        (KPY_NO_SANITIZE=1 skips that second run)
#   ./build.sh build     install and build only
#   ./build.sh sanitize  build in build-san/ with ASan+UBSan and run the test suite there
#   ./build.sh deps      install the system packages only
#
# Idempotent and fast when nothing changed: packages are installed only when
# missing, configure runs only when configure.ac or Makefile.am changed.
# Environment: JOBS (parallel make jobs, default: number of cores),
# KPY_NO_APT=1 (never call apt-get).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here"
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Debian packages the build and the tests need.
PKGS=(build-essential autoconf automake re2c bison pkg-config llvm-19-dev clang-19 libzstd-dev libcjson-dev
      python3 python3-venv clang mandoc)

# Optional packages: only some tests use them (tests/dataset/slurm.test starts
# a single-node Slurm cluster); a failed install leaves those tests skipped.
OPT_PKGS=(slurm-wlm munge)

log() { printf '%s\n' "build.sh: $*" >&2; }

deps() {
	local missing=() opt=()
	for p in "${OPT_PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || opt+=("$p")
	done
	if [ ${#opt[@]} -gt 0 ] && [ "${KPY_NO_APT:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
		log "installing (optional): ${opt[*]}"
		env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${opt[@]}" >/dev/null 2>&1 || {
			apt-get update -q >/dev/null 2>&1 || true
			env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${opt[@]}" >/dev/null 2>&1 ||
				log "could not install ${opt[*]}: the tests that need them are skipped"
		}
	fi
	for p in "${PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "${KPY_NO_APT:-0}" = 1 ]; then
		log "missing packages: ${missing[*]} (KPY_NO_APT=1: not installing)"
		return 0
	fi
	local sudo=""
	if [ "$(id -u)" != 0 ]; then
		if command -v sudo >/dev/null; then sudo=sudo; else
			log "missing packages: ${missing[*]}; run as root or install them"; return 1
		fi
	fi
	log "installing: ${missing[*]}"
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >/dev/null 2>&1 || {
		$sudo apt-get update -q >/dev/null 2>&1 || true
		$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2
	}
}

# configure into directory $1 with extra arguments.
configure_in() {
	local dir=$1; shift
	if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt Makefile.in ] ||
	   [ -n "$(find . -name Makefile.inc -newer Makefile.in 2>/dev/null | head -1)" ]; then
		log "autoreconf"
		autoreconf -fi >/dev/null 2>&1 || autoreconf -fi
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/config.status" ]; then
		log "configure $* (in $dir)"
		(cd "$dir" && "$here/configure" -q "$@")
	fi
}

build() {
	deps
	configure_in build
	make -C build -s -j"$JOBS" >&2
}

# The last line of the test command is the plain summary CI reads.
# run_tests DIR LOG: make check in DIR, its output appended to LOG.
run_tests() {
	local dir=$1 out=$2 rc=0
	make -C "$dir" -j"$JOBS" check 2>&1 | tee -a "$out" || rc=$?
	if ! grep -q '^# TOTAL:' "$out"; then
		log "the test suite did not run in $dir (make check exited $rc)"
		echo "# FAIL: 1" >>"$out"
		return 1
	fi
	return $rc
}

# The totals of one or more "make check" summaries.
summary_all() {
	local log=$1
	awk '/^# PASS:/{p+=$3} /^# XFAIL:/{p+=$3} /^# FAIL:/{f+=$3} /^# ERROR:/{f+=$3} /^# XPASS:/{f+=$3}
	     /^# SKIP:/{s+=$3} END{printf "%d passed, %d failed, %d skipped\n", p, f, s}' "$log"
}

cmd=${1:-build}
shift || true
case $cmd in
	deps) deps ;;
	build) build ;;
	test)
		if ! build; then echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
		tlog=$(mktemp); rc=0
		run_tests build "$tlog" || rc=1
		if [ "${KPY_NO_SANITIZE:-0}" != 1 ]; then
			log "the suite again under AddressSanitizer and UndefinedBehaviorSanitizer (build-san/)"
			# share the Warp environment the first run installed
			if [ -x build/.venv-warp/bin/python ] && [ -z "${KPY_WARP_PYTHON:-}" ]; then
				export KPY_WARP_PYTHON="$here/build/.venv-warp/bin/python"
			fi
			if [ -x build/.venv-hf/bin/python ] && [ -z "${KPY_HF_PYTHON:-}" ]; then
				export KPY_HF_PYTHON="$here/build/.venv-hf/bin/python"
			fi
			configure_in build-san --enable-sanitizers
			if make -C build-san -s -j"$JOBS" >&2; then
				run_tests build-san "$tlog" || rc=1
			else
				echo "# FAIL: 1" >>"$tlog"; rc=1
			fi
		fi
		summary_all "$tlog"
		rm -f "$tlog"
		exit $rc
		;;
	sanitize)
		deps
		configure_in build-san --enable-sanitizers
		if ! make -C build-san -s -j"$JOBS" >&2; then echo "0 passed, 1 failed, 0 skipped"; exit 1; fi
		tlog=$(mktemp); rc=0
		run_tests build-san "$tlog" || rc=1
		summary_all "$tlog"; rm -f "$tlog"; exit $rc
		;;
	dataset)
		build
		make -C build -s -j"$JOBS" dataset "$@"
		;;
	demo)
		build
		make -C build -s demo "$@"
		;;
	*)
		echo "usage: ./build.sh [dataset|test|build|sanitize|deps]" >&2
		exit 2
		;;
esac
