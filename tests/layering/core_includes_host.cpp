// Must fail with core's include path: core/ sits below host/ and cannot see it.
#include <cudabridge/core/store.hpp>
#include <cudabridge/host/session.hpp>
