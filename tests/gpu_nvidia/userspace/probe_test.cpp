// Probing: identity of two profiles read back through config space and BAR0, and refusals of a
// device of another vendor and of one that does not answer.
#include "sim_bench.hpp"

#include "common/hw/registers.hpp"

#include <cstring>

namespace cudabridge::test {
namespace {

void expect_identity(const char* key, const char* architecture, uint16_t device_id) {
    bench_options o;
    o.profile = key;
    o.init = false;
    sim_bench bench(o);
    std::string error;
    ASSERT_EQ(bench.gpu().probe(error), CB_OK) << error;
    cb_gpu_properties p{};
    ASSERT_EQ(bench.gpu().get_properties(p, error), CB_OK) << error;
    const nv::gpu_profile* profile = nv::find_profile_by_key(key);
    ASSERT_NE(profile, nullptr);
    EXPECT_STREQ(p.name, profile->name.c_str());
    EXPECT_STREQ(p.architecture, architecture);
    EXPECT_STREQ(p.backend, "userspace");
    EXPECT_EQ(p.pci_vendor_id, 0x10de);
    EXPECT_EQ(p.pci_device_id, device_id);
    EXPECT_EQ(p.total_memory, profile->vram_bytes);
    EXPECT_EQ(p.compute_major, profile->compute_major);
    EXPECT_EQ(p.compute_minor, profile->compute_minor);
    EXPECT_EQ(p.sm_count, profile->sm_count);
    EXPECT_EQ(p.is_simulated, 1);
    EXPECT_EQ(bench.gpu().profile(), profile);
    // Probing alone sets nothing up: memory needs init.
    uint64_t ptr = 0;
    EXPECT_EQ(bench.gpu().mem_alloc(256, ptr, error), CB_ERR_INVALID_ARGUMENT);
    ASSERT_EQ(bench.gpu().init(error), CB_OK) << error;
    uint64_t free_bytes = 0, total = 0;
    ASSERT_EQ(bench.gpu().mem_info(free_bytes, total, error), CB_OK) << error;
    EXPECT_EQ(total, profile->vram_bytes);
    EXPECT_EQ(free_bytes, total);
}

TEST(UserspaceProbe, IdentifiesRtx5090) { expect_identity("rtx-5090", "Blackwell", 0x2b85); }
TEST(UserspaceProbe, IdentifiesL4) { expect_identity("l4", "Ada Lovelace", 0x27b8); }

// A function of another vendor: config space and a BAR, nothing else.
struct foreign_model {
    static cb_status config_read(void*, uint32_t offset, void* data, uint32_t size) {
        uint8_t cfg[256] = {0x34, 0x12, 0x78, 0x56};  // vendor 0x1234, device 0x5678
        if (offset + size > sizeof cfg) return CB_ERR_INVALID_ARGUMENT;
        std::memcpy(data, cfg + offset, size);
        return CB_OK;
    }
    static cb_status config_write(void*, uint32_t, const void*, uint32_t) { return CB_OK; }
    static cb_status bar_info(void*, uint32_t bar, cb_bar_info* out) {
        out->index = bar;
        out->size = bar == 0 ? (16u << 20) : 0;
        return CB_OK;
    }
    static cb_status mmio_read(void*, uint32_t, uint64_t, void* data, uint32_t size) {
        std::memset(data, 0x5A, size);
        return CB_OK;
    }
    static cb_status mmio_write(void*, uint32_t, uint64_t, const void*, uint32_t) { return CB_OK; }
    static cb_status attach(void*, const cb_endpoint_host_ops*) { return CB_OK; }
    static void detach(void*) {}

    static const cb_endpoint_model_table* table() {
        static const cb_endpoint_model_table t = {sizeof(cb_endpoint_model_table),
                                                  &config_read,
                                                  &config_write,
                                                  &bar_info,
                                                  &mmio_read,
                                                  &mmio_write,
                                                  nullptr,
                                                  &attach,
                                                  &detach,
                                                  nullptr};
        return &t;
    }
};

TEST(UserspaceProbe, RefusesAnotherVendor) {
    foreign_model model;
    sim_bench bench(foreign_model::table(), &model);
    std::string error;
    EXPECT_EQ(bench.gpu().probe(error), CB_ERR_UNSUPPORTED);
    EXPECT_NE(error.find("not an NVIDIA device"), std::string::npos) << error;
    EXPECT_NE(error.find("0x1234"), std::string::npos) << error;
    error.clear();
    EXPECT_EQ(bench.gpu().init(error), CB_ERR_UNSUPPORTED) << error;
    cb_gpu_properties p{};
    EXPECT_EQ(bench.gpu().get_properties(p, error), CB_ERR_INVALID_ARGUMENT);
}

TEST(UserspaceProbe, RefusesADeviceThatDoesNotAnswer) {
    bench_options o;
    o.init = false;
    sim_bench bench(o);
    usb4::fault_request hang;
    hang.stuck = true;
    bench.inject(hang);
    std::string error;
    EXPECT_EQ(bench.gpu().probe(error), CB_ERR_NO_DEVICE);
    EXPECT_NE(error.find("does not respond"), std::string::npos) << error;
}

TEST(UserspaceProbe, RefusesAnUnpluggedDevice) {
    bench_options o;
    o.init = false;
    sim_bench bench(o);
    usb4::fault_request pull;
    pull.unplug_now = true;
    bench.inject(pull);
    std::string error;
    EXPECT_EQ(bench.gpu().probe(error), CB_ERR_DEVICE_LOST) << error;
    EXPECT_FALSE(error.empty());
}

}  // namespace
}  // namespace cudabridge::test
