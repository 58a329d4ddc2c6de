// The nvidia family writes an output record no further than the caller's struct_size: an older
// host's shorter record is never overrun, and keeps the size the host gave it.
#include "gpu_fixture.hpp"

#include <cudabridge/core/error.hpp>

#include <cstddef>
#include <cstring>

namespace cudabridge::test {
namespace {

class nvidia_records : public gpu_test {};

constexpr unsigned char untouched = 0xA5;

// An older host's record: only the first `size` bytes are the record; the rest is the host's own.
template <class Record>
struct older_record {
    explicit older_record(size_t size) {
        std::memset(bytes, untouched, sizeof bytes);
        std::memset(bytes, 0, size);
        const auto s = static_cast<uint32_t>(size);
        std::memcpy(bytes, &s, sizeof s);
    }
    Record* get() { return reinterpret_cast<Record*>(bytes); }
    bool tail_untouched(size_t size) const {
        for (size_t i = size; i < sizeof bytes; ++i)
            if (bytes[i] != untouched) return false;
        return true;
    }
    uint32_t struct_size() const {
        uint32_t s = 0;
        std::memcpy(&s, bytes, sizeof s);
        return s;
    }
    alignas(Record) unsigned char bytes[sizeof(Record) + 16];
};

TEST_F(nvidia_records, SettingsStopAtAShorterRecordsEnd) {
    bring_up();
    constexpr size_t size = offsetof(cb_gpu_settings, power_limit_w);
    older_record<cb_gpu_settings> r(size);
    ASSERT_EQ(g()->get_settings(gh(), dev, r.get()), CB_OK) << core::last_error();
    EXPECT_TRUE(r.tail_untouched(size));
    EXPECT_EQ(r.struct_size(), size);
}

TEST_F(nvidia_records, SettingLimitsStopAtAShorterRecordsEnd) {
    bring_up();
    constexpr size_t size = offsetof(cb_gpu_setting_limits, min_power_w);
    older_record<cb_gpu_setting_limits> r(size);
    ASSERT_EQ(g()->get_setting_limits(gh(), dev, r.get()), CB_OK) << core::last_error();
    EXPECT_TRUE(r.tail_untouched(size));
    EXPECT_EQ(r.struct_size(), size);
    EXPECT_GT(r.get()->max_sm_clock_mhz, 0u);  // what it holds is filled
}

TEST_F(nvidia_records, PropertiesAndTelemetryStopAtAShorterRecordsEnd) {
    bring_up();
    older_record<cb_gpu_properties> p(64);
    ASSERT_EQ(g()->get_properties(gh(), dev, p.get()), CB_OK) << core::last_error();
    EXPECT_TRUE(p.tail_untouched(64));
    EXPECT_EQ(p.struct_size(), 64u);
    older_record<cb_gpu_telemetry> t(32);
    ASSERT_EQ(g()->get_telemetry(gh(), dev, t.get()), CB_OK) << core::last_error();
    EXPECT_TRUE(t.tail_untouched(32));
    EXPECT_EQ(t.struct_size(), 32u);
}

}  // namespace
}  // namespace cudabridge::test
