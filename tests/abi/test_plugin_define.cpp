// CB_PLUGIN_DEFINE expanded in a C translation unit (define_c.c) and in a C++ one
// (define_cpp.cpp), each built as its own module and loaded here with dlopen.
#include "fake_host.hpp"

#include <cudabridge/plugin.h>

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <string>

namespace {

class module {
public:
    explicit module(const char* path) : handle_(dlopen(path, RTLD_NOW | RTLD_LOCAL)) {}
    ~module() {
        if (handle_ != nullptr) dlclose(handle_);
    }
    module(const module&) = delete;
    module& operator=(const module&) = delete;

    const cb_plugin_library* library() const {
        if (handle_ == nullptr) return nullptr;
        auto entry = reinterpret_cast<cb_plugin_entry_fn>(dlsym(handle_, CB_PLUGIN_ENTRY_SYMBOL));
        return entry != nullptr ? entry() : nullptr;
    }
    std::string error() const { return handle_ == nullptr ? std::string(dlerror()) : ""; }

private:
    void* handle_;
};

}  // namespace

TEST(plugin_define, c_translation_unit_exports_its_library) {
    module m(CB_ABI_DEFINE_C_PATH);
    const cb_plugin_library* lib = m.library();
    ASSERT_NE(lib, nullptr) << m.error();
    EXPECT_EQ(lib, m.library()) << "the library is static";
    EXPECT_EQ(lib->struct_size, sizeof(cb_plugin_library));
    EXPECT_EQ(lib->abi_major, CB_ABI_MAJOR);
    EXPECT_EQ(lib->abi_minor, CB_ABI_MINOR);
    ASSERT_EQ(lib->plugin_count, 2u);

    const cb_plugin_descriptor* a = lib->plugins[0];
    const cb_plugin_descriptor* b = lib->plugins[1];
    EXPECT_EQ(a->struct_size, sizeof(cb_plugin_descriptor));
    EXPECT_EQ(a->kind, CB_KIND_LOGSINK);
    EXPECT_STREQ(a->name, "c_sink_a");
    EXPECT_EQ(a->version, CB_MAKE_VERSION(1, 2, 3));
    EXPECT_STREQ(a->license, "MIT");
    EXPECT_STREQ(b->name, "c_sink_b");
    EXPECT_EQ(b->version, CB_MAKE_VERSION(0, 9, 4095));
    EXPECT_STREQ(b->license, "Apache-2.0");

    const auto* t = static_cast<const cb_logsink_table*>(a->table);
    EXPECT_EQ(t->struct_size, sizeof(cb_logsink_table));
    EXPECT_TRUE(CB_HAS_FIELD(t, cb_logsink_table, write));
    EXPECT_FALSE(CB_HAS_FIELD(t, cb_logsink_table, write_batch));  // left NULL on purpose
}

TEST(plugin_define, c_plugin_checks_for_newer_host_services) {
    module m(CB_ABI_DEFINE_C_PATH);
    const cb_plugin_library* lib = m.library();
    ASSERT_NE(lib, nullptr) << m.error();
    const cb_plugin_descriptor* d = lib->plugins[0];
    const auto* t = static_cast<const cb_logsink_table*>(d->table);

    for (uint16_t host_minor : {uint16_t{0}, uint16_t{CB_ABI_MINOR}}) {
        SCOPED_TRACE(host_minor);
        cudabridge::test::fake_host host(host_minor);
        void* instance = nullptr;
        ASSERT_EQ(d->create(host.services(), nullptr, &instance), CB_OK);
        cb_log_record r{};
        r.struct_size = sizeof r;
        r.message = "m";
        EXPECT_EQ(t->write(instance, &r), CB_OK);
        EXPECT_EQ(t->write(instance, &r), CB_OK);
        t->close(instance);
        d->destroy(instance);
        auto logs = host.logs();
        ASSERT_EQ(logs.size(), 2u);
        EXPECT_EQ(logs[0].message, host_minor == 0 ? "realtime_ns missing" : "realtime_ns available");
        EXPECT_EQ(logs[1].message, "writes=2");
    }
}

TEST(plugin_define, cpp_translation_unit_exports_its_library) {
    module m(CB_ABI_DEFINE_CPP_PATH);
    const cb_plugin_library* lib = m.library();
    ASSERT_NE(lib, nullptr) << m.error();
    EXPECT_EQ(lib, m.library());
    EXPECT_EQ(lib->struct_size, sizeof(cb_plugin_library));
    EXPECT_EQ(lib->abi_major, CB_ABI_MAJOR);
    EXPECT_EQ(lib->abi_minor, CB_ABI_MINOR);
    ASSERT_EQ(lib->plugin_count, 1u);

    const cb_plugin_descriptor* d = lib->plugins[0];
    EXPECT_EQ(d->struct_size, sizeof(cb_plugin_descriptor));
    EXPECT_EQ(d->kind, CB_KIND_SAFETY);
    EXPECT_STREQ(d->name, "cpp_policy");
    EXPECT_EQ(d->version, CB_MAKE_VERSION(3, 1, 4));
    EXPECT_STREQ(d->license, "BSD-3-Clause");
    const auto* t = static_cast<const cb_safety_table*>(d->table);
    EXPECT_EQ(t->struct_size, sizeof(cb_safety_table));

    cudabridge::test::fake_host host;
    host.config["max_temperature_c"] = "80";
    void* instance = nullptr;
    ASSERT_EQ(d->create(host.services(), nullptr, &instance), CB_OK);
    cb_device_facts facts{};
    facts.struct_size = sizeof facts;
    facts.pci_vendor_id = 0x1002;
    cb_verdict verdict{};
    verdict.struct_size = sizeof verdict;
    EXPECT_EQ(t->check_compatibility(instance, &facts, &verdict), CB_OK);
    EXPECT_EQ(verdict.compatible, 0);
    EXPECT_STREQ(verdict.reason, "not NVIDIA");

    cb_health_sample sample{};
    sample.struct_size = sizeof sample;
    sample.temperature_c = 85.0;
    cb_health_history history{};
    history.struct_size = sizeof history;
    history.samples = &sample;
    history.sample_count = 1;
    cb_safety_decision decision{};
    decision.struct_size = sizeof decision;
    EXPECT_EQ(t->evaluate(instance, &history, &decision), CB_OK);
    EXPECT_EQ(decision.action, CB_ACTION_THROTTLE);

    // The firewall inside the module: status_error thrown by the policy.
    history.sample_count = 0;
    EXPECT_EQ(t->evaluate(instance, &history, &decision), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(host.last_error(), "no samples");
    d->destroy(instance);
}
