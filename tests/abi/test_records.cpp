// sdk::copy_record and sdk::copy_records: a plugin writes an output record, or an array of them,
// into memory laid out by the caller's struct_size, which may be larger (a newer host) or smaller
// (an older host) than the plugin's own record.
#include <cudabridge/cpp/records.hpp>
#include <cudabridge/transport.h>

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace sdk = cudabridge::sdk;

namespace {

constexpr uint64_t canary = 0xC0FFEEC0FFEEC0FFull;

// What a newer host's endpoint record looks like: today's fields, then one appended later.
struct newer_endpoint_info {
    cb_endpoint_info known;
    uint64_t appended;
};

// An older host's record ends before `driver`.
constexpr uint32_t older_size = offsetof(cb_endpoint_info, driver);

cb_endpoint_info endpoint(const char* id) {
    cb_endpoint_info e{};
    e.struct_size = sizeof e;
    e.kind = CB_ENDPOINT_PCI_FUNCTION;
    std::strncpy(e.id, id, sizeof e.id - 1);
    std::strncpy(e.driver, "nvidia", sizeof e.driver - 1);
    e.pci_vendor_id = 0x10de;
    return e;
}

const std::vector<cb_endpoint_info> plugin_records = {endpoint("0000:01:00.0"), endpoint("0000:02:00.0"),
                                                      endpoint("0000:03:00.0")};

// The caller's memory for `n` records of `size` bytes each, zero-filled, struct_size set in each,
// followed by a canary the plugin must not reach.
std::vector<unsigned char> caller_array(uint32_t size, size_t n) {
    std::vector<unsigned char> bytes(size * n + sizeof canary, 0);
    for (size_t i = 0; i < n; ++i) std::memcpy(bytes.data() + i * size, &size, sizeof size);
    std::memcpy(bytes.data() + size * n, &canary, sizeof canary);
    return bytes;
}

cb_endpoint_info read_prefix(const unsigned char* at, uint32_t size) {
    cb_endpoint_info e{};
    std::memcpy(&e, at, size);
    return e;
}

uint64_t canary_after(const std::vector<unsigned char>& bytes) {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data() + bytes.size() - sizeof v, sizeof v);
    return v;
}

}  // namespace

TEST(RecordCopy, ARecordAsLargeAsThePluginsGetsEveryField) {
    cb_endpoint_info out{};
    out.struct_size = sizeof out;
    sdk::copy_record(&out, plugin_records[0]);
    EXPECT_STREQ(out.id, "0000:01:00.0");
    EXPECT_STREQ(out.driver, "nvidia");
    EXPECT_EQ(out.struct_size, sizeof out);
}

TEST(RecordCopy, AnOlderHostsShorterRecordGetsOnlyTheFieldsItHolds) {
    auto bytes = caller_array(older_size, 1);
    sdk::copy_record(reinterpret_cast<cb_endpoint_info*>(bytes.data()), plugin_records[0]);
    const auto e = read_prefix(bytes.data(), older_size);
    EXPECT_EQ(e.struct_size, older_size);  // the caller's size, not the plugin's
    EXPECT_STREQ(e.id, "0000:01:00.0");
    EXPECT_EQ(canary_after(bytes), canary);
}

TEST(RecordCopy, ANewerHostsLargerRecordKeepsItsAppendedFieldsZero) {
    newer_endpoint_info out{};
    out.known.struct_size = sizeof out;
    sdk::copy_record(&out.known, plugin_records[0]);
    EXPECT_STREQ(out.known.id, "0000:01:00.0");
    EXPECT_EQ(out.known.struct_size, sizeof out);
    EXPECT_EQ(out.appended, 0u);
}

TEST(RecordCopy, ARecordWhoseSizeIsZeroGetsNothing) {
    cb_endpoint_info out{};
    sdk::copy_record(&out, plugin_records[0]);
    EXPECT_STREQ(out.id, "");
}

TEST(RecordArrays, ANewerHostsArrayIsSteppedByItsLargerRecordSize) {
    std::vector<newer_endpoint_info> out(3);
    for (auto& e : out) e.known.struct_size = sizeof e;
    ASSERT_EQ(sdk::copy_records(&out[0].known, out.size(), plugin_records.data(), plugin_records.size()), CB_OK);
    EXPECT_STREQ(out[0].known.id, "0000:01:00.0");
    EXPECT_STREQ(out[1].known.id, "0000:02:00.0");
    EXPECT_STREQ(out[2].known.id, "0000:03:00.0");
    for (const auto& e : out) {
        EXPECT_EQ(e.known.struct_size, sizeof e);
        EXPECT_EQ(e.appended, 0u);
    }
}

TEST(RecordArrays, AnOlderHostsArrayIsSteppedByItsSmallerRecordSize) {
    auto bytes = caller_array(older_size, 3);
    ASSERT_EQ(sdk::copy_records(reinterpret_cast<cb_endpoint_info*>(bytes.data()), 3, plugin_records.data(),
                                plugin_records.size()),
              CB_OK);
    EXPECT_STREQ(read_prefix(bytes.data(), older_size).id, "0000:01:00.0");
    EXPECT_STREQ(read_prefix(bytes.data() + older_size, older_size).id, "0000:02:00.0");
    EXPECT_STREQ(read_prefix(bytes.data() + 2 * older_size, older_size).id, "0000:03:00.0");
    EXPECT_EQ(read_prefix(bytes.data() + 2 * older_size, older_size).struct_size, older_size);
    EXPECT_EQ(canary_after(bytes), canary);
}

TEST(RecordArrays, AnExplicitElementSizeIsTheStride) {
    auto bytes = caller_array(older_size, 2);
    ASSERT_EQ(sdk::copy_records_strided(bytes.data(), older_size, 2, plugin_records.data(), plugin_records.size()),
              CB_OK);
    EXPECT_STREQ(read_prefix(bytes.data() + older_size, older_size).id, "0000:02:00.0");
    EXPECT_EQ(canary_after(bytes), canary);
}

TEST(RecordArrays, NoMoreThanTheCapacityIsWritten) {
    auto bytes = caller_array(sizeof(cb_endpoint_info), 1);
    ASSERT_EQ(sdk::copy_records(reinterpret_cast<cb_endpoint_info*>(bytes.data()), 1, plugin_records.data(),
                                plugin_records.size()),
              CB_OK);
    EXPECT_EQ(canary_after(bytes), canary);
}

TEST(RecordArrays, AStrideTooSmallForStructSizeIsRefused) {
    cb_endpoint_info out{};
    out.struct_size = 2;
    EXPECT_EQ(sdk::copy_records(&out, 1, plugin_records.data(), plugin_records.size()), CB_ERR_INVALID_ARGUMENT);
}

TEST(RecordArrays, NoArrayAndNoCapacityIsACountOnlyCall) {
    EXPECT_EQ(sdk::copy_records<cb_endpoint_info>(nullptr, 0, plugin_records.data(), plugin_records.size()), CB_OK);
    EXPECT_EQ(sdk::copy_records<cb_endpoint_info>(nullptr, 1, plugin_records.data(), plugin_records.size()),
              CB_ERR_INVALID_ARGUMENT);
}
