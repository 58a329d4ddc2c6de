#!/usr/bin/env bash
# The host runtime's tests under ThreadSanitizer: a separate build (TSan cannot share one with
# ASan or a normal build) of the runtime, the plugins it loads and its tests, without the CUDA
# toolkit's nvcc step (device code is not what TSan checks). Also the simulated GPU's PTX engine
# (its blocks run on the compute engine's threads) on its own and over the corpus
# (tests/ptx_corpus/kernels/*.ptx) through the host runtime. Any report fails the run.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_TSAN_BUILD_DIR:-$root/build-tsan}
jobs=${CB_JOBS:-$(nproc)}
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDABRIDGE_ENABLE_TSAN=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON -DCUDABRIDGE_BUILD_EXAMPLES=OFF
cmake --build "$build" -j "$jobs" --target host_connect_test host_runtime_api_test host_fault_test \
  host_cycles_test host_cross_process_test host_c_api_test host_session_test cb_host_allocator_tests \
  ptx_engine_test ptx_corpus_test cudabridge_transport_usb4 cudabridge_gpu_nvidia cudabridge_safety \
  cudabridge_logging cudabridge_ptx_engine
cd "$build"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 suppressions=$root/scripts/tsan.supp"
ctest --output-on-failure -j "$jobs" --timeout 900 \
  -R '^(host_test|runtime_test|fault_test|c_api_test|CachingAllocator[A-Za-z]*|ptx_engine|ptx_corpus|module_formats)\.'
