# CUDABRIDGE_ENABLE_ASAN: AddressSanitizer + UndefinedBehaviorSanitizer on everything we build.
# CUDABRIDGE_ENABLE_TSAN: ThreadSanitizer (cannot be combined with ASan: a separate build, see
# scripts/test-tsan.sh).
if(CUDABRIDGE_ENABLE_ASAN AND CUDABRIDGE_ENABLE_TSAN)
  message(FATAL_ERROR "CUDABRIDGE_ENABLE_ASAN and CUDABRIDGE_ENABLE_TSAN cannot be combined: use two build folders")
endif()
if(CUDABRIDGE_ENABLE_ASAN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(CUDABRIDGE_ENABLE_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
# A sanitized build runs several times slower: test timeouts scale by this factor, so a test that
# fits its limit on a normal build is not cut off for running instrumented on a busy machine.
set(CB_TEST_TIMEOUT_SCALE 1)
if(CUDABRIDGE_ENABLE_ASAN OR CUDABRIDGE_ENABLE_TSAN)
  set(CB_TEST_TIMEOUT_SCALE 4)
endif()
# CUDABRIDGE_BUILD_FUZZERS: a build folder of its own (scripts/fuzz.sh). Everything it compiles gets
# libFuzzer's coverage instrumentation plus ASan and UBSan, so the parsers the fuzz targets link
# are explored and checked; the targets themselves add libFuzzer's main (tests/fuzz). clang only:
# gcc has no libFuzzer, and the option then builds nothing more (tests/fuzz says so).
if(CUDABRIDGE_BUILD_FUZZERS AND CUDABRIDGE_ENABLE_TSAN)
  message(FATAL_ERROR "CUDABRIDGE_BUILD_FUZZERS uses ASan, which cannot be combined with CUDABRIDGE_ENABLE_TSAN")
endif()
if(CUDABRIDGE_BUILD_FUZZERS AND CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                      -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(CUDABRIDGE_ENABLE_DEBUG)
  add_compile_definitions(CB_DEBUG=1)
endif()
