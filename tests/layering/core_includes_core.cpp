// Compiles with core's include path.
#include <cudabridge/core/registry.hpp>
#include <cudabridge/core/store.hpp>
