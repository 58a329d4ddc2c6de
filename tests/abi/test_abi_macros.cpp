// CB_HAS_FIELD / CB_HAS_MEMBER and the version macros, expanded in C++ and (through
// abi_macros_c.c) in C.
#include "abi_macros_c.h"

#include <cudabridge/plugin.h>

#include <gtest/gtest.h>

#include <cstddef>

namespace {

cb_status fake_write(void*, const cb_log_record*) { return CB_OK; }
cb_status fake_flush(void*) { return CB_OK; }
void fake_close(void*) {}
cb_status fake_batch(void*, const cb_log_record*, size_t) { return CB_OK; }
int64_t fake_realtime(cb_host*) { return 1; }
cb_status fake_control(void*, const char*, char*, size_t, size_t*) { return CB_OK; }

cb_logsink_table full_table() {
    cb_logsink_table t{};
    t.struct_size = sizeof t;
    t.write = &fake_write;
    t.flush = &fake_flush;
    t.close = &fake_close;
    t.write_batch = &fake_batch;
    return t;
}

// Checks one table in C++ and in C; both must agree with `field` / `member`.
void expect_write_batch(const cb_logsink_table* t, bool field, bool member) {
    EXPECT_EQ(CB_HAS_FIELD(t, cb_logsink_table, write_batch), field);
    EXPECT_EQ(CB_HAS_MEMBER(t, cb_logsink_table, write_batch), member);
    EXPECT_EQ(cb_abi_c_has_field_write_batch(t) != 0, field);
    EXPECT_EQ(cb_abi_c_has_member_write_batch(t) != 0, member);
}

}  // namespace

TEST(abi_macros, abi_1_0_table_has_no_write_batch) {
    cb_logsink_table t = full_table();
    t.struct_size = offsetof(cb_logsink_table, write_batch);
    const cb_logsink_table* p = &t;
    SCOPED_TRACE("struct_size = offsetof(write_batch)");
    expect_write_batch(p, false, false);
    EXPECT_TRUE(CB_HAS_FIELD(p, cb_logsink_table, write));
    EXPECT_TRUE(CB_HAS_FIELD(p, cb_logsink_table, close));
}

TEST(abi_macros, full_table_with_entry_has_it) {
    cb_logsink_table t = full_table();
    expect_write_batch(&t, true, true);
}

TEST(abi_macros, full_table_with_null_entry_has_member_but_not_field) {
    cb_logsink_table t = full_table();
    t.write_batch = nullptr;
    expect_write_batch(&t, false, true);
}

TEST(abi_macros, a_partly_covered_field_does_not_count) {
    cb_logsink_table t = full_table();
    t.struct_size = static_cast<uint32_t>(offsetof(cb_logsink_table, write_batch) + sizeof(t.write_batch) - 1);
    expect_write_batch(&t, false, false);
}

TEST(abi_macros, a_larger_table_from_a_newer_peer_has_every_known_field) {
    struct newer {
        cb_logsink_table known;
        void (*added_later)(void);
    } n{};
    n.known = full_table();
    n.known.struct_size = sizeof n;
    expect_write_batch(&n.known, true, true);
}

TEST(abi_macros, null_table_has_nothing) {
    const cb_logsink_table* p = nullptr;
    expect_write_batch(p, false, false);
    const cb_host_services* s = nullptr;
    EXPECT_FALSE(CB_HAS_FIELD(s, cb_host_services, log));
}

TEST(abi_macros, host_services_from_an_abi_1_0_host_lack_realtime_ns) {
    cb_host_services s{};
    s.struct_size = offsetof(cb_host_services, realtime_ns);
    s.realtime_ns = &fake_realtime;  // whatever lies beyond struct_size must be ignored
    EXPECT_FALSE(CB_HAS_FIELD(&s, cb_host_services, realtime_ns));
    EXPECT_EQ(cb_abi_c_has_field_realtime_ns(&s), 0);
    s.struct_size = sizeof s;
    EXPECT_TRUE(CB_HAS_FIELD(&s, cb_host_services, realtime_ns));
    EXPECT_NE(cb_abi_c_has_field_realtime_ns(&s), 0);
}

TEST(abi_macros, gpu_table_from_an_abi_1_1_family_lacks_control) {
    cb_gpu_table t{};
    t.control = &fake_control;                        // whatever lies beyond struct_size must be ignored
    t.struct_size = offsetof(cb_gpu_table, control);  // what an ABI 1.0 or 1.1 family sets
    EXPECT_FALSE(CB_HAS_FIELD(&t, cb_gpu_table, control));
    EXPECT_EQ(cb_abi_c_has_field_gpu_control(&t), 0);
    t.struct_size = sizeof t;
    EXPECT_TRUE(CB_HAS_FIELD(&t, cb_gpu_table, control));
    EXPECT_NE(cb_abi_c_has_field_gpu_control(&t), 0);
    t.control = nullptr;
    EXPECT_FALSE(CB_HAS_FIELD(&t, cb_gpu_table, control));
    EXPECT_TRUE(CB_HAS_MEMBER(&t, cb_gpu_table, control));
}

TEST(abi_macros, has_member_covers_data_fields_whose_zero_is_valid) {
    cb_log_record r{};
    r.struct_size = sizeof r;
    r.message_len = 0;
    EXPECT_TRUE(CB_HAS_MEMBER(&r, cb_log_record, message_len));
    EXPECT_FALSE(CB_HAS_FIELD(&r, cb_log_record, message_len));  // set but zero
    EXPECT_NE(cb_abi_c_has_member_message_len(&r), 0);
    r.struct_size = offsetof(cb_log_record, message_len);
    EXPECT_FALSE(CB_HAS_MEMBER(&r, cb_log_record, message_len));
    EXPECT_EQ(cb_abi_c_has_member_message_len(&r), 0);
}

static_assert(CB_MAKE_VERSION(1, 0, 0) == (1u << 22));
static_assert(CB_VERSION_MAJOR(CB_MAKE_VERSION(1023, 1023, 4095)) == 1023);
static_assert(CB_VERSION_MINOR(CB_MAKE_VERSION(1023, 1023, 4095)) == 1023);
static_assert(CB_VERSION_PATCH(CB_MAKE_VERSION(1023, 1023, 4095)) == 4095);
static_assert(CB_MAKE_VERSION(1023, 1023, 4095) == 0xffffffffu);

TEST(abi_versions, make_version_round_trips) {
    const uint32_t majors[] = {0, 1, 2, 9, 512, 1023};
    const uint32_t minors[] = {0, 1, 10, 511, 1023};
    const uint32_t patches[] = {0, 1, 99, 2048, 4095};
    for (uint32_t ma : majors)
        for (uint32_t mi : minors)
            for (uint32_t pa : patches) {
                uint32_t v = CB_MAKE_VERSION(ma, mi, pa);
                EXPECT_EQ(CB_VERSION_MAJOR(v), ma);
                EXPECT_EQ(CB_VERSION_MINOR(v), mi);
                EXPECT_EQ(CB_VERSION_PATCH(v), pa);
                EXPECT_EQ(cb_abi_c_make_version(ma, mi, pa), v);
                EXPECT_EQ(cb_abi_c_version_major(v), ma);
                EXPECT_EQ(cb_abi_c_version_minor(v), mi);
                EXPECT_EQ(cb_abi_c_version_patch(v), pa);
            }
}

TEST(abi_versions, packed_versions_order_like_their_parts) {
    EXPECT_LT(CB_MAKE_VERSION(1, 0, 0), CB_MAKE_VERSION(1, 0, 1));
    EXPECT_LT(CB_MAKE_VERSION(1, 0, 4095), CB_MAKE_VERSION(1, 1, 0));
    EXPECT_LT(CB_MAKE_VERSION(1, 1023, 4095), CB_MAKE_VERSION(2, 0, 0));
    EXPECT_LT(CB_MAKE_VERSION(1, 9, 0), CB_MAKE_VERSION(1, 10, 0));
}

TEST(abi_versions, header_abi_is_1_x) {
    EXPECT_EQ(CB_ABI_MAJOR, 1);
    EXPECT_GE(CB_ABI_MINOR, 2);
}
