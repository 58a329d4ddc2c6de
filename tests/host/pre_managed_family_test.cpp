// Managed and zero-copy memory with a GPU family older than ABI 1.9, which has no
// mem_alloc_managed or host_device_address (the registry's host-sized copy of its table holds
// NULL there): cbMallocManaged and cbHostGetDevicePointer answer cbErrorNotSupported naming the
// family, and the device attributes say 0. Nor has it kernel_time (ABI 1.10):
// cbDeviceGetKernelTime answers cbErrorNotSupported and says to time kernels with events.
#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>

namespace cudabridge::test {
namespace {

using host::runtime;

class pre_managed_family : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
        auto* table = const_cast<cb_gpu_table*>(rt->current_session().gpu());
        table->mem_alloc_managed = nullptr;
        table->host_device_address = nullptr;
        table->kernel_time = nullptr;  // and older than 1.10
    }
    void TearDown() override { rt.reset(); }

    std::unique_ptr<runtime> rt;
};

TEST_F(pre_managed_family, MallocManagedIsNotSupportedAndSaysWhichFamily) {
    void* p = reinterpret_cast<void*>(1);
    EXPECT_EQ(rt->malloc_managed(&p, 4096, cbMemAttachGlobal), cbErrorNotSupported);
    EXPECT_EQ(p, nullptr);
    const std::string why = cbGetLastErrorMessage();
    EXPECT_NE(why.find("'nvidia'"), std::string::npos) << why;
    EXPECT_NE(why.find("ABI 1.9"), std::string::npos) << why;
}

TEST_F(pre_managed_family, PinnedMemoryHasNoDeviceAddressAndTheAttributesSayNo) {
    void* host = nullptr;
    ASSERT_EQ(rt->malloc_host(&host, 4096), cbSuccess) << cbGetLastErrorMessage();
    void* device = nullptr;
    EXPECT_EQ(rt->host_device_pointer(&device, host, 0), cbErrorNotSupported);
    int value = -1;
    for (cbDeviceAttr a : {cbDevAttrManagedMemory, cbDevAttrCanMapHostMemory, cbDevAttrConcurrentManagedAccess}) {
        ASSERT_EQ(rt->device_attribute(&value, a, 0), cbSuccess) << cbGetLastErrorMessage();
        EXPECT_EQ(value, 0) << a;
    }
    EXPECT_EQ(rt->free_host(host), cbSuccess);
}

TEST_F(pre_managed_family, KernelTimeIsNotSupportedAndSaysWhy) {
    unsigned long long ns = 7;
    EXPECT_EQ(rt->kernel_time(&ns), cbErrorNotSupported);
    EXPECT_EQ(ns, 0u);
    const std::string why = cbGetLastErrorMessage();
    EXPECT_NE(why.find("ABI 1.10"), std::string::npos) << why;
    EXPECT_NE(why.find("events"), std::string::npos) << why;
}

}  // namespace
}  // namespace cudabridge::test
