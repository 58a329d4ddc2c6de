/* A second process for cross_process_test: attaches to the eGPU another process connected
 * (CUDABRIDGE_AUTOCONNECT=0), says so by creating the file argv[1], then keeps working until a
 * call fails, and prints that error's name and message. Exit 0 when it was device-lost. */
#include <cudabridge.h>

#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: attach_probe READY_FILE\n");
        return 2;
    }
    cbError_t e = cbInit();
    if (e != cbSuccess) {
        printf("init failed: %s: %s\n", cbGetErrorName(e), cbGetLastErrorMessage());
        return 3;
    }
    void* p = NULL;
    e = cbMalloc(&p, 4096);
    if (e != cbSuccess) {
        printf("malloc failed: %s: %s\n", cbGetErrorName(e), cbGetLastErrorMessage());
        return 4;
    }
    FILE* ready = fopen(argv[1], "w");
    if (ready) fclose(ready);
    for (int i = 0; i < 3000 && e == cbSuccess; ++i) {
        e = cbMemset(p, i & 0xff, 4096);
        if (e == cbSuccess) usleep(10000);
    }
    printf("%s\n%s\n", cbGetErrorName(e), cbGetLastErrorMessage());
    const cbError_t again = cbMalloc(&p, 16);
    printf("then %s\n", cbGetErrorName(again));
    cbShutdown();
    return e == cbErrorDeviceLost && again == cbErrorDeviceLost ? 0 : 1;
}
