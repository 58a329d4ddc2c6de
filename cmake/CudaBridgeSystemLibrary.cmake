# cudabridge_system_library(<target> PKG <pkg-config name> HEADER <header> NAMES <library names>
#                           DEBIAN <package> NEEDED_FOR <why>)
# Finds a C library the distribution packages (pkg-config first, then the usual folders) and makes
# it the imported target <target>. A missing library stops the configure with a message naming
# the Debian package and the two cache variables that point at a copy elsewhere:
# CB_<NAME>_INCLUDE_DIR (the folder holding <header>) and CB_<NAME>_LIBRARY, NAME being the
# target's name after "CudaBridge::", upper-cased (CudaBridge::isal: CB_ISAL_LIBRARY).
function(cudabridge_system_library target)
  cmake_parse_arguments(ARG "" "PKG;HEADER;DEBIAN;NEEDED_FOR" "NAMES" ${ARGN})
  if(TARGET ${target})
    return()
  endif()
  string(REPLACE "CudaBridge::" "" name "${target}")
  string(TOUPPER "CB_${name}" var)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(${var} QUIET ${ARG_PKG})
  endif()
  find_path(${var}_INCLUDE_DIR ${ARG_HEADER} HINTS ${${var}_INCLUDE_DIRS})
  find_library(${var}_LIBRARY NAMES ${ARG_NAMES} HINTS ${${var}_LIBRARY_DIRS})
  if(NOT ${var}_INCLUDE_DIR OR NOT ${var}_LIBRARY)
    message(FATAL_ERROR
      "${ARG_PKG} not found (needed ${ARG_NEEDED_FOR}). "
      "Install it (Debian/Ubuntu: apt-get install ${ARG_DEBIAN}) or set ${var}_INCLUDE_DIR "
      "(the folder holding ${ARG_HEADER}) and ${var}_LIBRARY.")
  endif()
  add_library(${target} UNKNOWN IMPORTED)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${${var}_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${${var}_INCLUDE_DIR}")
endfunction()
