# The build's options. Every one is named CUDABRIDGE_*, so the project can be added to a bigger
# build (add_subdirectory, FetchContent) without its switches colliding with the parent's.
#
# The first releases named four of them without the prefix; those names stay as aliases
# (README "Build options"): -DENABLE_DEBUG=ON sets CUDABRIDGE_ENABLE_DEBUG, and so on. An alias
# given on the command line is moved to its new name and removed from the cache, so it acts
# once and a later -DCUDABRIDGE_...=... is never overridden by a stale alias.
#
#   alias              option
#   ENABLE_DEBUG       CUDABRIDGE_ENABLE_DEBUG
#   ENABLE_ASAN        CUDABRIDGE_ENABLE_ASAN
#   ENABLE_TSAN        CUDABRIDGE_ENABLE_TSAN
#   BUILD_TESTS        CUDABRIDGE_BUILD_TESTS
#   BUILD_EXAMPLES     CUDABRIDGE_BUILD_EXAMPLES
#   BUILD_PYTHON       CUDABRIDGE_BUILD_PYTHON
#   CB_BUILD_FUZZERS   CUDABRIDGE_BUILD_FUZZERS
#   CB_CUDA_FATBIN_ARCHS, _PTX, _COMPRESS   CUDABRIDGE_CUDA_FATBIN_ARCHS, _PTX, _COMPRESS
set(CUDABRIDGE_OPTION_ALIASES
  ENABLE_DEBUG=CUDABRIDGE_ENABLE_DEBUG
  ENABLE_ASAN=CUDABRIDGE_ENABLE_ASAN
  ENABLE_TSAN=CUDABRIDGE_ENABLE_TSAN
  BUILD_TESTS=CUDABRIDGE_BUILD_TESTS
  BUILD_EXAMPLES=CUDABRIDGE_BUILD_EXAMPLES
  BUILD_PYTHON=CUDABRIDGE_BUILD_PYTHON
  CB_BUILD_FUZZERS=CUDABRIDGE_BUILD_FUZZERS
  CB_CUDA_FATBIN_ARCHS=CUDABRIDGE_CUDA_FATBIN_ARCHS
  CB_CUDA_FATBIN_PTX=CUDABRIDGE_CUDA_FATBIN_PTX
  CB_CUDA_FATBIN_COMPRESS=CUDABRIDGE_CUDA_FATBIN_COMPRESS)

# cudabridge_take_alias(NAME TYPE DOC): NAME takes the value of its alias, when one was given.
function(cudabridge_take_alias name type doc)
  foreach(pair IN LISTS CUDABRIDGE_OPTION_ALIASES)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 alias)
    list(GET pair 1 target)
    if(target STREQUAL name AND DEFINED CACHE{${alias}})
      set(value "${${alias}}")  # (read as a variable: CMake then counts the alias as used)
      unset(${alias} CACHE)
      set(${name} "${value}" CACHE ${type} "${doc}" FORCE)
      message(STATUS "${alias}=${value} is the old name of ${name}: set ${name}=${value}")
    endif()
  endforeach()
endfunction()

# cudabridge_option(NAME DOC DEFAULT): option(NAME ...), after taking the value of its alias.
function(cudabridge_option name doc default)
  cudabridge_take_alias(${name} BOOL "${doc}")
  option(${name} "${doc}" ${default})
endfunction()

# cudabridge_setting(NAME DOC DEFAULT): a string in the cache, after taking the value of its alias.
function(cudabridge_setting name doc default)
  cudabridge_take_alias(${name} STRING "${doc}")
  set(${name} "${default}" CACHE STRING "${doc}")
endfunction()

cudabridge_option(CUDABRIDGE_ENABLE_DEBUG "Debug build: -O0 -g, debug logging compiled in" OFF)
cudabridge_option(CUDABRIDGE_ENABLE_ASAN "AddressSanitizer + UndefinedBehaviorSanitizer" OFF)
cudabridge_option(CUDABRIDGE_ENABLE_TSAN "ThreadSanitizer (a separate build: scripts/test-tsan.sh)" OFF)
cudabridge_option(CUDABRIDGE_BUILD_FUZZERS
  "libFuzzer targets in tests/fuzz (clang only; a build of their own: scripts/fuzz.sh)" OFF)
cudabridge_option(CUDABRIDGE_BUILD_TESTS "Build the GoogleTest suite" ON)
cudabridge_option(CUDABRIDGE_BUILD_EXAMPLES "Build the SDK example plugins and the runtime API examples" ON)
cudabridge_option(CUDABRIDGE_BUILD_PYTHON "Build the Python package (import cudabridge)" ON)
cudabridge_option(CUDABRIDGE_WARNINGS_AS_ERRORS
  "Warnings fail the build (the suite command, and so CI, turns it on)" OFF)
# The built-in kernels' fatbin (plugins/gpu-nvidia/src/nvidia_driver/cuda_kernels), built when
# nvcc is found. Fewer architectures make a faster local rebuild; the full list stays the default.
cudabridge_setting(CUDABRIDGE_CUDA_FATBIN_ARCHS "Real GPU architectures (sm_XX) in the built-in kernels' fatbin"
  "75;80;86;89;90;100;120")
cudabridge_setting(CUDABRIDGE_CUDA_FATBIN_PTX
  "Virtual architecture (compute_XX) embedded as PTX for GPUs newer than the list; empty for none" "120")
cudabridge_option(CUDABRIDGE_CUDA_FATBIN_COMPRESS "Compress the built-in kernels' fatbin (about 15x smaller)" ON)
