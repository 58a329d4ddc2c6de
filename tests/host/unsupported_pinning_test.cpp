// Pinned host memory with a GPU family whose host_register and host_unregister answer
// CB_ERR_UNSUPPORTED, as a C++ family's do when it does not override them: the runtime treats
// that as a missing entry, exactly as for a family older than ABI 1.3.
#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>

namespace cudabridge::test {
namespace {

using host::runtime;

cb_status unsupported_register(void*, cb_gpu_device*, void*, size_t) { return CB_ERR_UNSUPPORTED; }
cb_status unsupported_unregister(void*, cb_gpu_device*, void*) { return CB_ERR_UNSUPPORTED; }

class unsupported_pinning : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
        auto* table = const_cast<cb_gpu_table*>(rt->current_session().gpu());
        table->host_register = &unsupported_register;
        table->host_unregister = &unsupported_unregister;
    }
    void TearDown() override { rt.reset(); }

    std::unique_ptr<runtime> rt;
    std::vector<char> buffer = std::vector<char>(8192);
};

TEST_F(unsupported_pinning, MallocHostStillGivesMemory) {
    void* p = nullptr;
    ASSERT_EQ(rt->malloc_host(&p, 4096), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(rt->free_host(p), cbSuccess);
}

TEST_F(unsupported_pinning, ARangeRegistersAndUnregisters) {
    ASSERT_EQ(rt->host_register(buffer.data(), buffer.size(), cbHostRegisterDefault), cbSuccess)
        << cbGetLastErrorMessage();
    EXPECT_EQ(rt->host_unregister(buffer.data()), cbSuccess) << cbGetLastErrorMessage();
}

}  // namespace
}  // namespace cudabridge::test
