#!/usr/bin/env bash
# Real-GPU check of the kernel-driver backend, for a Linux machine with an NVIDIA GPU, its driver
# and a CUDA toolkit (nvcc). Builds the project (Release, the built-in kernels compiled for this
# machine's GPUs), then, within a time limit of under 5 minutes:
#   1. gpu_nvidia_real_gpu_test  every built-in kernel x dtype x broadcast case on the GPU against
#                                the CPU engine; copies of 0 B / 1 B / unaligned / large sizes;
#                                allocation until out of memory; Philox = CPU; NVRTC user kernels;
#                                the PTX corpus on the GPU against the simulator's PTX engine,
#                                byte for byte
#   2. gpu_nvidia_kernel_driver_test   the backend's no-GPU tests, on this machine
#   3. bench_real_gpu            H2D / D2H bandwidth and a 4096^3 sgemm, backend vs direct calls
# and prints a summary. Exit status 0 only when every step passed.
#
# Environment: CB_GPU_BUILD_DIR (default <repo>/build-gpu), CB_GPU_ARCHS ("90;120": sm list;
# default: the local GPUs' compute capabilities), CB_GPU_JOBS (build jobs), CB_GPU_TIME_LIMIT
# (seconds for steps 1-3 together, default 280). Build dependencies: scripts/install-deps.sh.
# On a GPU machine that cannot build the project (no Debian 12 packages), CB_GPU_PREBUILT names
# the unpacked output of tests/gpu/pack.sh, made on a build machine from the same commit: the build
# step is skipped and its binaries run with the libraries it carries.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${CB_GPU_BUILD_DIR:-$root/build-gpu}
jobs=${CB_GPU_JOBS:-$(nproc)}
limit=${CB_GPU_TIME_LIMIT:-280}
logs=${CB_GPU_LOG_DIR:-$build/gpu-check}
bin="$build/bin"
start=$(date +%s)
summary=()
failed=0

note() { printf '\n== %s\n' "$*"; }
record() { summary+=("$(printf '%-28s %s' "$1" "$2")"); }
left() { echo $((limit - ($(date +%s) - run_start))); }

# ---- the machine --------------------------------------------------------------------------------
note "GPU and driver"
gpus=""
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi --query-gpu=index,name,compute_cap,driver_version,memory.total --format=csv,noheader 2>&1) || gpus=""
fi
if [[ -z "$gpus" ]]; then
  echo "nvidia-smi finds no GPU: the tests below will skip (this script is meant for a GPU machine)"
  record "GPU" "none found (nvidia-smi)"
else
  echo "$gpus"
  record "GPU" "$(echo "$gpus" | head -1)"
fi
if ! command -v nvcc >/dev/null 2>&1 && [[ ! -x /usr/local/cuda/bin/nvcc ]]; then
  echo "no nvcc: the build will have no built-in GPU kernels (their tests skip)"
fi
[[ -x /usr/local/cuda/bin/nvcc ]] && export PATH="/usr/local/cuda/bin:$PATH"

# Compile the fatbin only for the GPUs here (much faster than the default list).
archs=${CB_GPU_ARCHS:-}
if [[ -z "$archs" && -n "$gpus" ]]; then
  archs=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d ' .' | sort -u | paste -sd ';' -)
fi

# Builds the three targets in $build, the fatbin for this machine's GPUs only.
build_here() {
  note "configure and build (Release) in $build"
  cmake_args=(-S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release)
  [[ -n "$archs" ]] && cmake_args+=("-DCUDABRIDGE_CUDA_FATBIN_ARCHS=$archs" "-DCUDABRIDGE_CUDA_FATBIN_PTX=")
  build_start=$(date +%s)
  if cmake "${cmake_args[@]}" >"$logs/configure.log" 2>&1 &&
     cmake --build "$build" -j "$jobs" --target gpu_nvidia_real_gpu_test gpu_nvidia_kernel_driver_test bench_real_gpu \
       >"$logs/build.log" 2>&1; then
    record "build" "ok in $(( $(date +%s) - build_start )) s (fatbin for sm ${archs:-default list})"
  else
    tail -30 "$logs/configure.log" "$logs/build.log" 2>/dev/null
    echo "build failed (logs in $logs). Missing packages: scripts/install-deps.sh. No target" \
         "gpu_nvidia_real_gpu_test: tests/CMakeLists.txt needs add_subdirectory(gpu)."
    record "build" "FAILED (see $logs)"
    printf '\n== summary\n'; printf '%s\n' "${summary[@]}"
    exit 1
  fi
}

# ---- build --------------------------------------------------------------------------------------
mkdir -p "$logs"
# The corpus of the checkout this script is in, wherever the binaries were built.
export CB_PTX_CORPUS_DIR="$root/tests/ptx_corpus/kernels"
if [[ -n "${CB_GPU_PREBUILT:-}" ]]; then
  note "prebuilt binaries from $CB_GPU_PREBUILT"
  bin="$CB_GPU_PREBUILT/bin"
  libs="$CB_GPU_PREBUILT/lib"
  # The packed libstdc++ / libgcc_s only where this machine's own are too old for the binaries.
  if LD_LIBRARY_PATH="$libs" ldd "$bin"/* 2>&1 | grep -q 'not found'; then libs="$libs:$CB_GPU_PREBUILT/lib/fallback"; fi
  export LD_LIBRARY_PATH="$libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if LD_LIBRARY_PATH="$LD_LIBRARY_PATH" ldd "$bin"/* 2>&1 | grep 'not found'; then
    record "build" "FAILED: prebuilt binaries miss libraries (above)"
    printf '\n== summary\n'; printf '%s\n' "${summary[@]}"
    exit 1
  fi
  record "build" "prebuilt ($CB_GPU_PREBUILT)"
else
  build_here
fi

# ---- tests and benchmark, within the time limit -------------------------------------------------
run_start=$(date +%s)

# Runs a gtest binary with what is left of the limit; records passed / failed / skipped counts.
run_gtest() {
  local name=$1 binary=$2 budget rc
  budget=$(left)
  note "$name (time left: ${budget} s)"
  if (( budget <= 5 )); then record "$name" "NOT RUN: time limit reached"; failed=1; return; fi
  timeout --signal=INT --kill-after=10 "$budget" "$binary" --gtest_color=no >"$logs/$name.log" 2>&1
  rc=$?
  grep -E '^\[  (FAILED|SKIPPED) |^device 0:|^telemetry:|Failure$' "$logs/$name.log" | head -40
  local passed skipped failures
  passed=$(grep -Eo '^\[  PASSED  \] [0-9]+' "$logs/$name.log" | grep -Eo '[0-9]+$' || echo 0)
  skipped=$(grep -Eo '^\[  SKIPPED \] [0-9]+ test' "$logs/$name.log" | grep -Eo '[0-9]+' | head -1 || echo 0)
  failures=$(grep -Eo '^\[  FAILED  \] [0-9]+ test' "$logs/$name.log" | grep -Eo '[0-9]+' | head -1 || echo 0)
  if (( rc == 124 || rc == 137 )); then
    record "$name" "TIMED OUT after ${budget} s (log: $logs/$name.log)"; failed=1
  elif (( rc != 0 )); then
    record "$name" "FAILED: ${failures:-?} failed, ${passed:-0} passed, ${skipped:-0} skipped (log: $logs/$name.log)"; failed=1
  else
    record "$name" "ok: ${passed:-0} passed, ${skipped:-0} skipped"
  fi
}

run_gtest gpu_nvidia_real_gpu_test "$bin/gpu_nvidia_real_gpu_test"
# Its fake drivers are libraries of the build tree, named by absolute path: a prebuilt run has none.
if [[ -n "${CB_GPU_PREBUILT:-}" ]]; then
  record gpu_nvidia_kernel_driver_test "not run: prebuilt (its fake drivers live in the build tree)"
else
  run_gtest gpu_nvidia_kernel_driver_test "$bin/gpu_nvidia_kernel_driver_test"
fi

budget=$(left)
note "bench_real_gpu (time left: ${budget} s)"
if (( budget <= 10 )); then
  record "bench_real_gpu" "NOT RUN: time limit reached"; failed=1
else
  timeout --signal=INT --kill-after=10 "$budget" "$bin/bench_real_gpu" 2>&1 | tee "$logs/bench_real_gpu.log"
  rc=${PIPESTATUS[0]}
  if (( rc == 124 || rc == 137 )); then record "bench_real_gpu" "TIMED OUT after ${budget} s"; failed=1
  elif (( rc != 0 )); then record "bench_real_gpu" "FAILED (log: $logs/bench_real_gpu.log)"; failed=1
  else
    record "bench_real_gpu" "ok (ratio = backend / direct; 1.00 = no overhead)"
    while IFS= read -r line; do summary+=("$line"); done < <(grep -E 'ratio|difference' "$logs/bench_real_gpu.log")
  fi
fi

printf '\n== summary (tests + benchmark: %d s of %d s allowed; total %d s)\n' \
  $(( $(date +%s) - run_start )) "$limit" $(( $(date +%s) - start ))
printf '%s\n' "${summary[@]}"
if (( failed )); then echo "RESULT: FAILED"; else echo "RESULT: PASSED"; fi
exit "$failed"
