# ISA-L (Debian libisal-dev) for CRC-32C, as the imported target CudaBridge::isal: the simulated
# link checks every packet with it and the host runtime checks copies end to end.
# docs/link-figures.md says why ISA-L: ten times zlib's CRC speed, under 0.1 core at USB4 line rate.
if(TARGET CudaBridge::isal)
  return()
endif()
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(CB_ISAL QUIET libisal)
endif()
find_path(CB_ISAL_INCLUDE_DIR isa-l/crc.h HINTS ${CB_ISAL_INCLUDE_DIRS})
find_library(CB_ISAL_LIBRARY NAMES isal HINTS ${CB_ISAL_LIBRARY_DIRS})
if(NOT CB_ISAL_INCLUDE_DIR OR NOT CB_ISAL_LIBRARY)
  message(FATAL_ERROR
    "ISA-L not found (needed for CRC-32C). "
    "Install it (Debian/Ubuntu: apt-get install libisal-dev) or set CB_ISAL_INCLUDE_DIR "
    "(the folder holding isa-l/crc.h) and CB_ISAL_LIBRARY.")
endif()
add_library(CudaBridge::isal UNKNOWN IMPORTED)
set_target_properties(CudaBridge::isal PROPERTIES
  IMPORTED_LOCATION "${CB_ISAL_LIBRARY}"
  INTERFACE_INCLUDE_DIRECTORIES "${CB_ISAL_INCLUDE_DIR}")
