# In-tree plugins use the same function as out-of-tree authors, with build-tree defaults.
include(${CMAKE_SOURCE_DIR}/sdk/cmake/CudaBridgeAddPlugin.cmake)

# cudabridge_add_builtin_plugin(NAME ... SOURCES ...): an in-tree plugin, placed in the build
# tree's plugin folder and installed under <prefix>/lib/cudabridge/plugins.
function(cudabridge_add_builtin_plugin)
  cudabridge_add_plugin(${ARGN} OUTPUT_DIRECTORY "${CB_BUILD_PLUGIN_DIR}"
                        INSTALL_DESTINATION "${CB_PLUGIN_INSTALL_DIR}")
  cmake_parse_arguments(P "" "NAME" "" ${ARGN})
  cudabridge_warnings(${P_NAME})
endfunction()
