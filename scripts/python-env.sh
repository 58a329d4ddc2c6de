#!/usr/bin/env bash
# Makes a virtual environment (default build/venv) on Debian's interpreter that sees Debian's
# numpy and pytest (--system-site-packages), and installs the built cudabridge package into it
# with pip, offline (--no-build-isolation: no registry is asked for anything).
# Afterwards:  source build/venv/bin/activate   and `import cudabridge` works from any folder.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_BUILD_DIR:-$root/build}
venv=${1:-$build/venv}
python=/usr/bin/python3
[[ -x "$venv/bin/python" ]] || "$python" -m venv --system-site-packages "$venv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# pip builds in a copy: the source folder stays clean.
cp -r "$root/python/cudabridge" "$root/python/pyproject.toml" "$root/python/setup.py" "$work/"
CUDABRIDGE_BUILD_DIR="$build" "$venv/bin/python" -m pip install --quiet --no-build-isolation --no-deps \
  --no-index --disable-pip-version-check --force-reinstall "$work"
echo "python-env: cudabridge installed in $venv (source $venv/bin/activate)"
