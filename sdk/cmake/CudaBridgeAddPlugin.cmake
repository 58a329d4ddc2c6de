# cudabridge_add_plugin(NAME <target> KIND <transport|gpu|safety|logsink> SOURCES <files...>
#                       [LINK <libs...>] [OUTPUT_DIRECTORY <dir>] [NO_INSTALL])
#
# Builds a plugin library that sees the SDK headers and nothing else of CudaBridge, exports only
# cb_plugin_entry, and refuses undefined symbols at link time. Used in-tree and by plugin authors
# through find_package(CudaBridge CONFIG).
function(cudabridge_add_plugin)
  cmake_parse_arguments(P "NO_INSTALL" "NAME;KIND;OUTPUT_DIRECTORY;INSTALL_DESTINATION" "SOURCES;LINK" ${ARGN})
  if(NOT P_NAME OR NOT P_SOURCES)
    message(FATAL_ERROR "cudabridge_add_plugin: NAME and SOURCES are required")
  endif()
  if(P_KIND AND NOT P_KIND MATCHES "^(transport|gpu|safety|logsink|mixed)$")
    message(FATAL_ERROR "cudabridge_add_plugin: unknown KIND '${P_KIND}'")
  endif()
  add_library(${P_NAME} MODULE ${P_SOURCES})
  target_link_libraries(${P_NAME} PRIVATE CudaBridge::sdk ${P_LINK})
  set_target_properties(${P_NAME} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_compile_features(${P_NAME} PRIVATE cxx_std_20)
  if(NOT APPLE)
    # Fail at link time on a missing symbol, and export cb_plugin_entry only: hidden visibility
    # covers the plugin's own code, the version script also the template code of libraries it
    # instantiates (spdlog, fmt, Poco, libstdc++).
    set(_cb_map "${CMAKE_CURRENT_BINARY_DIR}/${P_NAME}.exports.map")
    file(WRITE "${_cb_map}" "{\n  global:\n    cb_plugin_entry;\n  local:\n    *;\n};\n")
    target_link_options(${P_NAME} PRIVATE "LINKER:--no-undefined" "LINKER:--version-script=${_cb_map}")
  endif()
  if(P_OUTPUT_DIRECTORY)
    set_target_properties(${P_NAME} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${P_OUTPUT_DIRECTORY}")
  endif()
  if(NOT P_NO_INSTALL)
    if(NOT P_INSTALL_DESTINATION)
      set(P_INSTALL_DESTINATION "lib/cudabridge/plugins")
    endif()
    install(TARGETS ${P_NAME} LIBRARY DESTINATION "${P_INSTALL_DESTINATION}")
  endif()
endfunction()
