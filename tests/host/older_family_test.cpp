// Pinned host memory with a GPU family older than ABI 1.3, which has no host_register or
// host_unregister: the registry's host-sized copy of its table holds NULL there. The runtime then
// registers ranges itself (copies stay pageable), and unregisters them the same way.
#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>

namespace cudabridge::test {
namespace {

using host::runtime;

class older_family : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
        // What the registry's copy of an ABI 1.0-1.2 family's table holds for the 1.3 entries.
        auto* table = const_cast<cb_gpu_table*>(rt->current_session().gpu());
        table->host_register = nullptr;
        table->host_unregister = nullptr;
    }
    void TearDown() override { rt.reset(); }

    std::unique_ptr<runtime> rt;
    std::vector<char> buffer = std::vector<char>(8192);
};

TEST_F(older_family, ARegisteredRangeCanBeUnregistered) {
    ASSERT_EQ(rt->host_register(buffer.data(), buffer.size(), cbHostRegisterDefault), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(rt->host_unregister(buffer.data()), cbSuccess) << cbGetLastErrorMessage();
}

TEST_F(older_family, AnUnregisteredRangeIsStillRefused) {
    EXPECT_EQ(rt->host_unregister(buffer.data()), cbErrorInvalidValue);
}

TEST_F(older_family, MallocHostMemoryIsFreedWithoutComplaint) {
    void* p = nullptr;
    ASSERT_EQ(rt->malloc_host(&p, 4096), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->free_host(p), cbSuccess);
}

TEST_F(older_family, CopiesFromARegisteredRangeArriveIntact) {
    ASSERT_EQ(rt->host_register(buffer.data(), buffer.size(), cbHostRegisterDefault), cbSuccess);
    for (size_t i = 0; i < buffer.size(); ++i) buffer[i] = static_cast<char>(i * 7);
    void* d = nullptr;
    ASSERT_EQ(rt->malloc(&d, buffer.size()), cbSuccess);
    ASSERT_EQ(rt->memcpy(d, buffer.data(), buffer.size(), cbMemcpyHostToDevice, nullptr, false), cbSuccess);
    std::vector<char> back(buffer.size());
    ASSERT_EQ(rt->memcpy(back.data(), d, back.size(), cbMemcpyDeviceToHost, nullptr, false), cbSuccess);
    EXPECT_EQ(back, buffer);
    EXPECT_EQ(rt->free(d), cbSuccess);
    EXPECT_EQ(rt->host_unregister(buffer.data()), cbSuccess);
}

}  // namespace
}  // namespace cudabridge::test
