/* device_info: every eGPU the runtime sees, with its properties, its link and its memory.
 * Usage: device_info
 * On a simulated GPU the figures come from the simulator's model of the card and the link; on
 * hardware they are what the driver reports. */
#include "example_check.h"

#include <cudabridge.h>

#include <stdio.h>

static double mib(size_t bytes) { return (double)bytes / (1024.0 * 1024.0); }

static void print_properties(const cbDeviceProp* p) {
    printf("  Name:                    %s\n", p->name);
    printf("  UUID:                    %s\n", p->uuid);
    printf("  Architecture:            %s\n", p->architecture);
    printf("  Compute capability:      %d.%d\n", p->major, p->minor);
    printf("  Multiprocessors:         %d (warp size %d)\n", p->multiProcessorCount, p->warpSize);
    printf("  Global memory:           %.0f MiB\n", mib(p->totalGlobalMem));
    printf("  Shared memory per block: %zu bytes\n", p->sharedMemPerBlock);
    printf("  L2 cache:                %d KiB\n", p->l2CacheSize / 1024);
    printf("  Memory bus width:        %d bits\n", p->memoryBusWidth);
    printf("  GPU clock:               %.0f MHz\n", p->clockRate / 1000.0);
    printf("  Memory clock:            %.0f MHz\n", p->memoryClockRate / 1000.0);
    printf("  Max threads per block:   %d\n", p->maxThreadsPerBlock);
    printf("  Max block dimensions:    %d x %d x %d\n", p->maxThreadsDim[0], p->maxThreadsDim[1], p->maxThreadsDim[2]);
    printf("  Max grid dimensions:     %d x %d x %d\n", p->maxGridSize[0], p->maxGridSize[1], p->maxGridSize[2]);
    printf("  PCI ids:                 %04x:%04x\n", (unsigned)p->pciVendorId, (unsigned)p->pciDeviceId);
    printf("  PCI bus id:              %s\n", p->pciBusId);
    printf("  Backend:                 %s\n", p->backend);
    printf("  Link:                    %s, PCIe Gen%d x%d, %.2f GB/s usable host-to-device\n", p->linkName,
           p->pcieLinkGen, p->pcieLinkWidth, p->linkBandwidthGBs);
    printf("  Figures:                 %s\n",
           p->isSimulated ? "simulated (figures modeled)" : "hardware (figures measured)");
}

static void print_memory(int device) {
    size_t free_bytes = 0, total = 0;
    CB_CHECK(cbSetDevice(device));
    CB_CHECK(cbMemGetInfo(&free_bytes, &total));
    printf("  Memory in use:           %.0f MiB free of %.0f MiB\n", mib(free_bytes), mib(total));
}

int main(void) {
    int version = 0, count = 0;
    CB_CHECK(cbInit());
    CB_CHECK(cbRuntimeGetVersion(&version));
    CB_CHECK(cbGetDeviceCount(&count));
    printf("CudaBridge runtime, plugin ABI %d.%d: %d device%s\n", version / 1000, (version % 1000) / 10, count,
           count == 1 ? "" : "s");
    for (int i = 0; i < count; ++i) {
        cbDeviceProp prop;
        CB_CHECK(cbGetDeviceProperties(&prop, i));
        printf("\nDevice %d\n", i);
        print_properties(&prop);
        print_memory(i);
    }
    CB_CHECK(cbShutdown());
    return 0;
}
