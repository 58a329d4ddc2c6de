// Must fail with a plugin's include path: plugins may not reach into core/.
#include <cudabridge/plugin.h>
#include <cudabridge/core/store.hpp>
