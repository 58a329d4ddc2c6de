// A plugin built for an ABI minor between 1.0 and the host's reports a table struct_size between
// the frozen 1.0 size and the host's sizeof. The registry accepts it and reads only the bytes that
// size covers: the table is placed to end where an unreadable page starts, so a read past its
// struct_size faults instead of passing unnoticed.
#include "internal.hpp"  // core/src/registry: validate_library without loading a file

#include <cudabridge/gpu.h>
#include <cudabridge/plugin.h>

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudabridge::test {
namespace {

// Two pages, the second unreadable: place() copies a table's first `size` bytes to end at it.
class guarded_page {
public:
    guarded_page() : page_(static_cast<size_t>(sysconf(_SC_PAGESIZE))) {
        void* p = mmap(nullptr, 2 * page_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) throw std::runtime_error("mmap failed");
        base_ = static_cast<unsigned char*>(p);
        if (mprotect(base_ + page_, page_, PROT_NONE) != 0) throw std::runtime_error("mprotect failed");
    }
    ~guarded_page() { munmap(base_, 2 * page_); }
    guarded_page(const guarded_page&) = delete;
    guarded_page& operator=(const guarded_page&) = delete;

    const void* place(const void* table, size_t size) {
        unsigned char* at = base_ + page_ - size;
        std::memcpy(at, table, size);
        return at;
    }

private:
    size_t page_;
    unsigned char* base_ = nullptr;
};

void no_op() {}
cb_status create_nothing(const cb_host_services*, const cb_config*, void**) { return CB_ERR_UNSUPPORTED; }
void destroy_nothing(void*) {}

// A GPU table whose every entry is set (never called: validation only looks), cut to `size`.
cb_gpu_table full_gpu_table(uint32_t size) {
    cb_gpu_table t{};
    void (*entry)() = &no_op;
    for (size_t at = sizeof(void*); at + sizeof entry <= sizeof t; at += sizeof entry)
        std::memcpy(reinterpret_cast<unsigned char*>(&t) + at, &entry, sizeof entry);
    t.struct_size = size;
    return t;
}

struct validated {
    std::vector<core::plugin_info> plugins;
    std::vector<core::check_result> checks;
    bool ok = false;
};

validated validate_gpu_table(const void* table) {
    cb_plugin_descriptor d{};
    d.struct_size = sizeof d;
    d.kind = CB_KIND_GPU;
    d.name = "between";
    d.create = &create_nothing;
    d.destroy = &destroy_nothing;
    d.table = table;
    const cb_plugin_descriptor* list[] = {&d};
    cb_plugin_library lib{};
    lib.struct_size = sizeof lib;
    lib.abi_major = CB_ABI_MAJOR;
    lib.abi_minor = 2;
    lib.plugins = list;
    lib.plugin_count = 1;
    validated v;
    v.plugins = core::validate_library(&lib, "in-process", v.checks, v.ok);
    return v;
}

std::string check_detail(const validated& v, const std::string& name) {
    for (const auto& c : v.checks)
        if (c.name == name) return c.detail;
    return "";
}

class table_between_sizes : public ::testing::TestWithParam<size_t> {};

TEST_P(table_between_sizes, IsAcceptedAndReadOnlyUpToItsStructSize) {
    const auto size = static_cast<uint32_t>(GetParam());
    ASSERT_GT(size, CB_GPU_TABLE_SIZE_1_0);
    ASSERT_LT(size, sizeof(cb_gpu_table));
    guarded_page page;
    const cb_gpu_table t = full_gpu_table(size);
    const validated v = validate_gpu_table(page.place(&t, size));
    EXPECT_TRUE(v.ok);
    ASSERT_EQ(v.plugins.size(), 1u);
    EXPECT_EQ(v.plugins[0].name, "between");
    EXPECT_EQ(check_detail(v, "between: table size"), std::to_string(size) + " bytes");
    EXPECT_EQ(check_detail(v, "between: required entries"), "all present");
}

INSTANTIATE_TEST_SUITE_P(GpuTable, table_between_sizes,
                         ::testing::Values(CB_GPU_TABLE_SIZE_1_0 + sizeof(void*),   // one entry past 1.0
                                           CB_SIZE_THROUGH(cb_gpu_table, control),  // the ABI 1.2 table
                                           sizeof(cb_gpu_table) - sizeof(void*)));  // all but the last entry

// A table one entry short of 1.0, placed the same way, is refused without a fault, and the whole
// host-sized table is accepted.
TEST(table_sizes, TheFrozenSizeBoundsWhatIsAccepted) {
    guarded_page page;
    const uint32_t short_size = CB_GPU_TABLE_SIZE_1_0 - sizeof(void*);
    const cb_gpu_table too_short = full_gpu_table(short_size);
    const validated refused = validate_gpu_table(page.place(&too_short, short_size));
    EXPECT_FALSE(refused.ok);
    EXPECT_NE(check_detail(refused, "between: table size").find("smaller than the ABI 1.0 gpu table"),
              std::string::npos);
    const cb_gpu_table whole = full_gpu_table(sizeof(cb_gpu_table));
    EXPECT_TRUE(validate_gpu_table(page.place(&whole, sizeof whole)).ok);
}

// The guard itself: one byte past a placed table is unreadable.
TEST(table_sizes, AReadPastAPlacedTableFaults) {
    guarded_page page;
    const cb_gpu_table t = full_gpu_table(CB_GPU_TABLE_SIZE_1_0);
    const auto* placed = static_cast<const volatile unsigned char*>(page.place(&t, CB_GPU_TABLE_SIZE_1_0));
    EXPECT_DEATH((void)placed[CB_GPU_TABLE_SIZE_1_0], "");
}

}  // namespace
}  // namespace cudabridge::test
