#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer (CUDABRIDGE_ENABLE_ASAN), in a
# build folder of its own (ASan cannot share one with TSan or a normal build). Same configuration
# as scripts/build.sh otherwise: the CUDA toolkit's parts are built where it is found. Any ASan,
# UBSan or LeakSanitizer report fails the test it happens in, and so the run. LLVM (Debian's
# libLLVM), the Python interpreter and NVIDIA's libraries are not instrumented; what we build is.
#
#   scripts/test-asan.sh            build everything, run every CTest test (~1.5 h cold on 2 cores)
#   scripts/test-asan.sh --engine   only the PTX engine, the sim-modules library and the corpus
#
# The Python tests load our extension into /usr/bin/python3, which is not built with ASan: the
# ASan runtime must be the first library in the process, so those tests run with it preloaded.
# They run without leak checking (the interpreter keeps much of its memory to the end by design,
# and every stack passes through it, so no suppression could tell its leaks from ours); our C++
# code's leaks are checked by the C++ tests, which run with it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${CB_JOBS:-$(nproc)}
mode=${1:-all}
case $mode in
  all | --engine) ;;
  *) echo "usage: $0 [--engine]" >&2; exit 2 ;;
esac

cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDABRIDGE_ENABLE_ASAN=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=OFF -DCUDABRIDGE_BUILD_EXAMPLES=ON
if [[ $mode == --engine ]]; then
  cmake --build "$build" -j "$jobs" --target ptx_engine_test gpu_nvidia_sim_modules_test \
    ptx_corpus_test cudabridge_transport_usb4 cudabridge_gpu_nvidia cudabridge_safety \
    cudabridge_logging cudabridge_ptx_engine
else
  cmake --build "$build" -j "$jobs"
fi
cd "$build"

export ASAN_OPTIONS="detect_leaks=1 halt_on_error=1 exitcode=66 strict_string_checks=1 detect_stack_use_after_return=1 check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 exitcode=66"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp print_suppressions=0"
no_leaks="$ASAN_OPTIONS detect_leaks=0"

python_tests='python_api_tests|python_venv_install|bench_python_ops_smoke'

if [[ $mode == --engine ]]; then
  for test in ptx_engine_test gpu_nvidia_sim_modules_test ptx_corpus_test; do ./bin/$test; done
  exit 0
fi

status=0
ctest --output-on-failure -j "$jobs" --timeout 900 -E "^($python_tests)\$" || status=1
# libstdc++ too: python3 is C, and ASan must find the real __cxa_throw when our code throws.
asan_runtime="$(${CXX:-g++} -print-file-name=libasan.so) $(${CXX:-g++} -print-file-name=libstdc++.so)"
LD_PRELOAD=$asan_runtime PYTHONMALLOC=malloc ASAN_OPTIONS=$no_leaks \
  ctest --output-on-failure --timeout 1800 -R "^($python_tests)\$" || status=1
exit $status
