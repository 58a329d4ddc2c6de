// Stream ordering with a GPU family whose stream_wait_event answers CB_ERR_UNSUPPORTED, as a C++
// family's does when it does not override it: the runtime orders the streams on the host, as for
// a family without the entry.
#include "host_fixture.hpp"

#include <cudabridge/host/runtime.hpp>

namespace cudabridge::test {
namespace {

using host::runtime;

cb_status unsupported_wait(void*, cb_gpu_stream*, cb_gpu_event*) { return CB_ERR_UNSUPPORTED; }

class unsupported_stream_wait : public host_test {
protected:
    void SetUp() override {
        rt = std::make_unique<runtime>(runtime_options());
        ASSERT_EQ(rt->device_count(), 1) << rt->startup_error();
        const_cast<cb_gpu_table*>(rt->current_session().gpu())->stream_wait_event = &unsupported_wait;
    }
    void TearDown() override { rt.reset(); }

    std::unique_ptr<runtime> rt;
};

TEST_F(unsupported_stream_wait, WorkOnAStreamAfterTheDefaultStreamSeesItsResult) {
    const std::vector<float> in = pattern(4096, 3.0f);
    void* d = nullptr;
    ASSERT_EQ(rt->malloc(&d, in.size() * 4), cbSuccess);
    ASSERT_EQ(rt->memcpy(d, in.data(), in.size() * 4, cbMemcpyHostToDevice, nullptr, true), cbSuccess);
    cbStream_t s = nullptr;
    ASSERT_EQ(rt->stream_create(&s, cbStreamDefault), cbSuccess);
    std::vector<float> out(in.size());
    EXPECT_EQ(rt->memcpy(out.data(), d, out.size() * 4, cbMemcpyDeviceToHost, s, true), cbSuccess)
        << cbGetLastErrorMessage();
    ASSERT_EQ(rt->stream_synchronize(s), cbSuccess) << cbGetLastErrorMessage();
    EXPECT_EQ(out, in);
    EXPECT_EQ(rt->stream_destroy(s), cbSuccess);
    EXPECT_EQ(rt->free(d), cbSuccess);
}

}  // namespace
}  // namespace cudabridge::test
