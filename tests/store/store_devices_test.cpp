// Known devices: the upsert keeps what enrollment set, forgetting, policy and key validation, and
// two store objects on one file seeing each other's writes.
#include "store_test_util.hpp"

#include <cudabridge/core/error.hpp>

using namespace cudabridge::core;
using namespace cb_store_test;

namespace {

std::vector<uint8_t> key_of(uint8_t seed, size_t size = 32) {
    std::vector<uint8_t> key(size);
    for (size_t i = 0; i < size; ++i) key[i] = static_cast<uint8_t>(seed + i * 7);
    return key;
}

cb_status status_of(const std::function<void()>& body) {
    try {
        body();
    } catch (const error& e) {
        return e.status();
    }
    return CB_OK;
}

class StoreDevices : public ::testing::Test {
protected:
    temp_dir dir;
    store s{dir.db()};
};

}  // namespace

TEST_F(StoreDevices, NewDeviceIsManualWithoutKey) {
    EXPECT_FALSE(find_known_device(s, "d1"));
    auto row = remember_device(s, "d1", "Razer Core X", "Razer", R"({"generation":3})");
    EXPECT_EQ(row.unique_id, "d1");
    EXPECT_EQ(row.name, "Razer Core X");
    EXPECT_EQ(row.vendor, "Razer");
    EXPECT_GT(row.first_seen_ns, 0);
    EXPECT_EQ(row.last_seen_ns, row.first_seen_ns);
    EXPECT_EQ(row.policy, "manual");
    EXPECT_TRUE(row.key.empty());
    EXPECT_EQ(row.data_json, R"({"generation":3})");

    auto found = find_known_device(s, "d1");
    ASSERT_TRUE(found);
    EXPECT_EQ(found->first_seen_ns, row.first_seen_ns);
    EXPECT_EQ(found->data_json, row.data_json);
    EXPECT_TRUE(count_rows(s, "SELECT COUNT(*) FROM devices WHERE key IS NULL") == 1)
        << "no key is SQL NULL, not an empty blob";

    EXPECT_EQ(status_of([&] { remember_device(s, "", "x", "y"); }), CB_ERR_INVALID_ARGUMENT);
}

TEST_F(StoreDevices, UpsertKeepsFirstSeenPolicyAndKey) {
    auto first = remember_device(s, "d1", "Old name", "Vendor A", R"({"v":1})");
    set_device_policy(s, "d1", "auto");
    set_device_key(s, "d1", key_of(3));

    auto again = remember_device(s, "d1", "New name", "Vendor B", R"({"v":2})");
    EXPECT_EQ(again.first_seen_ns, first.first_seen_ns);
    EXPECT_GE(again.last_seen_ns, first.last_seen_ns);
    EXPECT_EQ(again.name, "New name");
    EXPECT_EQ(again.vendor, "Vendor B");
    EXPECT_EQ(again.policy, "auto");
    EXPECT_EQ(again.key, key_of(3));
    EXPECT_EQ(again.data_json, R"({"v":2})");

    auto without_data = remember_device(s, "d1", "New name", "Vendor B");
    EXPECT_EQ(without_data.data_json, R"({"v":2})") << "empty data keeps the stored data";
    EXPECT_EQ(list_known_devices(s).size(), 1u);
}

TEST_F(StoreDevices, ListsByFirstSeen) {
    remember_device(s, "b", "B", "v");
    remember_device(s, "a", "A", "v");
    remember_device(s, "c", "C", "v");
    // Fixed times, so the order does not depend on the clock's resolution.
    s.exec("UPDATE devices SET first_seen_ns = 300 WHERE unique_id = 'b'");
    s.exec("UPDATE devices SET first_seen_ns = 100 WHERE unique_id = 'c'");
    s.exec("UPDATE devices SET first_seen_ns = 200 WHERE unique_id = 'a'");
    auto rows = list_known_devices(s);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].unique_id, "c");
    EXPECT_EQ(rows[1].unique_id, "a");
    EXPECT_EQ(rows[2].unique_id, "b");
}

TEST_F(StoreDevices, ForgetDropsRowAndKey) {
    remember_device(s, "d1", "A", "v");
    set_device_key(s, "d1", key_of(9));
    remember_device(s, "d2", "B", "v");
    EXPECT_TRUE(forget_device(s, "d1"));
    EXPECT_FALSE(forget_device(s, "d1"));
    EXPECT_FALSE(forget_device(s, "never"));
    EXPECT_FALSE(find_known_device(s, "d1"));
    EXPECT_TRUE(find_known_device(s, "d2"));

    auto back = remember_device(s, "d1", "A", "v");
    EXPECT_TRUE(back.key.empty()) << "a forgotten device comes back unenrolled";
    EXPECT_EQ(back.policy, "manual");
}

TEST_F(StoreDevices, PoliciesAreValidated) {
    remember_device(s, "d1", "A", "v");
    set_device_policy(s, "d1", "auto");
    EXPECT_EQ(find_known_device(s, "d1")->policy, "auto");
    set_device_policy(s, "d1", "manual");
    EXPECT_EQ(find_known_device(s, "d1")->policy, "manual");

    for (const char* bad : {"", "Auto", "iommu", "manual "})
        EXPECT_EQ(status_of([&] { set_device_policy(s, "d1", bad); }), CB_ERR_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(find_known_device(s, "d1")->policy, "manual");
    EXPECT_EQ(status_of([&] { set_device_policy(s, "unknown", "auto"); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_FALSE(find_known_device(s, "unknown")) << "a policy never creates a device";
}

TEST_F(StoreDevices, KeyLengthIsValidated) {
    remember_device(s, "d1", "A", "v");
    EXPECT_EQ(status_of([&] { set_device_key(s, "d1", key_of(1, 31)); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(status_of([&] { set_device_key(s, "d1", key_of(1, 33)); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(status_of([&] { set_device_key(s, "d1", key_of(1, 64)); }), CB_ERR_INVALID_ARGUMENT);
    EXPECT_TRUE(find_known_device(s, "d1")->key.empty());

    set_device_key(s, "d1", key_of(5));
    EXPECT_EQ(find_known_device(s, "d1")->key, key_of(5));
    set_device_key(s, "d1", key_of(6));
    EXPECT_EQ(find_known_device(s, "d1")->key, key_of(6));
    set_device_key(s, "d1", {});
    EXPECT_TRUE(find_known_device(s, "d1")->key.empty());

    EXPECT_EQ(status_of([&] { set_device_key(s, "unknown", key_of(5)); }), CB_ERR_NOT_FOUND);
}

TEST_F(StoreDevices, TwoStoresOnOneFileSeeEachOther) {
    store other(dir.db());
    remember_device(s, "d1", "A", "v");
    auto seen = find_known_device(other, "d1");
    ASSERT_TRUE(seen);
    EXPECT_EQ(seen->name, "A");

    set_device_key(other, "d1", key_of(2));
    set_device_policy(other, "d1", "auto");
    auto back = find_known_device(s, "d1");
    ASSERT_TRUE(back);
    EXPECT_EQ(back->key, key_of(2));
    EXPECT_EQ(back->policy, "auto");

    EXPECT_TRUE(forget_device(other, "d1"));
    EXPECT_FALSE(find_known_device(s, "d1"));
}
