#!/bin/sh
# tests/dataset/hfvenv.sh — print the path of a Python that has Hugging Face
# `datasets` (and pyarrow), creating a virtual environment under the build
# tree on first use: $top_builddir/.venv-hf (pinned below).  Exits 1, with the
# reason on stderr, when it cannot be had, so that callers skip — never pass.
# KPY_HF_PYTHON overrides the choice.
set -u
DATASETS_VERSION=5.2.0
if [ -n "${KPY_HF_PYTHON:-}" ]; then
	"$KPY_HF_PYTHON" -c 'import datasets, pyarrow' 2>/dev/null && { echo "$KPY_HF_PYTHON"; exit 0; }
	echo "KPY_HF_PYTHON=$KPY_HF_PYTHON has no datasets/pyarrow" >&2
	exit 1
fi
venv="${top_builddir:?}/.venv-hf"
py="$venv/bin/python"
ok() { "$py" -c "import datasets, pyarrow; assert datasets.__version__ == '$DATASETS_VERSION'" 2>/dev/null; }
ok && { echo "$py"; exit 0; }
[ -n "${KPY_NO_NETWORK:-}" ] && { echo "KPY_NO_NETWORK is set: not installing datasets" >&2; exit 1; }
exec 9>"$top_builddir/.venv-hf.lock"
if command -v flock >/dev/null 2>&1; then flock 9; fi
ok && { echo "$py"; exit 0; }
log="$top_builddir/.venv-hf.log"
{
	rm -rf "$venv"
	${PYTHON3:-python3} -m venv "$venv" &&
	"$py" -m pip install -q --disable-pip-version-check "datasets==$DATASETS_VERSION"
} >"$log" 2>&1
if ok; then echo "$py"; exit 0; fi
echo "could not install datasets $DATASETS_VERSION (see $log)" >&2
exit 1
