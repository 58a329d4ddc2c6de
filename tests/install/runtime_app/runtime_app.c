/* Calls the runtime API of an installed libcudabridge.so: prints the runtime's version
 * (1000 * ABI major + 10 * ABI minor) and the name of cbSuccess. */
#include <cudabridge.h>

#include <stdio.h>

int main(void) {
    int version = 0;
    if (cbRuntimeGetVersion(&version) != cbSuccess) {
        fprintf(stderr, "cbRuntimeGetVersion failed: %s\n", cbGetLastErrorMessage());
        return 1;
    }
    printf("runtime %d %s\n", version, cbGetErrorName(cbSuccess));
    return 0;
}
