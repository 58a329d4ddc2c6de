#!/usr/bin/env bash
# The simulated GPU's PTX engine and user-module support under AddressSanitizer +
# UndefinedBehaviorSanitizer (ENABLE_ASAN): a separate build (ASan cannot share one with TSan or a
# normal build) of the engine, the sim-modules library, the plugins the corpus test loads and the
# tests, without the CUDA toolkit's nvcc step. Runs the engine's own test, the sim-modules test
# (fatbin reader, NVRTC, PTX launch block) and the corpus (tests/ptx_corpus/kernels/*.ptx) through
# the host runtime. Any ASan, UBSan or LeakSanitizer report fails the run. LLVM itself is not
# instrumented (Debian's libLLVM), only what we build.
# CB_ASAN_HOST=1 also builds and runs the host runtime tests scripts/test-tsan.sh runs.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_ASAN_BUILD_DIR:-$root/build-asan}
jobs=${CB_JOBS:-$(nproc)}
host_targets=()
if [[ ${CB_ASAN_HOST:-0} == 1 ]]; then
  host_targets=(host_connect_test host_runtime_api_test host_fault_test host_cycles_test
    host_cross_process_test host_c_api_test host_session_test cb_host_allocator_tests)
fi
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DENABLE_ASAN=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DBUILD_EXAMPLES=OFF
cmake --build "$build" -j "$jobs" --target ptx_engine_test gpu_nvidia_sim_modules_test ptx_corpus_test \
  cudabridge_transport_usb4 cudabridge_gpu_nvidia cudabridge_safety cudabridge_logging \
  cudabridge_ptx_engine "${host_targets[@]}"
cd "$build"
export ASAN_OPTIONS="detect_leaks=1 halt_on_error=1 exitcode=66 strict_string_checks=1 detect_stack_use_after_return=1 check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1 halt_on_error=1 exitcode=66"
export LSAN_OPTIONS="suppressions=$root/scripts/lsan.supp print_suppressions=0"
# The NVRTC tests dlopen the CUDA toolkit's libnvrtc.so (when this machine has one) and closes it.
# libnvrtc links its own libstdc++ statically, whose exception-handling emergency pool (one
# 72,704-byte malloc, never freed by design) is then reported as a direct leak from an
# "<unknown module>" that no suppression can name. So those tests run without leak checking
# (ASan and UBSan still check them), every other test with it.
nvrtc_test='ModuleSource.CudaSourceCompilesToPtxWhereNvrtcExists'
nvrtc_corpus_test='module_formats.CudaSourceCompilesThroughNvrtcOrSaysThereIsNone'
./bin/ptx_engine_test
./bin/gpu_nvidia_sim_modules_test --gtest_filter="-$nvrtc_test"
ASAN_OPTIONS="$ASAN_OPTIONS detect_leaks=0" ./bin/gpu_nvidia_sim_modules_test --gtest_filter="$nvrtc_test"
./bin/ptx_corpus_test --gtest_filter="-$nvrtc_corpus_test"
ASAN_OPTIONS="$ASAN_OPTIONS detect_leaks=0" ./bin/ptx_corpus_test --gtest_filter="$nvrtc_corpus_test"
if [[ ${CB_ASAN_HOST:-0} == 1 ]]; then
  ctest --output-on-failure -j "$jobs" --timeout 900 \
    -R '^(host_test|runtime_test|fault_test|c_api_test|CachingAllocator[A-Za-z]*)\.'
fi
