// cudart/ sees the runtime, never a plugin's sources: this include must not be found.
#include "sim/ptx/kernel_module.hpp"

int main() { return 0; }
