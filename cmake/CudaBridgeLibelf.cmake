# elfutils' libelf (Debian libelf-dev) as the imported target CudaBridge::libelf: the plugin
# registry reads a library's ELF headers and dynamic symbols with it before any dlopen.
if(TARGET CudaBridge::libelf)
  return()
endif()
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(CB_LIBELF QUIET libelf)
endif()
find_path(CB_LIBELF_INCLUDE_DIR gelf.h HINTS ${CB_LIBELF_INCLUDE_DIRS})
find_library(CB_LIBELF_LIBRARY NAMES elf HINTS ${CB_LIBELF_LIBRARY_DIRS})
if(NOT CB_LIBELF_INCLUDE_DIR OR NOT CB_LIBELF_LIBRARY)
  message(FATAL_ERROR
    "libelf not found (needed to check plugin files before loading them). "
    "Install it (Debian/Ubuntu: apt-get install libelf-dev) or set CB_LIBELF_INCLUDE_DIR "
    "(the folder holding gelf.h) and CB_LIBELF_LIBRARY.")
endif()
add_library(CudaBridge::libelf UNKNOWN IMPORTED)
set_target_properties(CudaBridge::libelf PROPERTIES
  IMPORTED_LOCATION "${CB_LIBELF_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CB_LIBELF_INCLUDE_DIR}")
