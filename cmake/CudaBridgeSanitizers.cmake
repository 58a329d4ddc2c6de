# ENABLE_ASAN: AddressSanitizer + UndefinedBehaviorSanitizer on everything we build.
if(ENABLE_ASAN)
  add_compile_options(-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(ENABLE_DEBUG)
  add_compile_definitions(CB_DEBUG=1)
endif()
