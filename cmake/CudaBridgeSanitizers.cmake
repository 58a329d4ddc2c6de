# ENABLE_ASAN: AddressSanitizer + UndefinedBehaviorSanitizer on everything we build.
# ENABLE_TSAN: ThreadSanitizer (cannot be combined with ASan: a separate build, see
# scripts/test-tsan.sh).
if(ENABLE_ASAN AND ENABLE_TSAN)
  message(FATAL_ERROR "ENABLE_ASAN and ENABLE_TSAN cannot be combined: use two build folders")
endif()
if(ENABLE_ASAN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(ENABLE_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
if(ENABLE_DEBUG)
  add_compile_definitions(CB_DEBUG=1)
endif()
