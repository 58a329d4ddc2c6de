#!/usr/bin/env bash
# Packs the GPU checks built here for a GPU machine that cannot build them (no Debian 12
# packages there, no network): the three binaries run.sh runs, stripped, and every shared library
# they load except glibc's own, as one .tar.xz. On the GPU machine, unpack it and run
#   CB_GPU_PREBUILT=<folder> tests/gpu/run.sh
# from a checkout of the same commit (the PTX corpus is read from it).
# Usage: tests/gpu/pack.sh OUT.tar.xz   (builds the targets in ./build, or $CB_BUILD_DIR, first)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CB_BUILD_DIR:-$root/build}
out=${1:?usage: tests/gpu/pack.sh OUT.tar.xz}
targets=(gpu_nvidia_real_gpu_test gpu_nvidia_kernel_driver_test bench_real_gpu)

cmake --build "$build" -j "${CB_JOBS:-$(nproc)}" --target "${targets[@]}" >/dev/null
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib" "$stage/lib/fallback"
for t in "${targets[@]}"; do strip -o "$stage/bin/$t" "$build/bin/$t"; done
# glibc comes from the GPU machine; libstdc++ and libgcc_s only when its own are older
# (run.sh decides), since the CUDA libraries there load the system's.
for lib in $(ldd "$stage"/bin/* | awk '/=> \//{print $3}' | sort -u); do
  case $(basename "$lib") in
    libc.so.*|libm.so.*|libdl.so.*|librt.so.*|libpthread.so.*|ld-linux*) ;;
    libstdc++.so.*|libgcc_s.so.*) cp -L "$lib" "$stage/lib/fallback/" ;;
    *) cp -L "$lib" "$stage/lib/" ;;
  esac
done
XZ_OPT="-9 -T0" tar -C "$stage" -cJf "$out" .
echo "$out: $(du -h "$out" | cut -f1) ($(ls "$stage/lib" | wc -l) libraries)"
