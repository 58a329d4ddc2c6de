// cudart/ is an application of the runtime's C API: cudabridge.h is on its include path.
#include <cudabridge.h>

int main() { return cbSuccess; }
