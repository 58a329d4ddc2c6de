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
set(CUDABRIDGE_OPTION_ALIASES
  ENABLE_DEBUG=CUDABRIDGE_ENABLE_DEBUG
  ENABLE_ASAN=CUDABRIDGE_ENABLE_ASAN
  ENABLE_TSAN=CUDABRIDGE_ENABLE_TSAN
  BUILD_TESTS=CUDABRIDGE_BUILD_TESTS
  BUILD_EXAMPLES=CUDABRIDGE_BUILD_EXAMPLES
  BUILD_PYTHON=CUDABRIDGE_BUILD_PYTHON
  CB_BUILD_FUZZERS=CUDABRIDGE_BUILD_FUZZERS)

# cudabridge_option(NAME DOC DEFAULT): option(NAME ...), after taking the value of its alias.
function(cudabridge_option name doc default)
  foreach(pair IN LISTS CUDABRIDGE_OPTION_ALIASES)
    string(REPLACE "=" ";" pair "${pair}")
    list(GET pair 0 alias)
    list(GET pair 1 target)
    if(target STREQUAL name AND DEFINED CACHE{${alias}})
      set(value "${${alias}}")  # (read as a variable: CMake then counts the alias as used)
      unset(${alias} CACHE)
      set(${name} "${value}" CACHE BOOL "${doc}" FORCE)
      message(STATUS "${alias}=${value} is the old name of ${name}: set ${name}=${value}")
    endif()
  endforeach()
  option(${name} "${doc}" ${default})
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
