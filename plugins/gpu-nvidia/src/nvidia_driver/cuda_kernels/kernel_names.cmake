# cmake -DINPUT=<preprocessed .cu> -DOUTPUT=<names.txt> -P kernel_names.cmake
# Lists the kernels the fatbin exports (every "cb_..." entry point), one per line, so tests can
# check that each name the launcher asks for exists without a GPU to ask.
file(READ "${INPUT}" text)
string(REGEX MATCHALL "[ \t]cb_[a-z0-9_]+\\(" calls "${text}")
set(names "")
foreach(call IN LISTS calls)
  string(REGEX REPLACE "^[ \t](cb_[a-z0-9_]+)\\($" "\\1" name "${call}")
  list(APPEND names "${name}")
endforeach()
list(REMOVE_DUPLICATES names)
list(SORT names)
string(REPLACE ";" "\n" lines "${names}")
file(WRITE "${OUTPUT}" "${lines}\n")
