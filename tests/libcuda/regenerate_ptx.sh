#!/usr/bin/env bash
# regenerate_ptx.sh [--update]: checks that kernels.ptx is what nvcc emits for kernels.cu (diff -u),
# or with --update rewrites it. broken.ptx is written by hand and has no source.
# Exit 77 (skipped) without nvcc (on PATH, $NVCC, or /usr/local/cuda/bin).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[[ -x $nvcc ]] || { echo "nvcc not found: skipped"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# From inside the folder, so that nothing of this checkout's path reaches the output.
(cd "$here" && "$nvcc" -ptx -arch=compute_75 -O3 -o "$out/kernels.ptx" kernels.cu)
if [[ ${1:-} == --update ]]; then
    cp "$out/kernels.ptx" "$here/kernels.ptx"
elif ! diff -u "$here/kernels.ptx" "$out/kernels.ptx"; then
    echo "kernels.ptx differs from what $("$nvcc" --version | tail -n 1) emits for kernels.cu" >&2
    echo "(tests/libcuda/regenerate_ptx.sh --update rewrites it)" >&2
    exit 1
fi
