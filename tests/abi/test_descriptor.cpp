// descriptor_of<T>() and the create/destroy it wires up, plus the sdk::host and sdk::config
// wrappers plugin code reads its services and configuration through.
#include "fake_host.hpp"

#include <cudabridge/cpp/plugin.hpp>

#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

namespace sdk = cudabridge::sdk;

namespace {

int g_live_sinks = 0;
std::string g_seen_instance_name;

// Written the way earlier SDK releases documented: four statics instead of `identity`.
class demo_sink final : public sdk::logsink {
public:
    static constexpr const char* name = "demo";
    static constexpr uint32_t version = CB_MAKE_VERSION(1, 2, 3);
    static constexpr const char* license = "MIT";
    static constexpr const char* description = "demo sink for descriptor tests";

    demo_sink(const sdk::host& h, const sdk::config& c) : logsink(h) {
        g_seen_instance_name = c.instance_name();
        std::string mode = c.get("mode").value_or("");
        if (mode == "runtime") throw std::runtime_error("constructor threw on purpose");
        if (mode == "status") throw sdk::status_error(CB_ERR_PERMISSION, "not allowed here");
        if (mode == "alloc") throw std::bad_alloc();
        ++g_live_sinks;
    }
    ~demo_sink() override { --g_live_sinks; }
    cb_status write(const cb_log_record&) override {
        ++writes;
        return CB_OK;
    }
    int writes = 0;
};

class demo_policy final : public sdk::safety_policy {
public:
    static constexpr sdk::plugin_identity identity{"demo_policy", CB_MAKE_VERSION(0, 1, 0), "Apache-2.0",
                                                   "demo policy"};
    demo_policy(const sdk::host& h, const sdk::config&) : safety_policy(h) {}
    cb_status check_compatibility(const cb_device_facts&, cb_verdict& out) override {
        out.compatible = 1;
        return CB_OK;
    }
    cb_status evaluate(const cb_health_history&, cb_safety_decision& out) override {
        out.action = CB_ACTION_WARN;
        return CB_OK;
    }
};

class demo_transport final : public sdk::transport {
public:
    static constexpr sdk::plugin_identity identity{"demo_transport", CB_MAKE_VERSION(2, 0, 0), "MIT", "demo transport"};
    demo_transport(const sdk::host& h, const sdk::config&) : transport(h) {}
    cb_status enumerate(cb_endpoint_info*, size_t, size_t& count) override {
        count = 0;
        return CB_OK;
    }
    cb_status open_link(const char*, cb_link**) override { return CB_ERR_NOT_FOUND; }
    cb_status close_link(cb_link*) override { return CB_OK; }
};

class demo_gpu final : public sdk::gpu_family {
public:
    static constexpr sdk::plugin_identity identity{"demo_gpu", CB_MAKE_VERSION(0, 0, 1), "MIT", "demo gpu family"};
    demo_gpu(const sdk::host& h, const sdk::config&) : gpu_family(h) {}
    cb_status claim(const cb_endpoint_info&, cb_bool& out) override {
        out = 0;
        return CB_OK;
    }
    cb_status open_device(const cb_gpu_open_params&, cb_gpu_device**) override { return CB_ERR_NO_DEVICE; }
    cb_status close_device(dev) override { return CB_OK; }
    cb_status get_properties(dev, cb_gpu_properties&) override { return CB_OK; }
};

template <class T>
void expect_descriptor(cb_plugin_kind kind, const void* table, const sdk::plugin_identity& id) {
    const cb_plugin_descriptor* d = sdk::descriptor_of<T>();
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d, sdk::descriptor_of<T>()) << "one static descriptor per class";
    EXPECT_EQ(d->struct_size, sizeof(cb_plugin_descriptor));
    EXPECT_EQ(d->kind, kind);
    EXPECT_STREQ(d->name, id.name);
    EXPECT_EQ(d->version, id.version);
    EXPECT_EQ(d->reserved0, 0u);
    EXPECT_STREQ(d->license, id.license);
    EXPECT_STREQ(d->description, id.description);
    EXPECT_TRUE(CB_HAS_FIELD(d, cb_plugin_descriptor, create));
    EXPECT_TRUE(CB_HAS_FIELD(d, cb_plugin_descriptor, destroy));
    EXPECT_EQ(d->table, table);
}

cb_config make_config(const char* instance, const cb_config_entry* entries, size_t count) {
    cb_config c{};
    c.struct_size = sizeof c;
    c.instance_name = instance;
    c.entries = entries;
    c.entry_count = count;
    return c;
}

}  // namespace

TEST(descriptor_of, fills_every_field_for_each_kind) {
    expect_descriptor<demo_policy>(CB_KIND_SAFETY, sdk::safety_policy::table(), demo_policy::identity);
    expect_descriptor<demo_transport>(CB_KIND_TRANSPORT, sdk::transport::table(), demo_transport::identity);
    expect_descriptor<demo_gpu>(CB_KIND_GPU, sdk::gpu_family::table(), demo_gpu::identity);
    EXPECT_STREQ(sdk::descriptor_of<demo_gpu>()->name, "demo_gpu");
    EXPECT_STREQ(sdk::descriptor_of<demo_policy>()->license, "Apache-2.0");
}

TEST(descriptor_of, still_reads_the_four_statics_of_earlier_sdk_releases) {
    expect_descriptor<demo_sink>(CB_KIND_LOGSINK, sdk::logsink::table(),
                                 {"demo", CB_MAKE_VERSION(1, 2, 3), "MIT", "demo sink for descriptor tests"});
}

TEST(descriptor_of, create_and_destroy_run_the_class) {
    cudabridge::test::fake_host host;
    const cb_plugin_descriptor* d = sdk::descriptor_of<demo_sink>();
    cb_config_entry entries[] = {{"mode", "ok"}};
    cb_config config = make_config("sink-1", entries, 1);
    void* instance = nullptr;
    ASSERT_EQ(d->create(host.services(), &config, &instance), CB_OK);
    ASSERT_NE(instance, nullptr);
    EXPECT_EQ(g_live_sinks, 1);
    EXPECT_EQ(g_seen_instance_name, "sink-1");

    // The instance pointer is the kind's base: the table's entries reach the class through it.
    const auto* t = static_cast<const cb_logsink_table*>(d->table);
    cb_log_record r{};
    r.struct_size = sizeof r;
    EXPECT_EQ(t->write(instance, &r), CB_OK);
    EXPECT_EQ(dynamic_cast<demo_sink*>(static_cast<sdk::logsink*>(instance))->writes, 1);

    d->destroy(instance);
    EXPECT_EQ(g_live_sinks, 0);
    EXPECT_TRUE(host.errors().empty());
}

TEST(descriptor_of, create_accepts_a_null_config) {
    cudabridge::test::fake_host host;
    const cb_plugin_descriptor* d = sdk::descriptor_of<demo_sink>();
    void* instance = nullptr;
    ASSERT_EQ(d->create(host.services(), nullptr, &instance), CB_OK);
    EXPECT_EQ(g_seen_instance_name, "");
    d->destroy(instance);
}

TEST(descriptor_of, create_without_out_pointer_is_refused) {
    cudabridge::test::fake_host host;
    EXPECT_EQ(sdk::descriptor_of<demo_sink>()->create(host.services(), nullptr, nullptr), CB_ERR_INVALID_ARGUMENT);
    EXPECT_EQ(g_live_sinks, 0);
}

TEST(descriptor_of, a_throwing_constructor_becomes_a_status) {
    struct expected {
        const char* mode;
        cb_status status;
        const char* message;
    };
    const expected all[] = {
        {"runtime", CB_ERR_INTERNAL, "unexpected exception: constructor threw on purpose"},
        {"status", CB_ERR_PERMISSION, "not allowed here"},
        {"alloc", CB_ERR_OUT_OF_MEMORY, "out of host memory"},
    };
    for (const expected& e : all) {
        SCOPED_TRACE(e.mode);
        cudabridge::test::fake_host host;
        cb_config_entry entries[] = {{"mode", e.mode}};
        cb_config config = make_config("x", entries, 1);
        void* instance = reinterpret_cast<void*>(0x1);
        EXPECT_EQ(sdk::descriptor_of<demo_sink>()->create(host.services(), &config, &instance), e.status);
        EXPECT_EQ(instance, nullptr);
        EXPECT_EQ(host.last_error(), e.message);
        EXPECT_EQ(g_live_sinks, 0);
    }
}

TEST(descriptor_of, other_kinds_create_and_destroy) {
    cudabridge::test::fake_host host;
    auto roundtrip = [&](const cb_plugin_descriptor* d) {
        void* instance = nullptr;
        ASSERT_EQ(d->create(host.services(), nullptr, &instance), CB_OK) << d->name;
        ASSERT_NE(instance, nullptr);
        d->destroy(instance);
    };
    roundtrip(sdk::descriptor_of<demo_policy>());
    roundtrip(sdk::descriptor_of<demo_transport>());
    roundtrip(sdk::descriptor_of<demo_gpu>());

    void* instance = nullptr;
    const cb_plugin_descriptor* d = sdk::descriptor_of<demo_policy>();
    ASSERT_EQ(d->create(host.services(), nullptr, &instance), CB_OK);
    const auto* t = static_cast<const cb_safety_table*>(d->table);
    cb_health_history history{};
    history.struct_size = sizeof history;
    cb_safety_decision decision{};
    decision.struct_size = sizeof decision;
    EXPECT_EQ(t->evaluate(instance, &history, &decision), CB_OK);
    EXPECT_EQ(decision.action, CB_ACTION_WARN);
    d->destroy(instance);
}

// ---- sdk::host and sdk::config ------------------------------------------------------------------

TEST(sdk_host, declares_and_reads_parameters) {
    cudabridge::test::fake_host fake;
    sdk::host h(fake.services());
    h.declare(CB_PARAM_INT, "rotate_bytes", "1048576", "rotate after this many bytes");
    h.declare_range(CB_PARAM_DOUBLE, "ratio", "0.5", "a ratio", true, 0.0, 1.0);
    auto declared = fake.declared();
    ASSERT_EQ(declared.size(), 2u);
    EXPECT_EQ(declared[0].name, "rotate_bytes");
    EXPECT_EQ(declared[0].type, CB_PARAM_INT);
    EXPECT_EQ(declared[0].help, "rotate after this many bytes");

    EXPECT_EQ(h.param_int("rotate_bytes", 0), 1048576);  // the default
    fake.config["rotate_bytes"] = "42";
    EXPECT_EQ(h.param_int("rotate_bytes", 0), 42);
    EXPECT_DOUBLE_EQ(h.param_double("ratio", 0.0), 0.5);
    fake.config["flag"] = "yes";
    EXPECT_TRUE(h.param_bool("flag", false));
    fake.config["flag"] = "0";
    EXPECT_FALSE(h.param_bool("flag", true));
    EXPECT_EQ(h.param("unknown"), std::nullopt);
    EXPECT_EQ(h.param_or("unknown", "fallback"), "fallback");
    fake.config["not_a_number"] = "x";
    EXPECT_EQ(h.param_int("not_a_number", 7), 7);
}

TEST(sdk_host, reads_values_longer_than_its_first_buffer) {
    cudabridge::test::fake_host fake;
    sdk::host h(fake.services());
    std::string long_value(1000, 'v');
    long_value.back() = 'z';
    fake.config["long"] = long_value;
    EXPECT_EQ(h.param("long"), long_value);
    EXPECT_EQ(h.set_setting("global", "k", long_value), CB_OK);
    EXPECT_EQ(h.setting("global", "k"), long_value);
    EXPECT_EQ(h.setting("global", "missing"), std::nullopt);
}

TEST(sdk_host, reports_through_the_services) {
    cudabridge::test::fake_host fake;
    sdk::host h(fake.services());
    h.log(CB_LOG_WARN, "EGPU", "hot");
    ASSERT_EQ(fake.logs().size(), 1u);
    EXPECT_EQ(fake.logs()[0].message, "hot");
    EXPECT_EQ(h.record_event("LINK", CB_SEVERITY_WARNING, "link_down", "lost"), CB_OK);
    EXPECT_EQ(fake.events(), std::vector<std::string>{"LINK/link_down: lost"});
    h.set_last_error("why");
    EXPECT_EQ(fake.last_error(), "why");
    EXPECT_GT(h.monotonic_ns(), 0u);
    EXPECT_EQ(h.path(CB_PATH_LOG_DIR), "/nonexistent/log");
}

TEST(sdk_host, a_missing_table_or_entry_is_tolerated) {
    sdk::host none(nullptr);
    none.log(CB_LOG_INFO, "X", "dropped");
    none.set_last_error("dropped");
    EXPECT_EQ(none.record_event("X", CB_SEVERITY_INFO, "k", "m"), CB_ERR_UNSUPPORTED);
    EXPECT_EQ(none.param("x"), std::nullopt);
    EXPECT_EQ(none.monotonic_ns(), 0u);
    EXPECT_NO_THROW(none.declare(CB_PARAM_STRING, "x", "", "help"));

    // A table that ends early: entries past struct_size are never called.
    cudabridge::test::fake_host fake;
    cb_host_services cut = *fake.services();
    cut.struct_size = offsetof(cb_host_services, param_get);
    sdk::host h(&cut);
    fake.config["x"] = "1";
    EXPECT_EQ(h.param("x"), std::nullopt);
    EXPECT_EQ(h.monotonic_ns(), 0u);
    h.set_last_error("dropped");
    EXPECT_TRUE(fake.errors().empty());
    h.log(CB_LOG_INFO, "X", "kept");
    EXPECT_EQ(fake.logs().size(), 1u);
}

TEST(sdk_config, finds_entries_by_key) {
    cb_config_entry entries[] = {{"path", "/tmp/x"}, {"empty", nullptr}, {nullptr, "ignored"}};
    cb_config c = make_config("file-1", entries, 3);
    sdk::config cfg(&c);
    EXPECT_EQ(cfg.get("path"), "/tmp/x");
    EXPECT_EQ(cfg.get("empty"), "");
    EXPECT_EQ(cfg.get("missing"), std::nullopt);
    EXPECT_EQ(cfg.instance_name(), "file-1");
    sdk::config none(nullptr);
    EXPECT_EQ(none.get("path"), std::nullopt);
    EXPECT_EQ(none.instance_name(), "");
}
