// enumerate() writes its records at the stride of the caller's struct_size: a newer host's larger
// records and an older host's smaller ones each get every endpoint, in place, and nothing past the
// array.
#include "transport_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cstddef>
#include <cstring>

namespace cudabridge::test {
namespace {

class usb4_records : public usb4_test {};

constexpr uint64_t canary = 0xC0FFEEC0FFEEC0FFull;

// The endpoints with the host's own record size: each record's id, read at that stride.
std::vector<std::string> ids_at_stride(const cb_transport_table* t, void* h, uint32_t size, size_t n,
                                       bool& canary_kept) {
    std::vector<unsigned char> bytes(size * n + sizeof canary, 0);
    for (size_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * size, &size, sizeof size);
    std::memcpy(bytes.data() + size * n, &canary, sizeof canary);
    size_t count = 0;
    EXPECT_EQ(t->enumerate(h, reinterpret_cast<cb_endpoint_info*>(bytes.data()), n, &count), CB_OK)
        << core::last_error();
    std::vector<std::string> ids;
    for (size_t i = 0; i < std::min(count, n); ++i) {
        uint32_t written = 0;
        std::memcpy(&written, bytes.data() + i * size, sizeof written);
        EXPECT_EQ(written, size) << "record " << i << " keeps the host's struct_size";
        ids.emplace_back(reinterpret_cast<const char*>(bytes.data() + i * size + offsetof(cb_endpoint_info, id)));
    }
    uint64_t after = 0;
    std::memcpy(&after, bytes.data() + size * n, sizeof after);
    canary_kept = after == canary;
    return ids;
}

std::vector<std::string> ids(const std::vector<cb_endpoint_info>& v) {
    std::vector<std::string> out;
    for (const auto& e : v) out.emplace_back(e.id);
    return out;
}

TEST_F(usb4_records, ANewerHostsLargerRecordsEachGetTheirEndpoint) {
    const auto expected = ids(endpoints());
    ASSERT_GE(expected.size(), 2u);
    bool canary_kept = false;
    const uint32_t larger = sizeof(cb_endpoint_info) + 24;
    EXPECT_EQ(ids_at_stride(t(), h(), larger, expected.size(), canary_kept), expected);
    EXPECT_TRUE(canary_kept);
}

TEST_F(usb4_records, AnOlderHostsSmallerRecordsEachGetTheirEndpoint) {
    const auto expected = ids(endpoints());
    ASSERT_GE(expected.size(), 2u);
    bool canary_kept = false;
    const uint32_t smaller = offsetof(cb_endpoint_info, driver);
    EXPECT_EQ(ids_at_stride(t(), h(), smaller, expected.size(), canary_kept), expected);
    EXPECT_TRUE(canary_kept);
}

}  // namespace
}  // namespace cudabridge::test
