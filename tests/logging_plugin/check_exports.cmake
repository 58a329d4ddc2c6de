# cmake -DLIB=<plugin .so> -DNM=<nm> -P check_exports.cmake
# Fails unless the library's dynamic symbol table defines cb_plugin_entry and nothing else.
execute_process(COMMAND "${NM}" -D --defined-only "${LIB}"
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "nm failed on ${LIB}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported "")
foreach(line IN LISTS lines)
  if(line MATCHES "^[0-9a-fA-F]* *[A-Za-z] +(.+)$")
    list(APPEND exported "${CMAKE_MATCH_1}")
  endif()
endforeach()
if(NOT exported STREQUAL "cb_plugin_entry")
  message(FATAL_ERROR "${LIB} exports [${exported}], expected only cb_plugin_entry")
endif()
message(STATUS "${LIB} exports only cb_plugin_entry")
