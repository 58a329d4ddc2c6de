// The devices and what they can do, as CUDA reports them; fails when a figure is implausible.
#include "check.cuh"

int main() {
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    int runtime = 0, driver = 0;
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaDriverGetVersion(&driver));
    std::printf("%d CUDA device(s); runtime %d, driver %d\n", count, runtime, driver);
    for (int d = 0; d < count; ++d) {
        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, d));
        int clock_khz = 0;
        CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, d));
        std::printf("Device %d: %s\n", d, p.name);
        std::printf("  compute capability           %d.%d\n", p.major, p.minor);
        std::printf("  global memory                %.1f GiB\n", p.totalGlobalMem / 1073741824.0);
        std::printf("  multiprocessors              %d\n", p.multiProcessorCount);
        std::printf("  clock                        %d MHz\n", clock_khz / 1000);
        std::printf("  memory bus                   %d bits\n", p.memoryBusWidth);
        std::printf("  L2 cache                     %d KiB\n", p.l2CacheSize / 1024);
        std::printf("  shared memory per block      %zu KiB (opt-in %zu KiB)\n", p.sharedMemPerBlock / 1024,
                    p.sharedMemPerBlockOptin / 1024);
        std::printf("  max threads per block / SM   %d / %d\n", p.maxThreadsPerBlock, p.maxThreadsPerMultiProcessor);
        std::printf("  max block                    %d x %d x %d\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
                    p.maxThreadsDim[2]);
        std::printf("  max grid                     %d x %d x %d\n", p.maxGridSize[0], p.maxGridSize[1],
                    p.maxGridSize[2]);
        std::printf("  warp size                    %d\n", p.warpSize);
        std::printf("  PCI domain:bus:device        %04x:%02x:%02x\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
        if (p.name[0] == '\0' || p.major < 7 || p.multiProcessorCount <= 0 || p.warpSize != 32 ||
            p.totalGlobalMem == 0 || p.maxThreadsPerBlock < 256) {
            std::printf("FAIL: implausible properties\n");
            return 1;
        }
    }
    std::printf("deviceQuery: PASS\n");
    return count > 0 ? 0 : 1;
}
