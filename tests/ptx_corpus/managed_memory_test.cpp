// Managed memory (cbMallocManaged) and zero-copy host memory (cbHostGetDevicePointer) through the
// runtime on the simulated eGPU: corpus kernels read, write and atomically add in host memory at
// its own address; copies and fills take managed memory on either side; its kernels' time is the
// link's; host memory nobody registered still faults.
#include "corpus_fixture.hpp"

#include <cstdlib>
#include <cstring>

namespace cudabridge::test {
namespace {

class managed_memory : public ptx_corpus {
protected:
    template <class T>
    T* managed(size_t n) {
        void* p = nullptr;
        EXPECT_EQ(rt->malloc_managed(&p, n * sizeof(T), cbMemAttachGlobal), cbSuccess) << cbGetLastErrorMessage();
        return static_cast<T*>(p);
    }
    cbError_t saxpy(cbModule_t m, size_t n, float a, const void* x, void* y) {
        return run(m, "saxpy", {blocks_for(n, 256), 1, 1}, {256, 1, 1},
                   {cbArgInt(static_cast<int64_t>(n)), cbArgDouble(a), cbArgPointer(x), cbArgPointer(y)});
    }
};

TEST_F(managed_memory, TheFamilySaysKernelsReachHostMemoryAtItsOwnAddress) {
    int value = -1;
    for (cbDeviceAttr a :
         {cbDevAttrManagedMemory, cbDevAttrCanMapHostMemory, cbDevAttrCanUseHostPointerForRegisteredMem}) {
        ASSERT_EQ(rt->device_attribute(&value, a, 0), cbSuccess) << cbGetLastErrorMessage();
        EXPECT_EQ(value, 1) << a;
    }
    ASSERT_EQ(rt->device_attribute(&value, cbDevAttrConcurrentManagedAccess, 0), cbSuccess);
    EXPECT_EQ(value, 0);
}

TEST_F(managed_memory, HostAndKernelsReadAndWriteOneAllocation) {
    cbModule_t m = load("saxpy.ptx");
    const size_t n = 10000;
    float* x = managed<float>(n);
    float* y = managed<float>(n);
    ASSERT_TRUE(x && y);
    for (size_t i = 0; i < n; ++i) x[i] = spread(i, -4.0f, 4.0f), y[i] = 1.0f;
    ASSERT_EQ(saxpy(m, n, 2.0f, x, y), cbSuccess) << cbGetLastErrorMessage();
    for (size_t i = 0; i < n; ++i) ASSERT_EQ(y[i], std::fma(2.0f, x[i], 1.0f)) << i;
    size_t free_before = 0, free_after = 0, total = 0;
    ASSERT_EQ(rt->mem_get_info(&free_before, &total), cbSuccess);
    EXPECT_EQ(rt->free(x), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->free(y), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->mem_get_info(&free_after, &total), cbSuccess);
    EXPECT_EQ(free_after, free_before) << "managed memory takes no VRAM on a simulated GPU";
    EXPECT_EQ(rt->free(x), cbErrorInvalidValue) << "freed already";
}

TEST_F(managed_memory, AtomicsFromEveryBlockLandInManagedMemory) {
    cbModule_t m = load("histogram.ptx");
    const size_t n = 100000;
    auto* data = managed<unsigned char>(n);
    auto* bins = managed<uint32_t>(256);
    ASSERT_TRUE(data && bins);
    std::vector<uint32_t> want(256, 0);
    for (size_t i = 0; i < n; ++i) ++want[data[i] = static_cast<unsigned char>(mix(i))];
    ASSERT_EQ(rt->memset(bins, 0, 256 * 4, nullptr, false), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(run(m, "histogram256", {48, 1, 1}, {256, 1, 1},
                  {cbArgPointer(data), cbArgInt(static_cast<int64_t>(n)), cbArgPointer(bins)}),
              cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(std::vector<uint32_t>(bins, bins + 256), want);
}

TEST_F(managed_memory, CopiesTakeManagedMemoryOnEitherSide) {
    const size_t n = 4096;
    auto* a = managed<int>(n);
    auto* b = managed<int>(n);
    ASSERT_TRUE(a && b);
    for (size_t i = 0; i < n; ++i) a[i] = static_cast<int>(i) * 3;
    void* d = device_alloc(n * 4);
    ASSERT_EQ(rt->memcpy(d, a, n * 4, cbMemcpyDefault, nullptr, false), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(download<int>(d, n)[100], 300);
    ASSERT_EQ(rt->memcpy(b, d, n * 4, cbMemcpyDeviceToDevice, nullptr, false), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(b[4095], 4095 * 3);
    ASSERT_EQ(rt->memset(b, 0xFF, n * 4, nullptr, true), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(b[7], -1);
    ASSERT_EQ(rt->memcpy(b, a, n * 4, cbMemcpyHostToDevice, nullptr, true), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(b[7], 21);
}

TEST_F(managed_memory, PinnedHostMemoryIsReachedAtItsOwnAddressAndNothingElseIs) {
    cbModule_t m = load("saxpy.ptx");
    const size_t n = 3000;
    float* x = nullptr;
    ASSERT_EQ(rt->malloc_host(reinterpret_cast<void**>(&x), n * 4), cbSuccess);
    std::vector<float> y(n, 0.5f), unregistered(n, 7.0f);
    for (size_t i = 0; i < n; ++i) x[i] = static_cast<float>(i);
    ASSERT_EQ(rt->host_register(y.data(), n * 4, cbHostRegisterDefault), cbSuccess) << cbGetLastErrorMessage();
    void* dx = nullptr;
    void* dy = nullptr;
    ASSERT_EQ(rt->host_device_pointer(&dx, x, 0), cbSuccess) << cbGetLastErrorMessage();
    ASSERT_EQ(rt->host_device_pointer(&dy, y.data() + 1, 0), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(dx, x);
    EXPECT_EQ(dy, y.data() + 1);
    ASSERT_EQ(saxpy(m, n, 4.0f, dx, y.data()), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(y[2999], 4.0f * 2999 + 0.5f);
    EXPECT_EQ(rt->host_device_pointer(&dx, unregistered.data(), 0), cbErrorInvalidValue);

    EXPECT_EQ(saxpy(m, n, 4.0f, dx, unregistered.data()), cbErrorIllegalAddress) << cbGetLastErrorMessage();
    EXPECT_EQ(unregistered[0], 7.0f) << "the kernel never touched it";
    EXPECT_EQ(rt->reset_device(), cbSuccess);
    EXPECT_EQ(rt->free_host(x), cbSuccess);
}

TEST_F(managed_memory, KernelsOnManagedMemoryTakeTheLinksTimeNotVrams) {
    cbModule_t m = load("saxpy.ptx");
    const size_t n = size_t{1} << 18;  // 3 MiB moved
    float* x = managed<float>(n);
    float* y = managed<float>(n);
    ASSERT_TRUE(x && y);
    std::fill(x, x + n, 1.0f);
    std::fill(y, y + n, 1.0f);
    void* dx = upload(std::vector<float>(n, 1.0f));
    void* dy = upload(std::vector<float>(n, 1.0f));
    auto timed = [&](const void* a, void* b) {
        cbEvent_t start = nullptr, end = nullptr;
        EXPECT_EQ(rt->event_create(&start), cbSuccess);
        EXPECT_EQ(rt->event_create(&end), cbSuccess);
        EXPECT_EQ(rt->event_record(start, nullptr), cbSuccess);
        EXPECT_EQ(saxpy(m, n, 1.0f, a, b), cbSuccess) << cbGetLastErrorMessage();
        EXPECT_EQ(rt->event_record(end, nullptr), cbSuccess);
        EXPECT_EQ(rt->event_synchronize(end), cbSuccess);
        float ms = 0;
        EXPECT_EQ(rt->event_elapsed(&ms, start, end), cbSuccess) << cbGetLastErrorMessage();
        return ms;
    };
    const float vram_ms = timed(dx, dy), link_ms = timed(x, y);
    // 3 MiB read and 1 MiB written back cross a link of at most 80 Gb/s (USB4 v2): over 0.3 ms,
    // more than the same kernel in VRAM. Priced by what crossed, pages in and changed runs out,
    // a few milliseconds at most, not a request per changed byte.
    EXPECT_GT(link_ms, 0.3f);
    EXPECT_GT(link_ms, vram_ms);
    EXPECT_LT(link_ms, 50.0f);
}

}  // namespace
}  // namespace cudabridge::test
