# The Python interpreter the package is built for. The caller's, when they name one:
#   -DPython3_EXECUTABLE=/path/to/python3    that interpreter;
#   -DPython3_ROOT_DIR=/opt/python (or the environment variable)   the one installed there;
#   an active virtual environment or conda environment (VIRTUAL_ENV, CONDA_PREFIX)   its own,
#     which FindPython prefers (Python3_FIND_VIRTUALENV).
# Otherwise Debian's /usr/bin/python3, which has Debian's numpy and pytest, rather than whichever
# python3 comes first on PATH. Set as a plain variable, not a cache entry, so a later configure
# from a virtual environment is not held to the default an earlier one picked.
if(NOT DEFINED Python3_EXECUTABLE AND NOT DEFINED Python3_ROOT_DIR
   AND NOT DEFINED ENV{Python3_ROOT_DIR} AND NOT DEFINED ENV{VIRTUAL_ENV}
   AND NOT DEFINED ENV{CONDA_PREFIX} AND EXISTS /usr/bin/python3)
  set(Python3_EXECUTABLE /usr/bin/python3)
endif()
