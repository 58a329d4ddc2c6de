#!/usr/bin/env bash
# python_test.sh SOURCE_DIR CMAKE: the Python package is built for the caller's interpreter when
# they name one (-DPython3_EXECUTABLE, -DPython3_ROOT_DIR, an active virtual environment), and for
# /usr/bin/python3 otherwise, even when another python3 comes first on PATH.
set -euo pipefail
src=$1
cmake=$2
[[ -x /usr/bin/python3 ]] || { echo "no /usr/bin/python3: skipped"; exit 77; }
work=$(mktemp -d /tmp/cudabridge-python-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
chosen() {  # [env assignments...] -- [cmake arguments...] -> the interpreter FindPython took
  local envs=() b
  b=$(mktemp -d "$work/build-XXXXXX")  # a fresh build folder each: nothing cached
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  env -u VIRTUAL_ENV -u CONDA_PREFIX -u Python3_ROOT_DIR "${envs[@]}" \
    "$cmake" -S "$(dirname "$0")/python_probe" -B "$b" -DCB_SOURCE_DIR="$src" "$@" >"$b.log" 2>&1 \
    || { cat "$b.log" >&2; fail "configuring with ${envs[*]} $*"; }
  sed -n 's/^-- CB_PYTHON=//p' "$b.log"
}

# Another interpreter: a prefix of its own with bin/python3, and a virtual environment.
mkdir -p "$work/other/bin"
ln -s /usr/bin/python3 "$work/other/bin/python3"
/usr/bin/python3 -m venv --without-pip "$work/venv" || fail "making a virtual environment"

got=$(chosen PATH="$work/other/bin:$PATH" --)
[[ $got == /usr/bin/python3 ]] || fail "with nothing named, the default is '$got', not /usr/bin/python3"
got=$(chosen -- -DPython3_EXECUTABLE="$work/other/bin/python3")
[[ $got == "$work/other/bin/python3" ]] || fail "-DPython3_EXECUTABLE was not honoured: '$got'"
got=$(chosen -- -DPython3_ROOT_DIR="$work/other")
[[ $got == "$work/other/bin/python3" ]] || fail "-DPython3_ROOT_DIR was not honoured: '$got'"
got=$(chosen VIRTUAL_ENV="$work/venv" PATH="$work/venv/bin:$PATH" --)
[[ $got == "$work/venv/bin/"* ]] || fail "the active virtual environment's interpreter was not taken: '$got'"
echo "python interpreter choice: ok"
