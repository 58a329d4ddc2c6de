// Compiles with a plugin's include path: the SDK is all a plugin sees.
#include <cudabridge/cpp/plugin.hpp>
#include <cudabridge/plugin.h>
