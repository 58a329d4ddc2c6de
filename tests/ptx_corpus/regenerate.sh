#!/usr/bin/env bash
# Regenerates every kernels/*.ptx from its .cu with the command that made it and compares the
# result with the committed file (diff -u); exits non-zero on any difference.
#   regenerate.sh           check (the default)
#   regenerate.sh --update  rewrite the committed .ptx files instead
#   regenerate.sh [--update] --dir DIR   the same for the .cu/.ptx pairs in DIR (no fatbins)
# Without nvcc (on PATH, $NVCC, or /usr/local/cuda/bin) it prints "nvcc not found: skipped" and
# exits 77, which CTest reports as skipped.
set -u

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
kernels="$here/kernels"
update=0
with_fatbins=1
while [ $# -gt 0 ]; do
    case "$1" in
    --update) update=1 ;;
    --dir) kernels="$(cd "$2" && pwd)"; with_fatbins=0; shift ;;
    *) echo "usage: regenerate.sh [--update] [--dir DIR]" >&2; exit 2 ;;
    esac
    shift
done

nvcc="${NVCC:-}"
if [ -z "$nvcc" ]; then
    if command -v nvcc >/dev/null 2>&1; then nvcc="$(command -v nvcc)"
    elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
    fi
fi
if [ -z "$nvcc" ] || ! [ -x "$nvcc" ]; then
    echo "nvcc not found: skipped"
    exit 77
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
shopt -s nullglob
for cu in "$kernels"/*.cu; do
    name="$(basename "$cu" .cu)"
    # Compiled from inside kernels/ so that nothing of this checkout's path can reach the output.
    if ! (cd "$kernels" && "$nvcc" -ptx -arch=compute_75 -O3 -o "$out/$name.ptx" "$name.cu"); then
        echo "nvcc failed on $name.cu" >&2
        status=1
        continue
    fi
    if [ "$update" = 1 ]; then
        cp "$out/$name.ptx" "$kernels/$name.ptx"
    elif ! diff -u "$kernels/$name.ptx" "$out/$name.ptx"; then
        echo "$name.ptx differs from what $("$nvcc" --version | tail -n 1) emits for $name.cu" >&2
        status=1
    fi
done
for ptx in "$kernels"/*.ptx; do
    name="$(basename "$ptx" .ptx)"
    if ! [ -f "$kernels/$name.cu" ]; then
        echo "$name.ptx has no $name.cu" >&2
        status=1
    fi
done
# The fatbins: saxpy.cu as nvcc 13 packs it, compressed each way it can be, with PTX for two
# architectures, and with machine code only (byte-for-byte: nvcc's fatbins are deterministic).
fatbins="$here/fatbins"
fatbin() {  # fatbin NAME NVCC-OPTIONS...
    local name="$1"
    shift
    if ! (cd "$kernels" && "$nvcc" -fatbin -O3 "$@" -o "$out/$name.fatbin" saxpy.cu); then
        echo "nvcc failed on the fatbin $name" >&2
        status=1
        return
    fi
    if [ "$update" = 1 ]; then
        cp "$out/$name.fatbin" "$fatbins/$name.fatbin"
    elif ! cmp "$fatbins/$name.fatbin" "$out/$name.fatbin"; then
        echo "fatbins/$name.fatbin differs from what nvcc emits" >&2
        status=1
    fi
}
if [ "$with_fatbins" = 1 ]; then
fatbin saxpy_zstd --compress-mode=default -gencode arch=compute_75,code=compute_75
fatbin saxpy_lz4 --compress-mode=speed -gencode arch=compute_75,code=compute_75
fatbin saxpy_plain --compress-mode=none -gencode arch=compute_75,code=compute_75
fatbin saxpy_two_ptx -gencode arch=compute_75,code=compute_75 -gencode arch=compute_86,code=sm_86 \
    -gencode arch=compute_86,code=compute_86
fatbin saxpy_sass_only -gencode arch=compute_90,code=sm_90
fi
[ "$status" = 0 ] && echo "all $(ls "$kernels"/*.cu | wc -l) kernels in $kernels match their committed PTX"
exit "$status"
